/// The graph ``BudgetGraph`` finds longest paths in, with every target numbered: each state twice (in a normal
/// run, and on the cancel path of a cancelled one), then each way a run can end at a state.
///
/// States are numbered as in the workflow's ``CompiledWorkflow``; the edges are kept in one flat array (each
/// point's are a range of it), so a workflow of thousands of states allocates no row per point and hashes no
/// name for every edge followed, node marked done or distance looked up.
struct DurationGraph {
    /// A point or an end, by number (see ``point(_:cancelled:)`` and ``end(_:kind:cancelled:)``).
    typealias Target = Int

    static let kinds = TimeBudget.End.Kind.allCases
    /// The number of states.
    private let stateCount: Int
    /// Ends are numbered after the points as edges first name them, so a workflow has rows only for the few
    /// ends it can reach: the key of each (``endKey(_:kind:cancelled:)``), and the number of each key.
    private var endKeys: [Int] = []
    private var endNumbers: [Int: Target] = [:]
    /// The edges leaving point `p` are `targets[offsets[p] ..< offsets[p + 1]]`, with their `weights`, in the
    /// order ``BudgetGraph`` gave them.
    private var offsets: [Int] = [0]
    private var targets: [Target] = []
    private var weights: [Double] = []
    /// Points and ends.
    private var targetCount: Int { stateCount * 2 + endKeys.count }

    /// An empty graph over `stateCount` states; ``add(_:weight:)`` and ``endPoint()`` give each point its edges,
    /// in the order of the points' numbers.
    init(stateCount: Int) {
        self.stateCount = stateCount
        offsets.reserveCapacity(stateCount * 2 + 1)
        targets.reserveCapacity(stateCount * 4)
        weights.reserveCapacity(stateCount * 4)
    }

    /// Adds an edge leaving the point being filled.
    mutating func add(_ target: Target, weight: Double) {
        targets.append(target)
        weights.append(weight)
    }

    /// Ends the edges of the point being filled; the next ones are the next point's.
    mutating func endPoint() {
        offsets.append(targets.count)
    }

    /// The number of the point of state `state`.
    func point(_ state: Int, cancelled: Bool) -> Target {
        state * 2 + (cancelled ? 1 : 0)
    }

    /// The number of an end at state `state` (nil: a cancelled run of a level without a cancel path), given it
    /// when first named.
    mutating func end(_ state: Int?, kind: TimeBudget.End.Kind, cancelled: Bool) -> Target {
        let key = endKey(state, kind: kind, cancelled: cancelled)
        if let known = endNumbers[key] { return known }
        let number = stateCount * 2 + endKeys.count
        endNumbers[key] = number
        endKeys.append(key)
        return number
    }

    /// An end as one number; one more state stands for where a run without a cancel path ends when cancelled.
    private func endKey(_ state: Int?, kind: TimeBudget.End.Kind, cancelled: Bool) -> Int {
        ((state ?? stateCount) * Self.kinds.count + Self.index(of: kind)) * 2 + (cancelled ? 1 : 0)
    }

    /// Where `kind` is in ``kinds``, checked by the compiler for every kind.
    static func index(of kind: TimeBudget.End.Kind) -> Int {
        switch kind {
        case .succeed: 0
        case .fail: 1
        case .unroutedError: 2
        case .cancelled: 3
        }
    }

    /// What a target is: a point (its state) or an end.
    enum Described {
        case point(state: Int, cancelled: Bool)
        case end(state: Int?, kind: TimeBudget.End.Kind, cancelled: Bool)
    }

    func describe(_ target: Target) -> Described {
        if target < stateCount * 2 { return .point(state: target / 2, cancelled: target % 2 == 1) }
        let key = endKeys[target - stateCount * 2]
        let cancelled = key % 2 == 1
        let end = key / 2
        let state = end / Self.kinds.count
        return .end(state: state == stateCount ? nil : state, kind: Self.kinds[end % Self.kinds.count], cancelled: cancelled)
    }

    /// The edges leaving a target, as positions in ``targets`` and ``weights``.
    private func leaving(_ target: Target) -> Range<Int> {
        target + 1 < offsets.count ? offsets[target]..<offsets[target + 1] : 0..<0
    }

    /// The targets reachable from `start`, each after every target leading to it; or the loop found (its targets
    /// from where it begins, and that first target again) when one is reachable. Iterative, so a long chain of
    /// states cannot exhaust the stack.
    func topologicalOrder(from start: Target) -> Result<[Target], Loop> {
        var order: [Target] = []
        var done = [Bool](repeating: false, count: targetCount)
        var onStack = [Bool](repeating: false, count: targetCount)
        var stack: [(target: Target, next: Int)] = [(start, leaving(start).lowerBound)]
        onStack[start] = true
        while let top = stack.last {
            if top.next < leaving(top.target).upperBound {
                let successor = targets[top.next]
                stack[stack.count - 1].next += 1
                if done[successor] { continue }
                if onStack[successor] {
                    let from = stack.firstIndex { $0.target == successor } ?? 0
                    return .failure(Loop(targets: stack[from...].map(\.target) + [successor]))
                }
                stack.append((successor, leaving(successor).lowerBound))
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

    /// The longest distance from `start` to each target reached (negative: not reached), and the point before
    /// it (negative: none).
    func longest(from start: Target, order: [Target]) -> (distance: [Double], previous: [Target]) {
        var distance = [Double](repeating: -1, count: targetCount)
        var previous = [Target](repeating: -1, count: targetCount)
        distance[start] = 0
        for target in order {
            let base = distance[target]
            guard base >= 0 else { continue }
            for position in leaving(target) where base + weights[position] > distance[targets[position]] {
                distance[targets[position]] = base + weights[position]
                previous[targets[position]] = target
            }
        }
        return (distance, previous)
    }
}
