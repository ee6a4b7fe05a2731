/// The longest-path computation behind ``TimeBudget``: every state twice (in a normal run, and on the cancel path
/// of a cancelled one), each edge weighted by the worst duration of the state it leaves.
struct BudgetGraph {
    struct Point: Hashable {
        var state: String
        var cancelled: Bool
    }

    enum Target: Hashable {
        case point(Point)
        case end(state: String, kind: TimeBudget.End.Kind, cancelled: Bool)
    }

    let workflow: Workflow
    let flow: ErrorFlow
    /// Worst duration of each state.
    private(set) var durations: [String: Double] = [:]
    /// What a cancel arriving in a state adds before the level's cancel path starts.
    private(set) var tails: [String: Double] = [:]
    private(set) var loop: [String]?
    private(set) var ends: [TimeBudget.End] = []
    /// From a cancel reaching this level until the level has ended (its wind-down and its cancel path).
    private(set) var cancelTail: Double = 0

    init(workflow: Workflow, context: VerificationContext) {
        self.workflow = workflow
        flow = context.flow(workflow)
        for name in workflow.stateOrder {
            guard let state = workflow.states[name] else { continue }
            (durations[name], tails[name]) = measure(state, context: context)
        }
        let graph = DurationGraph(workflow: workflow) { state, cancelled in
            edges(Point(state: state, cancelled: cancelled))
        }
        guard let start = graph.point(workflow.start, cancelled: false), let order = topologicalOrder(graph, from: start) else { return }
        let (distance, previous) = graph.longest(from: start, order: order)
        var found: [TimeBudget.End] = []
        for target in order {
            guard case .end(let state, let kind, let cancelled) = graph.describe(target), let worst = distance[target] else {
                continue
            }
            // Walked from the end back, then reversed: inserting at the front would make long paths quadratic.
            var path: [String] = []
            var cursor = previous[target]
            while let point = cursor {
                if case .point(let name, _) = graph.describe(point) { path.append(name) }
                cursor = previous[point]
            }
            path.reverse()
            found.append(TimeBudget.End(
                state: kind == .cancelled ? path.last ?? state : state, kind: kind, afterCancel: cancelled,
                worstSeconds: worst, path: path))
        }
        let position = Dictionary(workflow.stateOrder.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        ends = found.sorted { lhs, rhs in
            if lhs.afterCancel != rhs.afterCancel { return !lhs.afterCancel }
            if lhs.kind != rhs.kind { return lhs.kind.rawValue < rhs.kind.rawValue }
            return (position[lhs.state] ?? 0) < (position[rhs.state] ?? 0)
        }
        if let onCancel = workflow.onCancel, workflow.states[onCancel] != nil,
            let cancelStart = graph.point(onCancel, cancelled: true)
        {
            if let cancelOrder = topologicalOrder(graph, from: cancelStart) {
                let cancelDistance = graph.longest(from: cancelStart, order: cancelOrder).distance
                cancelTail = cancelOrder.compactMap { target in
                    if case .end = graph.describe(target) { return cancelDistance[target] }
                    return nil
                }.max() ?? 0
            } else {
                cancelTail = .infinity
            }
        }
        cancelTail += tails.values.max() ?? 0
    }

    /// The worst duration of a state, and what a cancel arriving in it adds.
    private func measure(_ state: WorkflowState, context: VerificationContext) -> (Double, Double) {
        let guardSeconds = TimeBudget.guardTimeoutSeconds + TimeBudget.windDownSeconds
        let call: Double
        let cancelTail: Double
        switch state.kind {
        case .action(let action):
            let timeout = action.timeoutSeconds ?? context.catalog[action.operation]?.defaultTimeoutSeconds ?? 0
            call = timeout + TimeBudget.windDownSeconds
            cancelTail = TimeBudget.windDownSeconds
        case .workflow(let subworkflow):
            guard let child = workflow.subworkflows[subworkflow.path] else { return (.infinity, .infinity) }
            let childGraph = context.budgetGraph(child)
            call = childGraph.loop != nil ? .infinity : childGraph.ends.filter { !$0.afterCancel && $0.kind != .cancelled }
                .map(\.worstSeconds).max() ?? 0
            cancelTail = childGraph.loop != nil ? .infinity : childGraph.cancelTail
        case .wait(let wait):
            return (wait.timeoutSeconds, 0)
        case .choice, .assign, .succeed, .fail:
            return (0, 0)
        }
        guard let step = state.step else { return (0, 0) }
        var attempts = 1.0
        var delays = 0.0
        for (index, retrier) in step.retry.enumerated()
        where retrier.maxRetries > 0 && flow.routing[state.name]?.retried[safe: index]?.isEmpty == false {
            attempts += Double(retrier.maxRetries)
            for retry in 1...retrier.maxRetries { delays += retrier.delay(beforeRetry: retry) }
        }
        return (attempts * (Double(step.guards.count) * guardSeconds + call) + delays, cancelTail)
    }

    /// Where a point leads, and how long it takes to get there.
    func edges(_ point: Point) -> [(Target, Double)] {
        guard let state = workflow.states[point.state] else { return [] }
        switch state.kind {
        case .succeed: return [(.end(state: point.state, kind: .succeed, cancelled: point.cancelled), 0)]
        case .fail: return [(.end(state: point.state, kind: .fail, cancelled: point.cancelled), 0)]
        case .action, .workflow, .choice, .assign, .wait: break
        }
        let duration = durations[point.state] ?? 0
        var result = state.targets.map { target in
            (Target.point(Point(state: target, cancelled: point.cancelled)), duration)
        }
        if flow.routing[point.state]?.escaping.isEmpty == false {
            result.append((.end(state: point.state, kind: .unroutedError, cancelled: point.cancelled), duration))
        }
        if !point.cancelled {
            let tail = duration + (tails[point.state] ?? 0)
            if let onCancel = workflow.onCancel {
                result.append((.point(Point(state: onCancel, cancelled: true)), tail))
            } else {
                result.append((.end(state: "", kind: .cancelled, cancelled: true), tail))
            }
        }
        return result
    }

    /// The targets reachable from a point, each after every target leading to it; nil (and ``loop`` set) when
    /// a loop is reachable.
    private mutating func topologicalOrder(_ graph: DurationGraph, from start: DurationGraph.Target) -> [DurationGraph.Target]? {
        switch graph.topologicalOrder(from: start) {
        case .success(let order):
            return order
        case .failure(let found):
            loop = found.targets.compactMap { target in
                if case .point(let state, _) = graph.describe(target) { state } else { nil }
            }
            return nil
        }
    }
}
