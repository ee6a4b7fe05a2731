import MatterFlowJSON

/// How ``SessionExplorer`` describes what it found: qualified state names, paths state by state across files,
/// and the labels and pointers of moves, spelled out from the numbers the walk keeps only for the paths a
/// finding shows.
extension SessionExplorer {
    /// One state on a path as a finding shows it, with the move that leaves it.
    struct PathElement {
        /// The qualified name (`commission/rememberFailure`).
        var name: String
        /// Whether the run holds the commissioning session there.
        var held: Bool
        var step: Step?
    }

    /// Up to how many states a path spells out the sub-workflows it passes through; past that, a sub-workflow
    /// run is shown as `state/…` (a tree whose levels run the next many times has paths of exponential length).
    static let spelledOutStates = 2_000

    /// The qualified name of a configuration's state: the states that run its level, from the root, then its own.
    func name(_ config: Int) -> String {
        prefix(of: graph.configs[config].instance) + localName(graph.configs[config])
    }

    private func localName(_ config: Config) -> String {
        node(of: config).model.name(config.state)
    }

    /// The qualification of an instance's states (`commission/`), along the call chain that first ran it.
    func prefix(of instance: Int) -> String {
        var names: [String] = []
        var current = instance
        while let caller = witnesses[current] {
            names.append(localName(graph.configs[caller]))
            current = graph.configs[caller].instance
        }
        return names.reversed().map { $0 + "/" }.joined()
    }

    /// The root workflow's configuration whose sub-workflow state leads to a configuration (itself at the top).
    func rootConfig(of config: Int) -> Int {
        var current = config
        while let caller = witnesses[graph.configs[current].instance] { current = caller }
        return current
    }

    /// The path from the start of the run to a point, state by state, into every sub-workflow it passes through.
    func path(to point: Point) -> [PathElement] {
        var elements: [PathElement] = []
        let instance = graph.configs[point.config].instance
        if let caller = witnesses[instance] {
            elements = path(to: Point(config: caller, via: nil))
            if !graph.configs[caller].retrying { elements[elements.count - 1].step = startStep(caller) }
        }
        appendLocalPath(to: point, prefix: prefix(of: instance), isRootLevel: instance == root, into: &elements)
        return elements
    }

    /// The move that starts the child of a sub-workflow state's configuration.
    private func startStep(_ config: Int) -> Step {
        let caller = graph.configs[config]
        return Step(
            kind: .start, node: graph.instances[caller.instance].entry.node, state: caller.state,
            isRoot: caller.instance == root)
    }

    /// Appends the path within one instance, from its first configuration to `point`, qualified by `prefix`;
    /// `isRootLevel` when the instance is the root's, whose moves have pointers.
    private func appendLocalPath(
        to point: Point, prefix: String, isRootLevel: Bool, into elements: inout [PathElement]
    ) {
        // Walked from the end back, then reversed: inserting at the front would make long paths quadratic.
        var chain: [(config: Int, parent: (Point, Step)?)] = []
        var current: Int? = point.config
        while let config = current {
            chain.append((config, parents[config]))
            current = parents[config]?.0.config
        }
        for (config, parent) in chain.reversed() {
            if let (from, step) = parent {
                if let via = from.via { appendSubworkflow(from.config, via, prefix: prefix, into: &elements) }
                var step = step
                step.isRoot = isRootLevel
                if !elements.isEmpty { elements[elements.count - 1].step = step }
            }
            if !graph.configs[config].retrying {
                elements.append(PathElement(name: prefix + localName(graph.configs[config]), held: graph.configs[config].held))
            }
        }
        if let via = point.via { appendSubworkflow(point.config, via, prefix: prefix, into: &elements) }
    }

    /// Appends a sub-workflow's run, from the configuration that starts it to the way it ended.
    private func appendSubworkflow(
        _ caller: Int, _ via: (instance: Int, exit: Int), prefix: String, into elements: inout [PathElement]
    ) {
        if !graph.configs[caller].retrying, !elements.isEmpty { elements[elements.count - 1].step = startStep(caller) }
        let inner = prefix + localName(graph.configs[caller]) + "/"
        let exit = graph.instances[via.instance].exits[via.exit]
        guard elements.count < Self.spelledOutStates else {
            elements.append(PathElement(name: inner + "…", held: exit.session.held))
            return
        }
        appendLocalPath(to: exit.point, prefix: inner, isRootLevel: false, into: &elements)
    }

    /// The path as text, state by state: `a -[next]-> b -[onError[0] *]-> c`, then `final` if given.
    func pathText(to point: Point, final: String? = nil) -> String {
        var text = ""
        for element in path(to: point) {
            text += element.name
            if let step = element.step { text += " -[\(label(step))]-> " }
        }
        if let final { text += " -[\(final)]-> (end)" }
        return text
    }

    /// The last root-workflow edge on the path to a point.
    func lastRootPointer(to point: Point) -> String? {
        path(to: point).last { $0.step?.isRoot == true }?.step.flatMap(rootPointer)
    }

    /// Whether the innermost state at a point (inside the sub-workflows it ended through) is a terminal one.
    func innermostIsTerminal(_ point: Point) -> Bool {
        var current = point
        while let via = current.via { current = graph.instances[via.instance].exits[via.exit].point }
        let config = graph.configs[current.config]
        return node(of: config).model.states[config.state].isTerminal
    }

    /// The state a move leaves, in its node's workflow.
    private func state(of step: Step) -> WorkflowState {
        graph.nodes[step.node].model.states[step.state]
    }

    /// How a path shows a move: `next`, `onError[0] *`, `event expired`, `cancel`.
    func label(_ step: Step) -> String {
        switch step.kind {
        case .edge(let number): return graph.nodes[step.node].model.edges[number].kind.description
        case .start: return "start"
        case .retry: return "retry"
        case .cancel: return "cancel"
        case .again: return "again"
        }
    }

    /// The pointer of the member that declares a move of the root workflow; nil for a sub-workflow's.
    func rootPointer(_ step: Step) -> String? {
        guard step.isRoot else { return nil }
        let model = graph.nodes[step.node].model
        switch step.kind {
        case .edge(let number): return model.pointer(of: model.edges[number])
        case .start: return state(of: step).pointer + "/path"
        case .retry: return state(of: step).pointer + "/retry"
        case .cancel: return "/onCancel"
        case .again: return state(of: step).pointer + "/path"
        }
    }

    /// The pointer a protocol-order finding is reported at: the operation of a root action, or the root
    /// sub-workflow state whose run calls it.
    func pointer(of violation: Violation) -> String {
        let top = graph.configs[rootConfig(of: violation.config)]
        let state = node(of: top).model.states[top.state]
        return state.pointer + (violation.config == rootConfig(of: violation.config) ? "/operation" : "/path")
    }

    /// The root workflow's state a run ended in.
    func stateName(_ end: End) -> String {
        node(of: graph.configs[end.point.config]).model.name(end.rootState)
    }

    /// How the path to an end shows its last move: an error no route takes; nil for the others.
    func label(_ end: End) -> String? {
        end.unrouted ? "unrouted error" : nil
    }

    /// The pointer to blame for an end: the routes (or the state) an unrouted error leaves; nil for the others.
    func rootPointer(_ end: End) -> String? {
        guard end.unrouted else { return nil }
        let state = node(of: graph.configs[end.point.config]).model.states[end.rootState]
        return state.pointer + (state.step?.onError.isEmpty == false ? "/onError" : "")
    }
}
