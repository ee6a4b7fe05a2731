import MatterFlowJSON

/// The moves of ``SessionExplorer``: what can happen next in a configuration, and what a sub-workflow's way of
/// ending does in each state that runs it.
extension SessionExplorer {
    /// A move to a configuration of the same level, from a point of it (a configuration, or the end of a
    /// sub-workflow run from one); or, with no step, the first configuration of a newly entered instance.
    struct Move {
        var config: Config
        var from: Point
        var step: Step?
    }

    /// Adds the moves out of configuration `position` to `moves`.
    mutating func successors(of position: Int, into moves: inout [Move]) {
        let config = graph.configs[position]
        let node = graph.nodes[graph.instances[config.instance].entry.node]
        let number = config.state
        let at = Point(config: position, via: nil)
        // The state's kind is read where it is: copying the whole state would retain all it holds, per move.
        let kind = node.model.states[number].kind
        if config.retrying {
            // A retry runs the child again at once: no cancel or guard comes between.
            call(config, at: position, moves: &moves)
            return
        }
        if !node.model.states[number].isTerminal, !isShielded(config) {
            for forked in cancelEffects(config, kind: kind) {
                cancelLevel(forked, at: at, moves: &moves)
            }
        }
        switch kind {
        case .succeed:
            endLevel(config, at: at, failure: nil, unrouted: false, moves: &moves)
        case .fail:
            endLevel(config, at: at, failure: node.flow.raised(number) ?? PossibleErrorTable.anyError, unrouted: false, moves: &moves)
        case .action(let action):
            actionMoves(config, at: position, action: action, moves: &moves)
        case .workflow(let subworkflow):
            call(config, at: position, moves: &moves)
            // A map given an empty list succeeds without running its body.
            if subworkflow.map != nil { move(config, at: at, 0, &moves) }
            // Guards and inputs may fail before the child starts (a map's own errors, before any element).
            let before = node.startErrors[number] ?? ErrorSet()
            if !before.isEmpty {
                routeFailure(config, at: at, step: subworkflow.step, errors: before, retry: false, moves: &moves)
            }
        case .choice(let choice):
            choiceMoves(config, at: at, choice: choice, moves: &moves)
        case .assign(let assign):
            var next = config
            for (variable, value) in assign.assignments {
                if let tracked = node.tracked[variable] { next.facts[tracked] = value.existence }
            }
            move(next, at: at, 0, &moves)
        case .wait(let wait):
            var received = config
            if let result = wait.result.flatMap({ node.tracked[$0] }) { received.facts[result] = true }
            for index in wait.branches.indices {
                move(received, at: at, index, &moves)
            }
            if wait.otherwise != nil {
                move(received, at: at, wait.branches.count, &moves)
            }
            move(config, at: at, wait.branches.count + (wait.otherwise == nil ? 0 : 1), &moves)
        case .ask(let ask):
            var answered = config
            if let result = ask.result.flatMap({ node.tracked[$0] }) { answered.facts[result] = true }
            move(answered, at: at, 0, &moves)
            move(config, at: at, 1, &moves)
        case .delay(let delay):
            move(config, at: at, 0, &moves)
            for index in delay.onError.indices { move(config, at: at, index + 1, &moves) }
        }
    }

    /// No cancel can arrive: one is under way in this level or a caller.
    func isShielded(_ config: Config) -> Bool {
        config.mode != .normal || graph.instances[config.instance].entry.shielded
    }

    /// The node a configuration's level runs.
    func node(of config: Config) -> Node {
        graph.nodes[graph.instances[config.instance].entry.node]
    }

    /// Moves the level along the transition at `offset` among those of its state (numbered as in
    /// ``CompiledWorkflow/leaving``).
    func move(_ config: Config, at from: Point, _ offset: Int, _ moves: inout [Move]) {
        let nodeID = graph.instances[config.instance].entry.node
        let model = graph.nodes[nodeID].model
        // A workflow with findings is not explored, so every transition leads to a defined state.
        let edge = model.leaving[config.state].lowerBound + offset
        guard let target = model.edges[edge].to else { return }
        var next = config
        next.state = target
        next.retrying = false
        moves.append(Move(
            config: next, from: from,
            step: Step(kind: .edge(edge), node: nodeID, state: config.state)))
    }

    private mutating func actionMoves(_ config: Config, at position: Int, action: ActionState, moves: inout [Move]) {
        let node = node(of: config)
        guard let call = node.calls[config.state] else { return }
        for (requirement, operations) in call.requirements where !config.satisfies(requirement.scope, operations) {
            graph.instances[config.instance].violations.append(
                Violation(config: position, operation: call.operation, requirement: requirement))
        }
        let at = Point(config: position, via: nil)
        var succeeded = config
        succeeded.record(call, succeeded: true)
        if let result = action.step.result.flatMap({ node.tracked[$0] }) { succeeded.facts[result] = true }
        move(succeeded, at: at, 0, &moves)
        var failed = config
        failed.record(call, succeeded: false)
        if let routing = node.flow.routing(config.state) {
            routeMoves(failed, at: at, step: action.step, taken: routing.routed, moves: &moves)
            if !routing.escaping.isEmpty {
                endLevel(failed, at: at, failure: routing.escaping, unrouted: true, moves: &moves)
            }
        }
    }

    /// The sub-workflow state of configuration `position` runs its child: the child's instance for this entry
    /// is explored (once), and each of its ways of ending continues this level.
    private mutating func call(_ config: Config, at position: Int, moves: inout [Move]) {
        guard let child = node(of: config).children[config.state] else { return }
        let entry = Entry(node: child, session: entrySession(config.session, into: graph.nodes[child]), shielded: isShielded(config))
        let id = instance(entry, moves: &moves)
        graph.instances[id].callers.append(position)
        graph.instances[config.instance].calls.append((position, id))
        reach(id, from: position)
        for exit in graph.instances[id].exits.indices {
            resume(position, after: id, exit: exit, moves: &moves)
        }
    }

    /// The session facts a level is entered with, keeping of the caller's only what the level can tell apart:
    /// the operations some call in it (or in its sub-workflows) requires. Callers that differ in nothing else (a
    /// release path run after each of many steps) share one instance; ``exitSession(_:from:)`` adds back what
    /// was left out.
    func entrySession(_ session: Session, into child: Node) -> Session {
        var entered = session
        entered.renewed = false
        guard graph.narrowsEntries else { return entered }
        if let operations = session.sessionOps, !operations.isSubset(of: child.sessionRequirements) {
            entered.sessionOps = operations.intersection(child.sessionRequirements)
        }
        if !session.checked.isSubset(of: child.supportRequirements) {
            entered.checked = session.checked.intersection(child.supportRequirements)
        }
        return entered
    }

    /// The caller's session facts after a sub-workflow ended with `ended`: what the child did, added to what the
    /// caller had (``entrySession(_:into:)`` left part of it out). A session opened or released in the child
    /// replaces the caller's operations; support checks only accumulate.
    func exitSession(_ ended: Session, from caller: Session) -> Session {
        var session = ended
        if !ended.renewed, let operations = caller.sessionOps {
            session.sessionOps = operations.union(ended.sessionOps ?? OperationSet())
        }
        session.checked = caller.checked.union(ended.checked)
        session.renewed = caller.renewed || ended.renewed
        return session
    }

    /// What the way `exit` of instance `child` ending does in the caller's configuration `caller`.
    private mutating func resume(_ caller: Int, after child: Int, exit: Int, moves: inout [Move]) {
        let ended = graph.instances[child].exits[exit]
        var next = graph.configs[caller]
        next.session = exitSession(ended.session, from: next.session)
        next.retrying = false
        let at = Point(config: caller, via: (child, exit))
        let node = node(of: next)
        guard case .workflow(let subworkflow) = node.model.states[next.state].kind else { return }
        if let map = subworkflow.map {
            return elementEnded(caller, map: map, step: subworkflow.step, next: next, at: at, ended: ended, moves: &moves)
        }
        if subworkflow.repeating != nil {
            return iterationEnded(caller, step: subworkflow.step, next: next, at: at, ended: ended, moves: &moves)
        }
        switch ended.kind {
        case .succeeded:
            if let result = subworkflow.step.result.flatMap({ node.tracked[$0] }) {
                next.facts[result] = graph.nodes[graph.instances[child].entry.node].outputNonNull ? true : nil
            }
            move(next, at: at, 0, &moves)
        case .failed(let errors):
            routeFailure(next, at: at, step: subworkflow.step, errors: errors, retry: true, moves: &moves)
        case .cancelled:
            cancelLevel(next, at: at, moves: &moves)
        }
    }

    /// What a map's body ending does: the map ends (succeeded, or failed with `mapElementsFailed` once failures
    /// are not tolerated), or runs its body again for the next element from the session the body left. A body
    /// that ends holding the session differently from how it began is a finding, and that path is not followed.
    private mutating func elementEnded(
        _ caller: Int, map: MapIteration, step: StepBehavior, next: Config, at: Point, ended: Exit, moves: inout [Move]
    ) {
        let began = graph.configs[caller].session
        let failed: Bool
        switch ended.kind {
        case .cancelled:
            return cancelLevel(next, at: at, moves: &moves)
        case .succeeded: failed = false
        case .failed: failed = true
        }
        guard ended.session.held == began.held else { return unbalanced(caller, next: next, at: at, ended: ended) }
        if failed, map.tolerateFailures < map.maxItems {
            routeFailure(next, at: at, step: step, errors: errors.set(PossibleError(.mapElementsFailed)), retry: false, moves: &moves)
        }
        guard !failed || map.tolerateFailures > 0 else { return }
        // The element was the last one, or another follows from the session this one left.
        move(next, at: at, 0, &moves)
        if next.session != began {
            let nodeID = graph.instances[next.instance].entry.node
            moves.append(Move(config: next, from: at, step: Step(kind: .again, node: nodeID, state: next.state)))
        }
    }

    /// What a repeat's body ending does: the repeat ends (its condition holds, its body failed, or it used up its
    /// iterations) or runs the body again from the session the body left. A body that ends holding the session
    /// differently from how it began is a finding, as for a map.
    private mutating func iterationEnded(
        _ caller: Int, step: StepBehavior, next: Config, at: Point, ended: Exit, moves: inout [Move]
    ) {
        let began = graph.configs[caller].session
        switch ended.kind {
        case .cancelled:
            return cancelLevel(next, at: at, moves: &moves)
        case .failed(let errors):
            guard ended.session.held == began.held else { return unbalanced(caller, next: next, at: at, ended: ended) }
            return routeFailure(next, at: at, step: step, errors: errors, retry: false, moves: &moves)
        case .succeeded:
            guard ended.session.held == began.held else { return unbalanced(caller, next: next, at: at, ended: ended) }
        }
        move(next, at: at, 0, &moves)
        routeFailure(next, at: at, step: step, errors: errors.set(PossibleError(.repeatExhausted)), retry: false, moves: &moves)
        if next.session != began {
            let nodeID = graph.instances[next.instance].entry.node
            moves.append(Move(config: next, from: at, step: Step(kind: .again, node: nodeID, state: next.state)))
        }
    }

    private func unbalanced(_ caller: Int, next: Config, at: Point, ended: Exit) {
        graph.instances[next.instance].unbalancedMaps.append(UnbalancedMap(config: caller, point: at, opened: ended.session.held))
    }

    /// The error routes of the level's state that take some error.
    private func routeMoves(
        _ config: Config, at from: Point, step: StepBehavior, taken: [ErrorSet], moves: inout [Move]
    ) {
        for index in step.onError.indices where taken[safe: index]?.isEmpty == false {
            move(config, at: from, 1 + index, &moves)
        }
    }

    /// A step of the level failed with `errors`: its routes, a retry (sub-workflows), or the level ends.
    private mutating func routeFailure(
        _ config: Config, at from: Point, step: StepBehavior, errors failed: ErrorSet, retry: Bool,
        moves: inout [Move]
    ) {
        let (taken, escaping) = errors.partition(failed, by: step.onError.map(\.errors))
        routeMoves(config, at: from, step: step, taken: taken, moves: &moves)
        if retry, step.retry.contains(where: { retrier in
            retrier.maxRetries > 0 && failed.intersects(errors.mayMatch(any: retrier.errors))
        }), node(of: config).children[config.state] != nil {
            var again = config
            again.retrying = true
            let nodeID = graph.instances[config.instance].entry.node
            moves.append(Move(
                config: again, from: from,
                step: Step(kind: .retry, node: nodeID, state: config.state)))
        }
        if !escaping.isEmpty {
            endLevel(config, at: from, failure: escaping, unrouted: true, moves: &moves)
        }
    }

    /// The level ends: with success (`failure` nil) or an error. Entered as a run's top level, the run ends;
    /// and the instance has found a way of ending, which continues every state that runs it.
    private mutating func endLevel(
        _ config: Config, at position: Point, failure: ErrorSet?, unrouted: Bool, moves: inout [Move]
    ) {
        if graph.instances[config.instance].isRootEntry, config.held {
            let ending: Ending = config.mode == .cancelling ? .cancelled : failure == nil ? .succeeded : unrouted ? .unrouted : .failed
            graph.instances[config.instance].ends.append(
                End(point: position, ending: ending, unrouted: unrouted, rootState: config.state, held: config.held))
        }
        let kind: ExitKind = config.mode == .cancelling ? .cancelled : failure.map { .failed($0) } ?? .succeeded
        let key = ExitKey(kind: kind, session: config.session)
        guard graph.instances[config.instance].exitKeys.insert(key).inserted else { return }
        let exit = graph.instances[config.instance].exits.count
        graph.instances[config.instance].exits.append(Exit(kind: kind, session: config.session, point: position))
        for caller in graph.instances[config.instance].callers {
            resume(caller, after: config.instance, exit: exit, moves: &moves)
        }
    }

    /// A cancel reaches the level: it takes its cancel path, or ends at once and passes the cancel up.
    private mutating func cancelLevel(_ config: Config, at position: Point, moves: inout [Move]) {
        let nodeID = graph.instances[config.instance].entry.node
        // Without a cancel path the level just ends: a run's top level then ends (only an end holding the session
        // is kept, see ``SessionExplorer/ends``), a sub-workflow passes the cancel up.
        var next = config
        next.mode = .cancelling
        next.retrying = false
        if graph.nodes[nodeID].workflow.onCancel != nil {
            // A workflow with findings is not explored, so its cancel path is defined.
            guard let onCancel = graph.nodes[nodeID].model.onCancel else { return }
            next.state = onCancel
            moves.append(Move(
                config: next, from: position,
                step: Step(kind: .cancel, node: nodeID, state: config.state)))
            return
        }
        endLevel(next, at: position, failure: nil, unrouted: false, moves: &moves)
    }

    /// What a cancel leaves behind in the state it interrupts: an abandoned call may still have succeeded.
    private func cancelEffects(_ config: Config, kind: WorkflowState.Kind) -> [Config] {
        guard case .action(let action) = kind else { return [config] }
        let node = node(of: config)
        guard let call = node.calls[config.state] else { return [config] }
        var late = config
        late.record(call, succeeded: true)
        let result = action.step.result.flatMap { node.tracked[$0] }
        if let result { late.facts[result] = true }
        if call.acquiresSession || call.releasesSession && !call.releaseAttemptSuffices {
            return [config, late]
        }
        if call.releasesSession { return [late] }
        var unknown = config
        if let result, config.facts[result] != true {
            unknown.facts[result] = nil
        }
        return [unknown]
    }

    private func choiceMoves(_ config: Config, at from: Point, choice: ChoiceState, moves: inout [Move]) {
        let node = node(of: config)
        var remaining = config
        for (index, branch) in choice.branches.enumerated() {
            let value = branch.condition.evaluate(remaining.facts, tracked: node.tracked)
            if value == false { continue }
            var taken = remaining
            taken.assume(branch.condition, true, tracked: node.tracked)
            if let checks = node.supportChecks[config.state]?[index] { taken.session.checked.formUnion(checks) }
            move(taken, at: from, index, &moves)
            if value == true { return }
            remaining.assume(branch.condition, false, tracked: node.tracked)
        }
        move(remaining, at: from, choice.branches.count, &moves)
    }
}

extension SessionExplorer.Config {
    /// Whether one of a requirement's operations (`operations`) happened where its scope says.
    func satisfies(_ scope: OrderRequirement.Scope, _ operations: OperationSet) -> Bool {
        switch scope {
        case .session:
            guard let sessionOps = session.sessionOps else { return true }
            return sessionOps.intersects(operations)
        case .supportCheck:
            return session.checked.intersects(operations)
        }
    }

    /// Records the session effect of a call that succeeded or failed.
    mutating func record(_ call: SessionExplorer.Call, succeeded: Bool) {
        if succeeded, call.acquiresSession {
            session.held = true
            var opened = OperationSet()
            opened.insert(call.number)
            session.sessionOps = opened
            session.renewed = true
        } else if call.releasesSession, succeeded || call.releaseAttemptSuffices {
            session.held = false
            session.sessionOps = OperationSet()
            session.renewed = true
        } else if succeeded {
            session.sessionOps?.insert(call.number)
        }
    }

    /// Refines the facts with a condition known to hold (or not); `tracked` numbers the node's variables.
    mutating func assume(_ condition: Condition, _ holds: Bool, tracked: [String: Int]) {
        switch condition {
        case .exists(let template):
            if let variable = template.wholeVariable.flatMap({ tracked[$0] }) { facts[variable] = holds }
        case .not(let inner):
            assume(inner, !holds, tracked: tracked)
        case .and(let conditions) where holds:
            for inner in conditions { assume(inner, true, tracked: tracked) }
        case .or(let conditions) where !holds:
            for inner in conditions { assume(inner, false, tracked: tracked) }
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
