import MatterFlowJSON

/// A workflow's states numbered in document order, with every transition as numbers: built once per workflow
/// and load, and shared by the checks that walk the state machine (transitions, reachability, references, error
/// flow, time budget, session exploration).
///
/// Each of those passes used to build the edge list again, with a JSON pointer string per edge, and look states
/// up by name at every step; on a workflow of thousands of states that hashing and allocating was most of their
/// cost. Pointers are spelled out only for findings (``pointer(of:)``).
struct WorkflowTopology {
    /// What takes an edge, with the position of its entry where the state has several (``WorkflowEdge/Kind``
    /// without the names and values it carries).
    enum Kind: Equatable {
        case next
        case choice(Int)
        case choiceDefault
        case error(Int)
        case cancel
        case event(Int)
        case eventOtherwise
        case timeout
    }

    /// One transition, in the order of ``Workflow/edges``.
    struct Edge {
        /// The number of the state it leaves.
        var from: Int
        /// The number of the state it leads to; nil when no state has that name.
        var to: Int?
        var kind: Kind
        /// The name of the state it leads to, as written.
        var target: String
    }

    /// Defined states by number: `stateOrder` without repeats or undefined names.
    let states: [WorkflowState]
    /// The number of each defined state.
    let numbers: [String: Int]
    /// Every edge of the workflow (``Workflow/edges``, cancel edges included), in order.
    let edges: [Edge]
    /// The edges leaving state `s` are `edges[leaving[s]]`: its own, then its cancel edge.
    let leaving: [Range<Int>]
    /// The start state's number, when it is defined.
    let start: Int?
    /// The cancel path's first state, when the workflow has one and it is defined.
    let onCancel: Int?
    /// Whether some state could not be decoded (its transitions are unknown).
    let hasPlaceholder: Bool

    init(_ workflow: Workflow) {
        var states: [WorkflowState] = []
        var numbers = [String: Int](minimumCapacity: workflow.stateOrder.count)
        // The states each entry of `stateOrder` names, by number (a name listed twice is visited twice).
        let visits: [Int]
        if workflow.statesAreDistinct {
            states = workflow.statesInOrder
            for number in states.indices { numbers[states[number].name] = number }
            visits = Array(states.indices)
        } else {
            states.reserveCapacity(workflow.stateOrder.count)
            for name in workflow.stateOrder where numbers[name] == nil {
                guard let state = workflow.states[name] else { continue }
                numbers[name] = states.count
                states.append(state)
            }
            visits = workflow.stateOrder.compactMap { numbers[$0] }
        }
        var edges: [Edge] = []
        edges.reserveCapacity(states.count)
        var leaving = [Range<Int>](repeating: 0..<0, count: states.count)
        var seen = [Bool](repeating: false, count: states.count)
        let onCancelName = workflow.onCancel
        let onCancel = onCancelName.flatMap { numbers[$0] }
        // `stateOrder` may repeat a name (a workflow built in code): its edges repeat too, as in `Workflow.edges`.
        for from in visits {
            let first = edges.count
            func add(_ target: String, _ kind: Kind) {
                edges.append(Edge(from: from, to: numbers[target], kind: kind, target: target))
            }
            // Read in place: copying each state out would retain and release everything it holds.
            switch states[from].kind {
            case .action(let action): Self.addStep(action.step, add)
            case .workflow(let subworkflow): Self.addStep(subworkflow.step, add)
            case .choice(let choice):
                for (index, branch) in choice.branches.enumerated() { add(branch.next, .choice(index)) }
                add(choice.defaultNext, .choiceDefault)
            case .assign(let assign): add(assign.next, .next)
            case .wait(let wait):
                for (index, branch) in wait.branches.enumerated() { add(branch.next, .event(index)) }
                if let otherwise = wait.otherwise { add(otherwise, .eventOtherwise) }
                add(wait.onTimeout, .timeout)
            case .succeed, .fail: break
            }
            if let onCancelName, !states[from].isTerminal {
                edges.append(Edge(from: from, to: onCancel, kind: .cancel, target: onCancelName))
            }
            if !seen[from] {
                seen[from] = true
                leaving[from] = first..<edges.count
            }
        }
        self.states = states
        self.numbers = numbers
        self.edges = edges
        self.leaving = leaving
        start = numbers[workflow.start]
        self.onCancel = onCancel
        hasPlaceholder = states.indices.contains { states[$0].isPlaceholder }
    }

    private static func addStep(_ step: StepBehavior, _ add: (String, Kind) -> Void) {
        add(step.next, .next)
        for (index, route) in step.onError.enumerated() { add(route.next, .error(index)) }
    }

    /// The number of states.
    var count: Int { states.count }

    /// The name of state `number`.
    func name(_ number: Int) -> String { states[number].name }

    /// The JSON pointer of the member that declares an edge (as in ``WorkflowEdge/pointer``).
    func pointer(of edge: Edge) -> String {
        let base = states[edge.from].pointer
        switch edge.kind {
        case .next: return base + "/next"
        case .choice(let index): return base + "/choices/\(index)/next"
        case .choiceDefault: return base + "/default"
        case .error(let index): return base + "/onError/\(index)/next"
        case .cancel: return "/onCancel"
        case .event(let index):
            guard case .wait(let wait) = states[edge.from].kind else { return base }
            return base + "/on/" + JSONPointer.appending(wait.branches[index].value, to: "").dropFirst()
        case .eventOtherwise: return base + "/otherwise"
        case .timeout: return base + "/onTimeout"
        }
    }

    /// Whether the edge keeps the `${error}` bound where it starts (error routes and cancel edges bind their own).
    static func carriesError(_ kind: Kind) -> Bool {
        switch kind {
        case .error, .cancel: false
        case .next, .choice, .choiceDefault, .event, .eventOtherwise, .timeout: true
        }
    }

    /// The states reached from the start along defined transitions, with or without the cancel edges.
    func reachable(includingCancel: Bool) -> [Bool] {
        guard let start else { return [Bool](repeating: false, count: count) }
        var seen = [Bool](repeating: false, count: count)
        seen[start] = true
        var queue = [start]
        while let next = queue.popLast() {
            for edge in edges[leaving[next]] where includingCancel || edge.kind != .cancel {
                guard let to = edge.to, !seen[to] else { continue }
                seen[to] = true
                queue.append(to)
            }
        }
        return seen
    }
}

/// Numbered states' neighbours in one flat array (each state's are `targets[offsets[s] ..< offsets[s + 1]]`),
/// instead of an array per state.
struct Adjacency {
    private var offsets: [Int]
    private var targets: [Int]

    /// The neighbours of `count` states, from pairs (state, neighbour), in the order given.
    init(count: Int, _ pairs: [(Int, Int)]) {
        var offsets = [Int](repeating: 0, count: count + 1)
        for (from, _) in pairs { offsets[from + 1] += 1 }
        for index in 0..<count { offsets[index + 1] += offsets[index] }
        var fill = offsets
        var targets = [Int](repeating: 0, count: pairs.count)
        for (from, to) in pairs {
            targets[fill[from]] = to
            fill[from] += 1
        }
        self.offsets = offsets
        self.targets = targets
    }

    /// The neighbours of state `state`.
    subscript(state: Int) -> ArraySlice<Int> { targets[offsets[state]..<offsets[state + 1]] }

    /// The states reachable from `roots` (themselves included), as one flag per state.
    func closure(from roots: [Int]) -> [Bool] {
        var seen = [Bool](repeating: false, count: offsets.count - 1)
        var queue: [Int] = []
        for root in roots where !seen[root] {
            seen[root] = true
            queue.append(root)
        }
        while let next = queue.popLast() {
            for neighbour in self[next] where !seen[neighbour] {
                seen[neighbour] = true
                queue.append(neighbour)
            }
        }
        return seen
    }
}
