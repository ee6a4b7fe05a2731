import MatterFlowJSON

/// Where errors go in one workflow: what each step may fail with (its operation's declared causes, the engine's,
/// its guards', or what its sub-workflow can end with), what each route and retrier takes of that, what escapes
/// with no route, what `${error}` may hold in each state, and what the workflow as a whole can fail with.
///
/// Errors raised by `choice`, `assign`, `succeed` and `fail` states themselves (a `${...}` that does not resolve)
/// are left out: the reference checks (`undefinedVariable`, `possiblyUnboundVariable`) cover them.
///
/// A class: the analyses of a load share one per file (``VerificationContext``), and a copy of a struct this
/// size retained each of its arrays for every pass that asked for it.
final class ErrorFlow {
    /// How the errors of one step are taken by its retriers and routes.
    struct Routing {
        var errors: ErrorSet
        var retried: [ErrorSet]
        var routed: [ErrorSet]
        /// Errors no route is sure to take: they may end the workflow.
        var escaping: ErrorSet
    }

    let workflow: Workflow
    /// The load's errors by number: the sets here are numbered by it.
    let table: PossibleErrorTable
    /// The workflow's states by number.
    let model: CompiledWorkflow
    /// Routing of every step (action and workflow state) whose errors are known, by state number.
    private var routings: [Routing?]
    /// What `${error}` may hold when a state is entered, by state number.
    private var errorAt: [ErrorSet]
    /// What each fail state raises, by state number.
    private var raisedErrors: [ErrorSet?]
    /// States a run reaches without being cancelled, by number.
    private let normallyReached: [Bool]
    /// Every error the workflow can end with when it is not cancelled.
    private(set) var workflowErrors = ErrorSet()

    /// - Parameter childErrors: what a sub-workflow (by the path in its state) can end with; nil when unknown.
    init(
        workflow: Workflow, table: PossibleErrorTable,
        childErrors: (String) -> ErrorSet?
    ) {
        self.workflow = workflow
        self.table = table
        let model = workflow.model
        self.model = model
        let count = model.count
        normallyReached = model.reachable(includingCancel: false)
        routings = [Routing?](repeating: nil, count: count)
        errorAt = [ErrorSet](repeating: ErrorSet(), count: count)
        raisedErrors = [ErrorSet?](repeating: nil, count: count)
        for (number, state) in model.states.enumerated() {
            guard let errors = Self.stepErrors(state, workflow: workflow, table: table, childErrors: childErrors),
                let step = state.step
            else { continue }
            let retried = table.partition(errors, by: step.retry.map(\.errors)).taken
            let (routed, escaping) = table.partition(errors, by: step.onError.map(\.errors))
            routings[number] = Routing(errors: errors, retried: retried, routed: routed, escaping: escaping)
        }
        propagateErrors()
        for number in 0..<count where normallyReached[number] {
            if let raised = raisedErrors[number] { workflowErrors.formUnion(raised) }
            if let escaping = routings[number]?.escaping { workflowErrors.formUnion(escaping) }
        }
    }

    /// The routing of the step numbered `state`; nil for other states or unknown errors.
    func routing(_ state: Int) -> Routing? { routings[state] }

    /// The routing of the step with a name.
    func routing(named name: String) -> Routing? { model.numbers[name].flatMap { routings[$0] } }

    /// What the fail state numbered `state` raises; nil for other states.
    func raised(_ state: Int) -> ErrorSet? { raisedErrors[state] }

    /// Whether a run reaches the state numbered `state` without being cancelled.
    func isNormallyReached(_ state: Int) -> Bool { normallyReached[state] }

    /// What a step may fail with before retries and routes; nil for other states or an unknown operation.
    static func stepErrors(
        _ state: WorkflowState, workflow: Workflow, table: PossibleErrorTable,
        childErrors: (String) -> ErrorSet?
    ) -> ErrorSet? {
        var errors: ErrorSet
        let guards: [Guard]
        switch state.kind {
        case .action(let action):
            guard let operation = table.catalog[action.operation] else { return nil }
            errors = table.errors(calling: operation)
            if !operation.arguments.isEmpty || !action.arguments.isEmpty { errors.insert(table.number(of: .invalidArgumentValue)) }
            if action.arguments.contains(where: { !$0.value.references.isEmpty }) { errors.insert(table.number(of: .unresolvedReference)) }
            guards = action.step.guards
        case .workflow(let subworkflow) where subworkflow.map != nil:
            // A map state fails with errors of its own: an element's error (its body's, or its inputs') is recorded
            // in the result, and only more of them than it tolerates fail the map.
            guard let map = subworkflow.map else { return nil }
            errors = ErrorSet([table.number(of: .mapItemsNotList), table.number(of: .mapTooManyItems)])
            if map.items.hasReferences { errors.insert(table.number(of: .unresolvedReference)) }
            if map.tolerateFailures < map.maxItems { errors.insert(table.number(of: .mapElementsFailed)) }
            guards = []
        case .workflow(let subworkflow):
            errors = childErrors(subworkflow.path) ?? PossibleErrorTable.anyError
            let causes: [ErrorCause]
            if let child = workflow.subworkflows[subworkflow.path] {
                causes = inputErrors(subworkflow.inputs, of: child, in: workflow)
            } else {
                causes = [.invalidArgumentValue, .unresolvedReference]
            }
            for cause in causes { errors.insert(table.number(of: cause)) }
            if subworkflow.repeating != nil {
                errors.insert(table.number(of: .repeatExhausted))
                errors.insert(table.number(of: .unresolvedReference))
            }
            guards = subworkflow.step.guards
        case .choice, .assign, .wait, .ask, .delay, .succeed, .fail:
            return nil
        }
        for listed in guards { errors.formUnion(table.errors(checking: listed)) }
        return errors
    }

    /// The errors a sub-workflow's inputs may fail with before it starts (``inputFailures(_:of:in:)``).
    static func inputErrors(
        _ given: [(name: String, value: Template)], of child: Workflow, in workflow: Workflow
    ) -> [ErrorCause] {
        Set(inputFailures(given, of: child, in: workflow).map(\.cause)).sorted { $0.rawValue < $1.rawValue }
    }

    /// How a given input of a sub-workflow may fail before the child starts, and why, in words.
    struct InputFailure: Sendable {
        /// The input's name.
        var input: String
        var cause: ErrorCause
        /// What may go wrong, after the input's name: `reads ${vars.req.requestID}, which may not resolve`.
        var reason: String
    }

    /// The ways a sub-workflow's inputs may fail before it starts: a reference that may not resolve (`${vars...}`,
    /// `${error...}`: the run's inputs and `${run...}` always do), or a value that may have the wrong type or be
    /// null for a required input. Literals are checked when loading (`argumentType`).
    static func inputFailures(
        _ given: [(name: String, value: Template)], of child: Workflow, in workflow: Workflow
    ) -> [InputFailure] {
        var failures: [InputFailure] = []
        for (name, template) in given {
            guard let declared = child.input(named: name) else { continue }
            if let reference = template.references.first(where: { $0.root == .vars || $0.root == .error }) {
                failures.append(InputFailure(input: name, cause: .unresolvedReference, reason: "reads ${\(reference)}, which may not resolve"))
            }
            let fits: Bool
            switch template {
            case .literal(let value):
                fits = !(value.isNull && declared.required)
            case .interpolation:
                fits = declared.type == .string || declared.type == .any
            case .reference(let reference) where reference.root == .input && reference.path.count == 1:
                guard let source = reference.head.flatMap(workflow.input(named:)) else { fits = false; break }
                let nullable = !source.required && (source.defaultValue == nil || source.defaultValue?.isNull == true)
                fits = (declared.type == .any || declared.type == source.type) && !(nullable && declared.required)
            case .reference(let reference) where reference.root == .run && reference.path.count == 1:
                fits = declared.type == .string || declared.type == .any
            case .array:
                fits = declared.type == .any || declared.type == .array
            case .object:
                fits = declared.type == .any || declared.type == .object
            case .reference:
                fits = declared.type == .any && !declared.required
            }
            if !fits {
                let type = "of its declared type (\(declared.type.rawValue))"
                failures.append(InputFailure(
                    input: name, cause: .invalidArgumentValue,
                    reason: declared.required ? "may be null or not \(type)" : "may not be \(type)"))
            }
        }
        return failures
    }

    /// `${error}` along the edges (error routes bind what they take, cancel edges bind the cancel, other edges
    /// keep what was bound), then what each fail state raises.
    private func propagateErrors() {
        // Sets only grow, so the result does not depend on the order edges are followed in: a worklist follows
        // again only the edges leaving a state whose `${error}` grew.
        // Edges are followed by their number in the model; those to an undefined state are never queued.
        let edges = model.edges
        var carrying: [(Int, Int)] = []
        carrying.reserveCapacity(edges.count)
        var queue: [Int] = []
        queue.reserveCapacity(edges.count)
        for index in edges.indices where edges[index].to != nil {
            queue.append(index)
            if edges[index].kind.carriesError { carrying.append((edges[index].from, index)) }
        }
        let carried = Adjacency(count: model.count, carrying)
        let cancelled = table.set(PossibleError(.runCancelled))
        var queued = [Bool](repeating: true, count: edges.count)
        var head = 0
        while head < queue.count {
            let edge = edges[queue[head]]
            queued[queue[head]] = false
            head += 1
            guard let to = edge.to else { continue }
            let incoming: ErrorSet
            switch edge.kind {
            case .error(let index, _): incoming = routings[edge.from]?.routed[safe: index] ?? PossibleErrorTable.anyError
            case .cancel: incoming = cancelled
            case .next, .choice, .choiceDefault, .event, .eventOtherwise, .timeout: incoming = errorAt[edge.from]
            }
            guard !incoming.isSubset(of: errorAt[to]) else { continue }
            errorAt[to].formUnion(incoming)
            for next in carried[to] where !queued[next] {
                queued[next] = true
                queue.append(next)
            }
        }
        for (number, state) in model.states.enumerated() {
            guard case .fail(let fail) = state.kind else { continue }
            raisedErrors[number] = raisedErrors(fail, at: number)
        }
    }

    private func raisedErrors(_ fail: FailState, at state: Int) -> ErrorSet {
        switch fail.raise {
        case .rethrow(let template):
            return errorValue(template, at: state, visiting: [])
        case .new(let code, let cause, _):
            if case .reference(let codeReference) = code, codeReference.root == .error,
                codeReference.path == [.member("code")]
            {
                // Nothing known to be bound: any error.
                return errorAt[state].isEmpty ? PossibleErrorTable.anyError : errorAt[state]
            }
            let codeText = code.literalValue?.stringValue
            let causeText: String? = cause.map { $0.literalValue?.stringValue } ?? ErrorCause.workflowFailed.rawValue
            return table.set(PossibleError(code: codeText, cause: causeText))
        }
    }

    /// The errors a template may evaluate to: `${error}`, or a variable set from one.
    private func errorValue(_ template: Template, at state: Int, visiting: Set<String>) -> ErrorSet {
        guard case .reference(let reference) = template else { return PossibleErrorTable.anyError }
        if reference.root == .error, reference.path.isEmpty { return errorAt[state] }
        guard reference.root == .vars, reference.path.count == 1, let name = reference.head,
            !visiting.contains(name)
        else { return PossibleErrorTable.anyError }
        var errors = ErrorSet()
        for (candidate, bound) in model.states.enumerated() {
            switch bound.kind {
            case .assign(let assign):
                for (variable, value) in assign.assignments where variable == name {
                    errors.formUnion(errorValue(value, at: candidate, visiting: visiting.union([name])))
                }
            case .action(let action) where action.step.result == name: return PossibleErrorTable.anyError
            case .workflow(let subworkflow) where subworkflow.step.result == name: return PossibleErrorTable.anyError
            case .wait(let wait) where wait.result == name: return PossibleErrorTable.anyError
            case .ask(let ask) where ask.result == name: return PossibleErrorTable.anyError
            case .action, .workflow, .wait, .ask, .choice, .delay, .succeed, .fail: break
            }
        }
        return errors.isEmpty ? PossibleErrorTable.anyError : errors
    }
}

extension WorkflowState {
    /// The step behaviour of an action or workflow state.
    var step: StepBehavior? {
        switch kind {
        case .action(let action): action.step
        case .workflow(let subworkflow): subworkflow.step
        case .choice, .assign, .wait, .ask, .delay, .succeed, .fail: nil
        }
    }
}

extension Array {
    subscript(safe index: Int) -> Element? {
        indices.contains(index) ? self[index] : nil
    }
}
