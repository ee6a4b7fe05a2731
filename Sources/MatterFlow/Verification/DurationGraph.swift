/// The graph ``BudgetGraph`` finds longest paths in, with every target numbered: each state twice (in a normal
/// run, and on the cancel path of a cancelled one), then each way a run can end at a state.
///
/// Numbers, not names: a workflow of thousands of states would otherwise hash a state name for every edge
/// followed, every node marked done and every distance looked up.
struct DurationGraph {
    /// A point or an end, by number (see ``point(_:cancelled:)`` and ``end(_:kind:cancelled:)``).
    typealias Target = Int

    /// The names of the states by number: the workflow's, then any other name a transition gives, then "" (where
    /// a run without a cancel path ends when cancelled).
    private(set) var names: [String]
    private static let kinds: [TimeBudget.End.Kind] = [.succeed, .fail, .unroutedError, .cancelled]
    /// The edges leaving each target, with their weights, in the order ``BudgetGraph`` lists them.
    private var edges: [[(Target, Double)]]
    /// Points and ends.
    private let targetCount: Int

    /// - Parameter edges: where a point leads and how long it takes, given its state's name and whether it is
    ///   on the cancel path; ends are given as names of states and kinds.
    init(workflow: Workflow, edges pointEdges: (String, Bool) -> [(BudgetGraph.Target, Double)]) {
        var names: [String] = []
        var numbers: [String: Int] = [:]
        func number(_ name: String) {
            if numbers[name] == nil {
                numbers[name] = names.count
                names.append(name)
            }
        }
        for name in workflow.stateOrder { number(name) }
        number(workflow.start)
        if let onCancel = workflow.onCancel { number(onCancel) }
        var raw: [[(BudgetGraph.Target, Double)]] = []
        var position = 0
        // Points of states named only by transitions have edges too (none): number every name first.
        while position < names.count {
            // Only a cancel path leads to cancelled points: without one, they are never reached.
            for cancelled in [false, true] {
                let leaving = cancelled && workflow.onCancel == nil ? [] : pointEdges(names[position], cancelled)
                for (target, _) in leaving {
                    switch target {
                    case .point(let point): number(point.state)
                    case .end(let state, _, _): number(state)
                    }
                }
                raw.append(leaving)
            }
            position += 1
        }
        number("")
        while raw.count < names.count * 2 { raw.append([]) }
        self.names = names
        self.numbers = numbers
        let stateCount = names.count
        // Ends have no edges: only points have a row.
        targetCount = stateCount * 2 + stateCount * Self.kinds.count * 2
        edges = [[(Target, Double)]](repeating: [], count: stateCount * 2)
        for (index, leaving) in raw.enumerated() {
            edges[index] = leaving.map { target, weight in
                switch target {
                case .point(let point):
                    return (numbers[point.state]! * 2 + (point.cancelled ? 1 : 0), weight)
                case .end(let state, let kind, let cancelled):
                    let kindNumber = Self.kinds.firstIndex(of: kind)!
                    return (stateCount * 2 + (numbers[state]! * Self.kinds.count + kindNumber) * 2 + (cancelled ? 1 : 0), weight)
                }
            }
        }
    }

    private let numbers: [String: Int]

    /// The number of the point of a state.
    func point(_ state: String, cancelled: Bool) -> Target? {
        numbers[state].map { $0 * 2 + (cancelled ? 1 : 0) }
    }

    /// What a target is: a point (its state's name) or an end.
    enum Described {
        case point(state: String, cancelled: Bool)
        case end(state: String, kind: TimeBudget.End.Kind, cancelled: Bool)
    }

    func describe(_ target: Target) -> Described {
        let cancelled = target % 2 == 1
        if target < names.count * 2 { return .point(state: names[target / 2], cancelled: cancelled) }
        let end = (target - names.count * 2) / 2
        return .end(state: names[end / Self.kinds.count], kind: Self.kinds[end % Self.kinds.count], cancelled: cancelled)
    }

    /// The targets reachable from `start`, each after every target leading to it; or the loop found (its targets
    /// from where it begins, and that first target again) when one is reachable. Iterative, so a long chain of
    /// states cannot exhaust the stack.
    func topologicalOrder(from start: Target) -> Result<[Target], Loop> {
        var order: [Target] = []
        var done = [Bool](repeating: false, count: targetCount)
        var onStack = [Bool](repeating: false, count: targetCount)
        var stack: [(target: Target, next: Int)] = [(start, 0)]
        onStack[start] = true
        while let top = stack.last {
            let successors = top.target < edges.count ? edges[top.target] : []
            if top.next < successors.count {
                let successor = successors[top.next].0
                stack[stack.count - 1].next += 1
                if done[successor] { continue }
                if onStack[successor] {
                    let from = stack.firstIndex { $0.target == successor } ?? 0
                    return .failure(Loop(targets: stack[from...].map(\.target) + [successor]))
                }
                stack.append((successor, 0))
                onStack[successor] = true
            } else {
                stack.removeLast()
                onStack[top.target] = false
                done[top.target] = true
                order.append(top.target)
            }
        }
        return .success(order.reversed())
    }

    /// A loop of targets (see ``topologicalOrder(from:)``).
    struct Loop: Error {
        var targets: [Target]
    }

    /// The longest distance from `start` to each target reached (nil: not reached), and the point before it.
    func longest(from start: Target, order: [Target]) -> (distance: [Double?], previous: [Target?]) {
        var distance = [Double?](repeating: nil, count: targetCount)
        var previous = [Target?](repeating: nil, count: targetCount)
        distance[start] = 0
        for target in order where target < edges.count {
            guard let base = distance[target] else { continue }
            for (next, weight) in edges[target] where base + weight > distance[next] ?? -1 {
                distance[next] = base + weight
                previous[next] = target
            }
        }
        return (distance, previous)
    }
}
