import MatterFlowJSON

/// The nodes of ``SessionExplorer``: one per workflow file of a load, with what the walk reads of the file
/// found once (tracked variables, support checks, what each sub-workflow state may fail with before its child
/// starts).
extension SessionExplorer {
    /// One workflow file of the tree: the root, or a sub-workflow run by some state.
    ///
    /// A class, so that looking a node up for every move shares it instead of copying a whole workflow and its
    /// error flow.
    final class Node {
        let workflow: Workflow
        let flow: ErrorFlow
        /// The workflow's states by number (configurations name states by these numbers).
        let model: CompiledWorkflow
        /// Child nodes by the number of the workflow state that runs them.
        var children: [Int: Int] = [:]
        /// Variables some choice tests with `exists`, each with its number in ``VariableFacts``.
        let tracked: [String: Int]
        /// Variables bound to the result of a support-check operation, with that operation and the value's shape.
        let supportResults: [String: SupportResult]
        /// The support-check result the workflow outputs (whole, in part or in an object), if any.
        let supportOutput: SupportResult?
        /// Every succeed state outputs a non-null value.
        let outputNonNull: Bool
        /// For each choice state (by number), the support-check operations each branch's condition tests the
        /// result of: found once here instead of from the condition's references at every visit. A branch tests a
        /// result when it compares, or looks in, a value of it the result declares (``Condition/valueReads``).
        let supportChecks: [Int: [OperationSet]]
        /// The members of support results that branch conditions read but the results do not declare, in state and
        /// branch order, each once per branch.
        let unknownSupportFields: [UnknownSupportField]
        /// For each workflow state (by number), what its guards and inputs may fail with before the child starts.
        let startErrors: [Int: ErrorSet]
        /// For each action state (by number) whose operation the catalog has, what the walk needs of the call:
        /// looked up once here instead of by name at every visit.
        let calls: [Call?]
        /// The operations whose earlier success some call of this file or its sub-workflows requires, by scope:
        /// the only ones of the session facts a level is entered with that can change what happens in it
        /// (``SessionExplorer/entrySession(_:into:)``).
        var sessionRequirements = OperationSet()
        var supportRequirements = OperationSet()

        init(
            workflow: Workflow, flow: ErrorFlow, errors: PossibleErrorTable, graph: SessionGraph, tracked: [String: Int],
            supportResults: [String: SupportResult], supportOutput: SupportResult?, outputNonNull: Bool
        ) {
            self.workflow = workflow
            self.flow = flow
            model = flow.model
            self.tracked = tracked
            self.supportResults = supportResults
            self.supportOutput = supportOutput
            self.outputNonNull = outputNonNull
            var checks: [Int: [OperationSet]] = [:]
            var unknown: [UnknownSupportField] = []
            var before: [Int: ErrorSet] = [:]
            var calls = [Call?](repeating: nil, count: flow.model.count)
            for (number, state) in flow.model.states.enumerated() {
                switch state.kind {
                case .action(let action):
                    calls[number] = errors.catalog[action.operation].map { Call($0, graph: graph) }
                case .choice(let choice):
                    checks[number] = choice.branches.enumerated().map { index, branch in
                        // A member the result lacks is reported wherever the condition reads it, `exists` too.
                        var reported: Set<String> = []
                        for reference in branch.condition.templates.flatMap(\.references) where reference.root == .vars {
                            guard let result = reference.head.flatMap({ supportResults[$0] }), !result.declares(reference),
                                reported.insert(reference.description).inserted
                            else { continue }
                            unknown.append(UnknownSupportField(state: number, branch: index, reference: reference, result: result))
                        }
                        return graph.operations(branch.condition.valueReads.compactMap { reference in
                            guard reference.root == .vars, let result = reference.head.flatMap({ supportResults[$0] }),
                                result.declares(reference)
                            else { return nil }
                            return result.operation
                        })
                    }
                case .workflow:
                    before[number] = ErrorFlow.stepErrors(state, workflow: workflow, table: errors, childErrors: { _ in ErrorSet() }) ?? ErrorSet()
                case .assign, .wait, .ask, .delay, .succeed, .fail:
                    break
                }
            }
            self.calls = calls
            supportChecks = checks
            unknownSupportFields = unknown
            startErrors = before
        }
    }

    /// The operation an action state calls, as the walk reads it: its number (``SessionGraph/number(of:)``), its
    /// session effects and its order requirements.
    struct Call {
        let operation: String
        let number: Int
        let acquiresSession: Bool
        let releasesSession: Bool
        let releaseAttemptSuffices: Bool
        let requirements: [(requirement: OrderRequirement, operations: OperationSet)]

        init(_ operation: OperationDescriptor, graph: SessionGraph) {
            self.operation = operation.name
            number = graph.number(of: operation.name)
            acquiresSession = operation.acquiresSession
            releasesSession = operation.releasesSession
            releaseAttemptSuffices = operation.releaseAttemptSuffices
            requirements = graph.requirements(of: operation)
        }
    }

    /// One node per file of the tree, children first: a file named by many states (or many files, or verified
    /// before as a file of its own) is one node.
    func addNodes(_ root: Workflow, context: VerificationContext, supportOperations: Set<String>) {
        guard graph.nodeIDs[root.file] == nil else { return }
        // Files in post-order (children first), found with an explicit stack: nesting is bounded by the loader,
        // but the walk needs no call stack for it.
        var order: [Workflow] = []
        var seen: Set<String> = [root.file]
        var stack: [(Workflow, [Workflow])] = [(root, Self.children(of: root))]
        while let (workflow, children) = stack.popLast() {
            var pending = children
            if let child = pending.popLast() {
                stack.append((workflow, pending))
                if graph.nodeIDs[child.file] == nil, seen.insert(child.file).inserted {
                    stack.append((child, Self.children(of: child)))
                }
                continue
            }
            order.append(workflow)
        }
        for workflow in order {
            let node = makeNode(workflow, context: context, supportOperations: supportOperations, ids: graph.nodeIDs)
            graph.nodeIDs[workflow.file] = graph.nodes.count
            graph.nodes.append(node)
        }
    }

    static func children(of workflow: Workflow) -> [Workflow] {
        workflow.statesInOrder.compactMap { state in
            guard case .workflow(let subworkflow) = state.kind else { return nil }
            return workflow.subworkflows[subworkflow.path]
        }
    }

    /// The node of a file whose children already have nodes (numbered in `ids`).
    func makeNode(
        _ workflow: Workflow, context: VerificationContext, supportOperations: Set<String>, ids: [String: Int]
    ) -> Node {
        var tracked: [String: Int] = [:]
        var nonNull = true
        let flow = context.flow(workflow)
        var children: [Int: Int] = [:]
        var support: [String: SupportResult] = [:]
        // Variables some state binds to a value that is no support result: of any shape, as far as the checks go.
        var otherwise: Set<String> = []
        for (number, state) in flow.model.states.enumerated() {
            switch state.kind {
            case .choice(let choice):
                for branch in choice.branches {
                    for variable in branch.condition.existenceTests where tracked[variable] == nil {
                        tracked[variable] = tracked.count
                    }
                }
            case .succeed(let succeed) where flow.isNormallyReached(number):
                switch succeed.output {
                case nil, .reference?: nonNull = false
                case .literal(let value)?: nonNull = nonNull && !value.isNull
                case .interpolation?, .array?, .object?: break
                }
            case .workflow(let subworkflow):
                guard let child = workflow.subworkflows[subworkflow.path], let id = ids[child.file] else { break }
                children[number] = id
            case .succeed, .action, .assign, .wait, .ask, .delay, .fail:
                break
            }
        }
        // Variables holding the result of a support-check operation: bound by an action calling one, or by a
        // sub-workflow whose output carries one (such as a child that finds a border router and outputs it). The
        // last binding names the operation; bindings of other shapes leave the shape unknown.
        func bind(_ variable: String, _ result: SupportResult) {
            support[variable] = support[variable].map { result.merged(with: $0) } ?? result
        }
        for state in workflow.statesInOrder {
            switch state.kind {
            case .action(let action):
                guard let result = action.step.result else { break }
                if supportOperations.contains(action.operation) {
                    bind(result, SupportResult(operation: action.operation, shape: context.catalog[action.operation]?.result ?? .any))
                } else {
                    otherwise.insert(result)
                }
            case .workflow(let subworkflow):
                guard let result = subworkflow.step.result else { break }
                if let child = workflow.subworkflows[subworkflow.path], let id = ids[child.file],
                    let output = graph.nodes[id].supportOutput
                {
                    // A map binds its list of results, each element's output in it.
                    bind(result, subworkflow.map == nil ? output : SupportResult(operation: output.operation, shape: ReferenceChecker.mapResult))
                } else {
                    otherwise.insert(result)
                }
            case .assign(let assign):
                otherwise.formUnion(assign.assignments.map(\.name))
            case .wait(let wait):
                if let result = wait.result { otherwise.insert(result) }
            case .ask(let ask):
                if let result = ask.result { otherwise.insert(result) }
            case .choice, .delay, .succeed, .fail:
                break
            }
        }
        for variable in otherwise where support[variable] != nil { support[variable]?.shape = .any }
        // The output carries the first support result a succeed state's output reads; its shape is every succeed
        // state's output's, when they agree.
        var output: SupportResult?
        var outputShape: ValueShape?
        for state in workflow.statesInOrder {
            guard case .succeed(let succeed) = state.kind else { continue }
            let shape = succeed.output.map { SupportResult.shape(of: $0, support: support) } ?? .any
            outputShape = outputShape.map { $0 == shape ? $0 : .any } ?? shape
            guard output == nil, let value = succeed.output else { continue }
            for reference in value.references where reference.root == .vars {
                if let head = reference.head, let result = support[head] {
                    output = result
                    break
                }
            }
        }
        output?.shape = outputShape ?? .any
        let node = Node(
            workflow: workflow, flow: flow, errors: context.errors, graph: graph, tracked: tracked, supportResults: support,
            supportOutput: output, outputNonNull: nonNull)
        node.children = children
        for call in node.calls {
            for (requirement, operations) in call?.requirements ?? [] {
                switch requirement.scope {
                case .session: node.sessionRequirements.formUnion(operations)
                case .supportCheck: node.supportRequirements.formUnion(operations)
                }
            }
        }
        for child in Set(children.values) {
            node.sessionRequirements.formUnion(graph.nodes[child].sessionRequirements)
            node.supportRequirements.formUnion(graph.nodes[child].supportRequirements)
        }
        return node
    }
}

extension Condition {
    /// Variables tested with `exists` (as `${vars.NAME}`), at any depth.
    var existenceTests: Set<String> {
        switch self {
        case .exists(let template): template.wholeVariable.map { [$0] } ?? []
        case .and(let conditions), .or(let conditions): conditions.reduce(into: []) { $0.formUnion($1.existenceTests) }
        case .not(let condition): condition.existenceTests
        case .compare, .isEmpty, .contains: []
        }
    }
}

extension Template {
    /// The variable name when the template is exactly `${vars.NAME}`.
    var wholeVariable: String? {
        guard case .reference(let reference) = self, reference.root == .vars, reference.path.count == 1 else { return nil }
        return reference.head
    }
}

extension Condition {
    /// The condition's value from what is known of variables' existence (`facts`, numbered by `tracked`); nil when
    /// it depends on more.
    func evaluate(_ facts: VariableFacts, tracked: [String: Int]) -> Bool? {
        switch self {
        case .exists(let template):
            return template.wholeVariable.flatMap { tracked[$0] }.flatMap { facts[$0] }
        case .not(let inner):
            return inner.evaluate(facts, tracked: tracked).map { !$0 }
        case .and(let conditions):
            let values = conditions.map { $0.evaluate(facts, tracked: tracked) }
            if values.contains(false) { return false }
            return values.allSatisfy { $0 == true } ? true : nil
        case .or(let conditions):
            let values = conditions.map { $0.evaluate(facts, tracked: tracked) }
            if values.contains(true) { return true }
            return values.allSatisfy { $0 == false } ? false : nil
        case .compare, .isEmpty, .contains:
            return nil
        }
    }
}
