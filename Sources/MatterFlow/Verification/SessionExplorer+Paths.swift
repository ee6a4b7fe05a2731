import MatterFlowJSON

/// How ``SessionExplorer`` describes what it found: qualified state names, paths state by state, and the labels
/// and pointers of moves, spelled out from the numbers the walk keeps only for the paths a finding shows.
extension SessionExplorer {
    /// The qualified name of a configuration's current state (`commission/rememberFailure`).
    func name(_ config: Config) -> String {
        config.frames.map { nodes[$0.node].topology.name($0.state) }.joined(separator: "/")
    }

    /// The configurations from the start to `config`, with the step taken out of each but the last.
    func path(to config: Int) -> [(config: Int, step: Step?)] {
        // Walked from the end back, then reversed: inserting at the front would make long paths quadratic.
        var chain: [(Int, Step?)] = [(config, nil)]
        var current = config
        while let (previous, step) = parents[current] {
            chain.append((previous, step))
            current = previous
        }
        return Array(chain.reversed())
    }

    /// The path as text, state by state: `a -[next]-> b -[onError[0] *]-> c`, then `final` if given.
    func pathText(to config: Int, final: String? = nil) -> String {
        var text = ""
        for (position, element) in path(to: config).enumerated() {
            if position > 0 { text += " " }
            text += name(configs[element.config])
            if let step = element.step { text += " -[\(label(step))]->" }
        }
        if let final { text += " -[\(final)]-> (end)" }
        return text
    }

    /// The last root-workflow edge on the path to `config`.
    func lastRootPointer(to config: Int) -> String? {
        path(to: config).last { $0.step?.isRoot == true }?.step.flatMap(rootPointer)
    }

    /// The state a move leaves, in its node's workflow.
    private func state(of step: Step) -> WorkflowState {
        nodes[step.node].topology.states[step.state]
    }

    /// How a path shows a move: `next`, `onError[0] *`, `event expired`, `cancel`.
    func label(_ step: Step) -> String {
        switch step.kind {
        case .next: return "next"
        case .choice(let index): return "choice[\(index)]"
        case .choiceDefault: return "default"
        case .error(let index):
            let routes = state(of: step).kind.step?.onError ?? []
            return WorkflowEdge.Kind.error(index, routes[safe: index]?.errors ?? []).description
        case .event(let index):
            guard case .wait(let wait) = state(of: step).kind else { return "event" }
            return "event \(wait.branches[index].value)"
        case .eventOtherwise: return "event otherwise"
        case .timeout: return "timeout"
        case .start: return "start"
        case .retry: return "retry"
        case .cancel: return "cancel"
        }
    }

    /// The pointer of the member that declares a move of the root workflow; nil for a sub-workflow's.
    func rootPointer(_ step: Step) -> String? {
        guard step.isRoot else { return nil }
        if case .cancel = step.kind { return "/onCancel" }
        let state = state(of: step)
        switch step.kind {
        case .next: return state.pointer + "/next"
        case .choice(let index): return state.pointer + "/choices/\(index)/next"
        case .choiceDefault: return state.pointer + "/default"
        case .error(let index): return state.pointer + "/onError/\(index)/next"
        case .event(let index):
            guard case .wait(let wait) = state.kind else { return state.pointer }
            return state.pointer + "/on/" + wait.branches[index].value
        case .eventOtherwise: return state.pointer + "/otherwise"
        case .timeout: return state.pointer + "/onTimeout"
        case .start: return state.pointer + "/path"
        case .retry: return state.pointer + "/retry"
        case .cancel: return "/onCancel"
        }
    }

    /// The qualified name of the state a run ended in.
    func stateName(_ end: End) -> String {
        name(end.final)
    }

    /// How the path to an end shows its last move: an error no route takes; nil for the others.
    func label(_ end: End) -> String? {
        end.unrouted ? "unrouted error" : nil
    }

    /// The pointer to blame for an end: the routes (or the state) an unrouted error leaves; nil for the others.
    func rootPointer(_ end: End) -> String? {
        guard end.unrouted else { return nil }
        let state = nodes[0].topology.states[end.rootState]
        return state.pointer + (state.step?.onError.isEmpty == false ? "/onError" : "")
    }
}
