import MatterFlowJSON

/// The moves of ``SessionExplorer``: what can happen next in a configuration.
extension SessionExplorer {
    typealias Move = (Config, Step)

    /// Adds the moves out of configuration `position` to `moves`.
    mutating func successors(of position: Int, into moves: inout [Move]) {
        let config = configs[position]
        let frame = config.frames[config.frames.count - 1]
        let node = nodes[frame.node]
        let number = frame.state
        // The state's kind is read where it is: copying the whole state would retain all it holds, per move.
        let kind = node.topology.states[number].kind
        let shielded = config.frames.contains { $0.mode != .normal }
        if !node.topology.states[number].isTerminal, !shielded {
            for forked in cancelEffects(config, kind: kind) {
                cancelLevel(forked, at: position, moves: &moves)
            }
        }
        switch kind {
        case .succeed:
            endLevel(config, at: position, failure: nil, unrouted: false, moves: &moves)
        case .fail:
            endLevel(config, at: position, failure: node.flow.raised(number) ?? [.any], unrouted: false, moves: &moves)
        case .action(let action):
            actionMoves(config, at: position, action: action, state: number, moves: &moves)
        case .workflow(let subworkflow):
            workflowMoves(config, at: position, subworkflow: subworkflow, state: number, moves: &moves)
        case .choice(let choice):
            choiceMoves(config, choice: choice, state: number, moves: &moves)
        case .assign(let assign):
            var next = config
            for (variable, value) in assign.assignments where node.tracked.contains(variable) {
                next.setFact(variable, value.existence)
            }
            move(next, from: number, 0, .next, &moves)
        case .wait(let wait):
            var received = config
            if let result = wait.result, node.tracked.contains(result) { received.setFact(result, true) }
            for index in wait.branches.indices {
                move(received, from: number, index, .event(index), &moves)
            }
            if wait.otherwise != nil {
                move(received, from: number, wait.branches.count, .eventOtherwise, &moves)
            }
            move(config, from: number, wait.branches.count + (wait.otherwise == nil ? 0 : 1), .timeout, &moves)
        }
    }

    /// Moves the innermost level along the transition at `offset` among those of its state `state` (numbered as
    /// in ``WorkflowTopology/leaving``).
    func move(_ config: Config, from state: Int, _ offset: Int, _ kind: StepKind, _ moves: inout [Move]) {
        let level = config.frames.count - 1
        let node = config.frames[level].node
        let topology = nodes[node].topology
        // A workflow with findings is not explored, so every transition leads to a defined state.
        guard let target = topology.edges[topology.leaving[state].lowerBound + offset].to else { return }
        var next = config
        next.frames[level].state = target
        moves.append((next, Step(kind: kind, node: node, state: state, isRoot: level == 0)))
    }

    private mutating func actionMoves(
        _ config: Config, at position: Int, action: ActionState, state: Int, moves: inout [Move]
    ) {
        guard let operation = catalog[action.operation] else { return }
        for requirement in operation.requires where !config.satisfies(requirement) {
            let pointer = config.frames.count == 1
                ? nodes[0].topology.states[state].pointer + "/operation"
                : nodes[0].topology.states[config.frames[0].state].pointer + "/path"
            violations.append(
                Violation(config: position, operation: operation.name, requirement: requirement, rootPointer: pointer))
        }
        let node = nodes[config.frames[config.frames.count - 1].node]
        var succeeded = config
        succeeded.record(operation, succeeded: true)
        if let result = action.step.result, node.tracked.contains(result) { succeeded.setFact(result, true) }
        move(succeeded, from: state, 0, .next, &moves)
        var failed = config
        failed.record(operation, succeeded: false)
        if let routing = node.flow.routing(state) {
            routeMoves(failed, state: state, step: action.step, taken: routing.routed, moves: &moves)
            if !routing.escaping.isEmpty {
                endLevel(failed, at: position, failure: routing.escaping, unrouted: true, moves: &moves)
            }
        }
    }

    private mutating func workflowMoves(
        _ config: Config, at position: Int, subworkflow: SubworkflowState, state: Int, moves: inout [Move]
    ) {
        let level = config.frames.count - 1
        let node = nodes[config.frames[level].node]
        guard let child = node.children[state], let start = nodes[child].topology.start else { return }
        var started = config
        started.frames.append(Frame(node: child, state: start, mode: .normal, facts: [:]))
        moves.append((started, Step(kind: .start, node: config.frames[level].node, state: state, isRoot: level == 0)))
        // Guards and inputs may fail before the child starts.
        let before = node.startErrors[state] ?? []
        if !before.isEmpty {
            routeFailure(config, at: position, state: state, step: subworkflow.step, errors: before, retry: false, moves: &moves)
        }
    }

    /// The error routes of the innermost level's state `state` that take some error.
    private func routeMoves(
        _ config: Config, state: Int, step: StepBehavior, taken: [Set<PossibleError>], moves: inout [Move]
    ) {
        for index in step.onError.indices where taken[safe: index]?.isEmpty == false {
            move(config, from: state, 1 + index, .error(index), &moves)
        }
    }

    /// A step of the innermost level failed with `errors`: its routes, a retry (sub-workflows), or the level ends.
    private mutating func routeFailure(
        _ config: Config, at position: Int, state: Int, step: StepBehavior, errors: Set<PossibleError>,
        retry: Bool, moves: inout [Move]
    ) {
        let (taken, escaping) = errors.partition(by: step.onError.map(\.errors))
        routeMoves(config, state: state, step: step, taken: taken, moves: &moves)
        let level = config.frames.count - 1
        if retry, step.retry.contains(where: { retrier in
            retrier.maxRetries > 0 && errors.contains { error in retrier.errors.contains(where: error.mayMatch) }
        }), let child = nodes[config.frames[level].node].children[state], let start = nodes[child].topology.start {
            var again = config
            again.frames.append(Frame(node: child, state: start, mode: .normal, facts: [:]))
            moves.append((again, Step(kind: .retry, node: config.frames[level].node, state: state, isRoot: level == 0)))
        }
        if !escaping.isEmpty {
            endLevel(config, at: position, failure: escaping, unrouted: true, moves: &moves)
        }
    }

    /// The innermost level ends: with success (`failure` nil) or an error. Its parent continues, or the run ends.
    private mutating func endLevel(
        _ config: Config, at position: Int, failure: Set<PossibleError>?, unrouted: Bool, moves: inout [Move]
    ) {
        let ended = config.frames[config.frames.count - 1]
        guard config.frames.count > 1 else {
            guard config.held else { return }
            let ending: Ending = ended.mode == .cancelling ? .cancelled : failure == nil ? .succeeded : unrouted ? .unrouted : .failed
            ends.append(End(
                config: position, ending: ending, final: config, unrouted: unrouted, rootState: ended.state,
                held: config.held))
            return
        }
        var next = config
        next.frames.removeLast()
        if ended.mode == .cancelling {
            cancelLevel(next, at: position, moves: &moves)
            return
        }
        let parent = next.frames[next.frames.count - 1]
        let node = nodes[parent.node]
        guard case .workflow(let subworkflow) = node.topology.states[parent.state].kind else { return }
        guard let failure else {
            if let result = subworkflow.step.result, node.tracked.contains(result) {
                next.setFact(result, nodes[ended.node].outputNonNull ? true : nil)
            }
            move(next, from: parent.state, 0, .next, &moves)
            return
        }
        routeFailure(next, at: position, state: parent.state, step: subworkflow.step, errors: failure, retry: true, moves: &moves)
    }

    /// A cancel reaches the innermost level: it takes its cancel path, or ends at once and passes the cancel up.
    private mutating func cancelLevel(_ config: Config, at position: Int, moves: inout [Move]) {
        let level = config.frames.count - 1
        // A run cancelled at its top level without a cancel path just ends; only an end holding the session is
        // kept (see ``SessionExplorer/ends``).
        if level == 0, nodes[config.frames[0].node].workflow.onCancel == nil, !config.held { return }
        var next = config
        for outer in 0..<level { next.frames[outer].mode = .pending }
        let node = next.frames[level].node
        if nodes[node].workflow.onCancel != nil {
            next.frames[level].mode = .cancelling
            // A workflow with findings is not explored, so its cancel path is defined.
            guard let onCancel = nodes[node].topology.onCancel else { return }
            let from = next.frames[level].state
            next.frames[level].state = onCancel
            moves.append((next, Step(kind: .cancel, node: node, state: from, isRoot: level == 0)))
            return
        }
        next.frames[level].mode = .cancelling
        endLevel(next, at: position, failure: nil, unrouted: false, moves: &moves)
    }

    /// What a cancel leaves behind in the state it interrupts: an abandoned call may still have succeeded.
    private func cancelEffects(_ config: Config, kind: WorkflowState.Kind) -> [Config] {
        guard case .action(let action) = kind, let operation = catalog[action.operation] else { return [config] }
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

    private func choiceMoves(_ config: Config, choice: ChoiceState, state: Int, moves: inout [Move]) {
        let node = nodes[config.frames[config.frames.count - 1].node]
        var remaining = config
        for (index, branch) in choice.branches.enumerated() {
            let value = branch.condition.evaluate(remaining.frames[remaining.frames.count - 1].facts)
            if value == false { continue }
            var taken = remaining
            taken.assume(branch.condition, true)
            for operation in node.supportChecks[state]?[index] ?? [] { taken.checked.insert(operation) }
            move(taken, from: state, index, .choice(index), &moves)
            if value == true { return }
            remaining.assume(branch.condition, false)
        }
        move(remaining, from: state, choice.branches.count, .choiceDefault, &moves)
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
