/// The longest-path computation behind ``TimeBudget``: every state twice (in a normal run, and on the cancel path
/// of a cancelled one), each edge weighted by the worst duration of the state it leaves.
///
/// A class, like ``ErrorFlow``: a load keeps one per file, which parents read for every workflow state naming it.
final class BudgetGraph {
    let workflow: Workflow
    let flow: ErrorFlow
    /// Worst duration of each state, by number.
    private var durations: [Double] = []
    /// What a cancel arriving in a state adds before the level's cancel path starts, by state number.
    private var tails: [Double] = []
    private(set) var loop: [String]?
    /// Every end reached from the start, as numbers: state names are spelled out only for what is shown
    /// (``ends``, ``spelled(_:)``).
    private(set) var endPoints: [EndPoint] = []
    /// From a cancel reaching this level until the level has ended (its wind-down and its cancel path).
    private(set) var cancelTail: Double = 0

    init(workflow: Workflow, context: VerificationContext) {
        self.workflow = workflow
        flow = context.flow(workflow)
        let model = flow.model
        durations.reserveCapacity(model.count)
        tails.reserveCapacity(model.count)
        for (number, state) in model.states.enumerated() {
            let (duration, tail) = measure(state, number: number, context: context)
            durations.append(duration)
            tails.append(tail)
        }
        var graph = DurationGraph(stateCount: model.count)
        for number in model.states.indices {
            addEdges(number, cancelled: false, to: &graph)
            graph.endPoint()
            // Only a cancel path leads to cancelled points: without one, they are never reached.
            if workflow.onCancel != nil { addEdges(number, cancelled: true, to: &graph) }
            graph.endPoint()
        }
        if let startState = model.start {
            let start = graph.point(startState, cancelled: false)
            guard let order = topologicalOrder(graph, from: start) else { return }
            endPoints = Self.ends(of: graph, from: start, order: order)
        }
        if workflow.onCancel != nil, let onCancel = model.onCancel {
            let cancelStart = graph.point(onCancel, cancelled: true)
            if let cancelOrder = topologicalOrder(graph, from: cancelStart) {
                let cancelDistance = graph.longest(from: cancelStart, order: cancelOrder).distance
                cancelTail = cancelOrder.compactMap { target in
                    if case .end = graph.describe(target), cancelDistance[target] >= 0 { return cancelDistance[target] }
                    return nil
                }.max() ?? 0
            } else {
                cancelTail = .infinity
            }
        }
        cancelTail += tails.max() ?? 0
    }

    /// A ``TimeBudget/End`` with states as numbers.
    struct EndPoint {
        /// The end state (or the state the error leaves, or where the cancel arrived); nil when none is.
        var state: Int?
        var kind: TimeBudget.End.Kind
        var afterCancel: Bool
        var worstSeconds: Double
        /// Where the longest path to the end comes from, followed back only for an end that is shown (``path``).
        let trace: LongestPath

        /// The states of the longest path, from the start.
        var path: [Int] { trace.states() }
    }

    /// The longest path to one end, as the longest-path search left it: its last target before the end, and each
    /// target's predecessor (shared by every end of the search).
    struct LongestPath {
        let graph: DurationGraph
        let previous: [DurationGraph.Target]
        let last: DurationGraph.Target

        /// The states on the path, from the start.
        func states() -> [Int] {
            // Walked from the end back, then reversed: inserting at the front would make long paths quadratic.
            var path: [Int] = []
            var point = last
            while point >= 0 {
                if case .point(let number, _) = graph.describe(point) { path.append(number) }
                point = previous[point]
            }
            path.reverse()
            return path
        }

        /// The last state on the path, found without spelling the path out.
        var lastState: Int? {
            var point = last
            while point >= 0 {
                if case .point(let number, _) = graph.describe(point) { return number }
                point = previous[point]
            }
            return nil
        }
    }

    /// Every end, with state names: normal runs first, by kind, in the order of states.
    var ends: [TimeBudget.End] { endPoints.map(spelled) }

    /// An end with its states named.
    func spelled(_ end: EndPoint) -> TimeBudget.End {
        let model = flow.model
        return TimeBudget.End(
            state: end.state.map(model.name) ?? "", kind: end.kind, afterCancel: end.afterCancel,
            worstSeconds: end.worstSeconds, path: end.path.map(model.name))
    }

    /// Every end reached from `start`, with its longest path: normal runs first, by kind, in the order of states.
    private static func ends(
        of graph: DurationGraph, from start: DurationGraph.Target, order: [DurationGraph.Target]
    ) -> [EndPoint] {
        let (distance, previous) = graph.longest(from: start, order: order)
        var found: [(end: EndPoint, position: Int)] = []
        for target in order {
            guard case .end(let state, let kind, let cancelled) = graph.describe(target), distance[target] >= 0 else {
                continue
            }
            let worst = distance[target]
            let trace = LongestPath(graph: graph, previous: previous, last: previous[target])
            // A cancelled run without a cancel path ends where the cancel arrived.
            let at = kind == .cancelled ? trace.lastState ?? state : state
            found.append((
                EndPoint(state: at, kind: kind, afterCancel: cancelled, worstSeconds: worst, trace: trace), at ?? 0))
        }
        return found.sorted { lhs, rhs in
            if lhs.end.afterCancel != rhs.end.afterCancel { return !lhs.end.afterCancel }
            if lhs.end.kind != rhs.end.kind { return lhs.end.kind.rawValue < rhs.end.kind.rawValue }
            return lhs.position < rhs.position
        }.map(\.end)
    }

    /// The worst duration of a state, and what a cancel arriving in it adds.
    private func measure(_ state: WorkflowState, number: Int, context: VerificationContext) -> (Double, Double) {
        let guardSeconds = TimeBudget.guardTimeoutSeconds + TimeBudget.windDownSeconds
        var call: Double
        let cancelTail: Double
        switch state.kind {
        case .action(let action):
            let timeout = action.timeoutSeconds ?? context.catalog[action.operation]?.defaultTimeoutSeconds ?? 0
            call = timeout + TimeBudget.windDownSeconds
            cancelTail = TimeBudget.windDownSeconds
        case .workflow(let subworkflow):
            guard let child = workflow.subworkflows[subworkflow.path] else { return (.infinity, .infinity) }
            let childGraph = context.budgetGraph(child)
            let body = childGraph.loop != nil ? .infinity : childGraph.endPoints.filter { !$0.afterCancel && $0.kind != .cancelled }
                .map(\.worstSeconds).max() ?? 0
            if let repeating = subworkflow.repeating {
                // At most `maxIterations` runs of the body, with the delay between each two.
                call = Double(repeating.maxIterations) * body + Double(repeating.maxIterations - 1) * repeating.delaySeconds
            } else {
                // A map runs its body once per element, `concurrency` at a time, a new element starting as one ends:
                // all have started within `ceil(maxItems / concurrency) - 1` body runs, so the last ends within one more.
                call = Double(Self.mapRounds(subworkflow.map)) * body
            }
            cancelTail = childGraph.loop != nil ? .infinity : childGraph.cancelTail
            if subworkflow.map?.isConcurrent == true {
                // Too many failed elements cancel those still running: their cancel paths end the map's last round.
                call += cancelTail
            }
        case .wait(let wait):
            return (wait.timeoutSeconds, 0)
        case .ask(let ask):
            // Answered or not, the state is left by its timeout at the latest.
            return (ask.timeoutSeconds, 0)
        case .delay(let delay):
            return (delay.maxSeconds, 0)
        case .choice, .assign, .succeed, .fail:
            return (0, 0)
        }
        guard let step = state.step else { return (0, 0) }
        var attempts = 1.0
        var delays = 0.0
        for (index, retrier) in step.retry.enumerated()
        where retrier.maxRetries > 0 && flow.routing(number)?.retried[safe: index]?.isEmpty == false {
            attempts += Double(retrier.maxRetries)
            for retry in 1...retrier.maxRetries { delays += retrier.delay(beforeRetry: retry) }
        }
        // A built-in or status guard waits at most the status timeout; an operation guard its operation's timeout.
        let guardsSeconds = step.guards.reduce(0.0) { total, listed in
            guard case .custom(let name) = listed, let descriptor = context.catalog.customGuard(named: name) else {
                return total + guardSeconds
            }
            return total + context.catalog.timeoutSeconds(of: descriptor) + TimeBudget.windDownSeconds
        }
        return (attempts * (guardsSeconds + call) + delays, cancelTail)
    }

    /// Where a point leads, and how long it takes to get there.
    private func addEdges(_ number: Int, cancelled: Bool, to graph: inout DurationGraph) {
        let model = flow.model
        let state = model.states[number]
        switch state.kind {
        case .succeed:
            let end = graph.end(number, kind: .succeed, cancelled: cancelled)
            return graph.add(end, weight: 0)
        case .fail:
            let end = graph.end(number, kind: .fail, cancelled: cancelled)
            return graph.add(end, weight: 0)
        case .action, .workflow, .choice, .assign, .wait, .ask, .delay: break
        }
        let duration = durations[number]
        for edge in model.edges[model.leaving[number]] where !edge.kind.isCancel {
            // A transition to an undefined state leads nowhere.
            guard let to = edge.to else { continue }
            graph.add(graph.point(to, cancelled: cancelled), weight: duration)
        }
        if flow.routing(number)?.escaping.isEmpty == false {
            let end = graph.end(number, kind: .unroutedError, cancelled: cancelled)
            graph.add(end, weight: duration)
        }
        if !cancelled {
            let tail = duration + tails[number]
            if workflow.onCancel == nil {
                let end = graph.end(nil, kind: .cancelled, cancelled: true)
                graph.add(end, weight: tail)
            } else if let onCancel = model.onCancel {
                graph.add(graph.point(onCancel, cancelled: true), weight: tail)
            }
        }
    }

    /// The targets reachable from a point, each after every target leading to it; nil (and ``loop`` set) when
    /// a loop is reachable.
    private func topologicalOrder(_ graph: DurationGraph, from start: DurationGraph.Target) -> [DurationGraph.Target]? {
        switch graph.topologicalOrder(from: start) {
        case .success(let order):
            return order
        case .failure(let found):
            loop = found.targets.compactMap { target in
                if case .point(let state, _) = graph.describe(target) { flow.model.name(state) } else { nil }
            }
            return nil
        }
    }

    /// How many body runs bound a map state's elements: `ceil(maxItems / concurrency)` (1 for a sub-workflow state).
    static func mapRounds(_ map: MapIteration?) -> Int {
        guard let map else { return 1 }
        let concurrency = max(1, map.concurrency)
        return (map.maxItems + concurrency - 1) / concurrency
    }
}
