import MatterFlowJSON

/// The moves of ``SessionExplorer``: what can happen next in a configuration.
extension SessionExplorer {
    typealias Move = (Config, Step)

    mutating func successors(of position: Int) -> [Move] {
        let config = configs[position]
        let frame = config.frames[config.frames.count - 1]
        let node = nodes[frame.node]
        guard let state = node.workflow.states[frame.state] else { return [] }
        var moves: [Move] = []
        let shielded = config.frames.contains { $0.mode != .normal }
        if !state.isTerminal, !shielded {
            for forked in cancelEffects(config, state: state) {
                cancelLevel(forked, at: position, moves: &moves)
            }
        }
        switch state.kind {
        case .succeed:
            endLevel(config, at: position, failure: nil, unrouted: false, moves: &moves)
        case .fail:
            endLevel(config, at: position, failure: node.flow.raised[state.name] ?? [.any], unrouted: false, moves: &moves)
        case .action(let action):
            moves += actionMoves(config, at: position, action: action, state: state)
        case .workflow(let subworkflow):
            workflowMoves(config, at: position, subworkflow: subworkflow, state: state, moves: &moves)
        case .choice(let choice):
            moves += choiceMoves(config, choice: choice, state: state)
        case .assign(let assign):
            var next = config
            for (variable, value) in assign.assignments where node.tracked.contains(variable) {
                next.setFact(variable, value.existence)
            }
            moves.append(move(next, to: assign.next, "next", state.pointer + "/next"))
        case .wait(let wait):
            var received = config
            if let result = wait.result, node.tracked.contains(result) { received.setFact(result, true) }
            for branch in wait.branches {
                moves.append(move(received, to: branch.next, "event \(branch.value)", state.pointer + "/on/" + branch.value))
            }
            if let otherwise = wait.otherwise {
                moves.append(move(received, to: otherwise, "event otherwise", state.pointer + "/otherwise"))
            }
            moves.append(move(config, to: wait.onTimeout, "timeout", state.pointer + "/onTimeout"))
        }
        return moves
    }

    /// Moves the innermost level to another of its states.
    func move(_ config: Config, to target: String, _ label: String, _ pointer: String) -> Move {
        var next = config
        next.frames[next.frames.count - 1].state = target
        return (next, Step(label: label, rootPointer: next.frames.count == 1 ? pointer : nil))
    }

    private mutating func actionMoves(_ config: Config, at position: Int, action: ActionState, state: WorkflowState) -> [Move] {
        guard let operation = catalog[action.operation] else { return [] }
        for requirement in operation.requires where !config.satisfies(requirement) {
            let pointer = config.frames.count == 1
                ? state.pointer + "/operation"
                : (nodes[0].workflow.states[config.frames[0].state]?.pointer ?? "") + "/path"
            violations.append(
                Violation(config: position, operation: operation.name, requirement: requirement, rootPointer: pointer))
        }
        let node = nodes[config.frames[config.frames.count - 1].node]
        var succeeded = config
        succeeded.record(operation, succeeded: true)
        if let result = action.step.result, node.tracked.contains(result) { succeeded.setFact(result, true) }
        var moves = [move(succeeded, to: action.step.next, "next", state.pointer + "/next")]
        var failed = config
        failed.record(operation, succeeded: false)
        if let routing = node.flow.routing[state.name] {
            moves += routeMoves(failed, state: state, step: action.step, taken: routing.routed)
            if !routing.escaping.isEmpty {
                endLevel(failed, at: position, failure: routing.escaping, unrouted: true, moves: &moves)
            }
        }
        return moves
    }

    private mutating func workflowMoves(
        _ config: Config, at position: Int, subworkflow: SubworkflowState, state: WorkflowState, moves: inout [Move]
    ) {
        let node = nodes[config.frames[config.frames.count - 1].node]
        guard let child = node.children[state.name] else { return }
        var started = config
        started.frames.append(Frame(node: child, state: nodes[child].workflow.start, mode: .normal, facts: [:]))
        moves.append((started, Step(label: "start", rootPointer: config.frames.count == 1 ? state.pointer + "/path" : nil)))
        // Guards and inputs may fail before the child starts.
        let before = ErrorFlow.stepErrors(state, workflow: node.workflow, catalog: catalog, childErrors: { _ in [] }) ?? []
        if !before.isEmpty {
            routeFailure(config, at: position, state: state, step: subworkflow.step, errors: before, retry: false, moves: &moves)
        }
    }

    private func routeMoves(_ config: Config, state: WorkflowState, step: StepBehavior, taken: [Set<PossibleError>]) -> [Move] {
        step.onError.enumerated().compactMap { index, route in
            guard taken[safe: index]?.isEmpty == false else { return nil }
            return move(
                config, to: route.next, WorkflowEdge.Kind.error(index, route.errors).description,
                state.pointer + "/onError/\(index)/next")
        }
    }

    /// A step of the innermost level failed with `errors`: its routes, a retry (sub-workflows), or the level ends.
    private mutating func routeFailure(
        _ config: Config, at position: Int, state: WorkflowState, step: StepBehavior, errors: Set<PossibleError>,
        retry: Bool, moves: inout [Move]
    ) {
        let (taken, escaping) = errors.partition(by: step.onError.map(\.errors))
        moves += routeMoves(config, state: state, step: step, taken: taken)
        if retry, step.retry.contains(where: { retrier in
            retrier.maxRetries > 0 && errors.contains { error in retrier.errors.contains(where: error.mayMatch) }
        }), let child = nodes[config.frames[config.frames.count - 1].node].children[state.name] {
            var again = config
            again.frames.append(Frame(node: child, state: nodes[child].workflow.start, mode: .normal, facts: [:]))
            moves.append((again, Step(label: "retry", rootPointer: config.frames.count == 1 ? state.pointer + "/retry" : nil)))
        }
        if !escaping.isEmpty {
            endLevel(config, at: position, failure: escaping, unrouted: true, moves: &moves)
        }
    }

    /// The innermost level ends: with success (`failure` nil) or an error. Its parent continues, or the run ends.
    private mutating func endLevel(
        _ config: Config, at position: Int, failure: Set<PossibleError>?, unrouted: Bool, moves: inout [Move]
    ) {
        var next = config
        let ended = next.frames.removeLast()
        guard let parent = next.frames.last else {
            let ending: Ending = ended.mode == .cancelling ? .cancelled : failure == nil ? .succeeded : unrouted ? .unrouted : .failed
            ends.append(End(
                config: position, ending: ending, state: name(config), label: unrouted ? "unrouted error" : nil,
                rootPointer: unrouted ? nodes[0].workflow.states[ended.state].map { state in
                    state.pointer + (state.step?.onError.isEmpty == false ? "/onError" : "")
                } : nil,
                held: config.held))
            return
        }
        if ended.mode == .cancelling {
            cancelLevel(next, at: position, moves: &moves)
            return
        }
        let node = nodes[parent.node]
        guard let state = node.workflow.states[parent.state], case .workflow(let subworkflow) = state.kind else { return }
        guard let failure else {
            if let result = subworkflow.step.result, node.tracked.contains(result) {
                next.setFact(result, nodes[ended.node].outputNonNull ? true : nil)
            }
            moves.append(move(next, to: subworkflow.step.next, "next", state.pointer + "/next"))
            return
        }
        routeFailure(next, at: position, state: state, step: subworkflow.step, errors: failure, retry: true, moves: &moves)
    }

    /// A cancel reaches the innermost level: it takes its cancel path, or ends at once and passes the cancel up.
    private mutating func cancelLevel(_ config: Config, at position: Int, moves: inout [Move]) {
        var next = config
        let level = next.frames.count - 1
        for outer in 0..<level { next.frames[outer].mode = .pending }
        if let onCancel = nodes[next.frames[level].node].workflow.onCancel {
            next.frames[level].mode = .cancelling
            moves.append(move(next, to: onCancel, "cancel", "/onCancel"))
            return
        }
        next.frames[level].mode = .cancelling
        endLevel(next, at: position, failure: nil, unrouted: false, moves: &moves)
    }

    /// What a cancel leaves behind in the state it interrupts: an abandoned call may still have succeeded.
    private func cancelEffects(_ config: Config, state: WorkflowState) -> [Config] {
        guard case .action(let action) = state.kind, let operation = catalog[action.operation] else { return [config] }
        let node = nodes[config.frames[config.frames.count - 1].node]
        var late = config
        late.record(operation, succeeded: true)
        if let result = action.step.result, node.tracked.contains(result) { late.setFact(result, true) }
        if operation.acquiresSession || operation.releasesSession && !operation.releaseAttemptSuffices {
            return [config, late]
        }
        if operation.releasesSession { return [late] }
        var unknown = config
        if let result = action.step.result, node.tracked.contains(result), config.fact(result) != true {
            unknown.setFact(result, nil)
        }
        return [unknown]
    }

    private func choiceMoves(_ config: Config, choice: ChoiceState, state: WorkflowState) -> [Move] {
        let node = nodes[config.frames[config.frames.count - 1].node]
        var moves: [Move] = []
        var remaining = config
        for (index, branch) in choice.branches.enumerated() {
            let value = branch.condition.evaluate(remaining.frames[remaining.frames.count - 1].facts)
            if value == false { continue }
            var taken = remaining
            taken.assume(branch.condition, true)
            for reference in branch.condition.templates.flatMap(\.references) where reference.root == .vars {
                if let head = reference.head, let operation = node.supportResults[head] { taken.checked.insert(operation) }
            }
            moves.append(move(taken, to: branch.next, "choice[\(index)]", state.pointer + "/choices/\(index)/next"))
            if value == true { return moves }
            remaining.assume(branch.condition, false)
        }
        moves.append(move(remaining, to: choice.defaultNext, "default", state.pointer + "/default"))
        return moves
    }
}

extension SessionExplorer.Config {
    func satisfies(_ requirement: OrderRequirement) -> Bool {
        switch requirement.scope {
        case .session:
            guard let sessionOps else { return true }
            return requirement.operations.contains(where: sessionOps.contains)
        case .supportCheck:
            return requirement.operations.contains(where: checked.contains)
        }
    }

    /// Records the session effect of a call that succeeded or failed.
    mutating func record(_ operation: OperationDescriptor, succeeded: Bool) {
        if succeeded, operation.acquiresSession {
            held = true
            sessionOps = [operation.name]
        } else if operation.releasesSession, succeeded || operation.releaseAttemptSuffices {
            held = false
            sessionOps = []
        } else if succeeded {
            sessionOps?.insert(operation.name)
        }
    }

    func fact(_ variable: String) -> Bool? { frames[frames.count - 1].facts[variable] }

    mutating func setFact(_ variable: String, _ value: Bool?) {
        frames[frames.count - 1].facts[variable] = value
    }

    /// Refines the facts with a condition known to hold (or not).
    mutating func assume(_ condition: Condition, _ holds: Bool) {
        switch condition {
        case .exists(let template):
            if let variable = template.wholeVariable { setFact(variable, holds) }
        case .not(let inner):
            assume(inner, !holds)
        case .and(let conditions) where holds:
            for inner in conditions { assume(inner, true) }
        case .or(let conditions) where !holds:
            for inner in conditions { assume(inner, false) }
        default:
            break
        }
    }
}

extension Condition {
    /// The condition's value from what is known of variables' existence; nil when it depends on more.
    func evaluate(_ facts: [String: Bool]) -> Bool? {
        switch self {
        case .exists(let template):
            return template.wholeVariable.flatMap { facts[$0] }
        case .not(let inner):
            return inner.evaluate(facts).map { !$0 }
        case .and(let conditions):
            let values = conditions.map { $0.evaluate(facts) }
            if values.contains(false) { return false }
            return values.allSatisfy { $0 == true } ? true : nil
        case .or(let conditions):
            let values = conditions.map { $0.evaluate(facts) }
            if values.contains(true) { return true }
            return values.allSatisfy { $0 == false } ? false : nil
        case .compare, .isEmpty, .contains:
            return nil
        }
    }
}

extension Template {
    /// Whether the value exists (is not null) after an assign sets it; nil when it depends on a reference.
    var existence: Bool? {
        switch self {
        case .literal(let value): !value.isNull
        case .interpolation, .array, .object: true
        case .reference: nil
        }
    }
}
