import MatterFlowJSON

/// Time bounds: a loop leaves a run's duration unbounded (`unboundedDuration`), and a declared
/// `deadlineSeconds` must be met by every path, a cancelled run's included (`deadlineNotMet`).
struct BudgetCheck {
    typealias Code = WorkflowDiagnosticCode
    let workflow: Workflow
    /// The duration analysis (what ``TimeBudget`` shows), whose ends are named only for the one reported.
    let graph: BudgetGraph
    let collector: DiagnosticCollector

    func check() {
        if let loop = graph.loop, let first = loop.first, let state = workflow.states[first] {
            collector.error(
                Code.unboundedDuration, at: state.pointer, atKey: true,
                "a run can loop \(loop.joined(separator: " -> ")) any number of times, so nothing bounds how long it takes; to try a step again, give it a retry entry (which has a maxRetries) instead; to poll until something holds, use a repeat state (its maxIterations bounds it); to run steps for each element of a list, a map state (its maxItems bounds it); to wait for one of several events, one wait state with a branch per event (a wait that loops back on itself waits for ever while events keep coming)")
            return
        }
        guard let deadline = workflow.contract.deadlineSeconds else { return }
        // Latest first (a stable sort: of ends equally late, the first in the graph's order is the one spelled out).
        let late = graph.endPoints.filter { $0.worstSeconds > deadline }.sorted { $0.worstSeconds > $1.worstSeconds }
        guard let latest = late.first else { return }
        let worst = graph.spelled(latest)
        // The other late ends are named here: `validate --budget` shows the budgets of valid workflows only.
        let rest = late.dropFirst()
        let shown = rest.prefix(8).map { "\(TimeBudget.label(graph.spelled($0))) \(TimeBudget.format($0.worstSeconds))" }
        let more = rest.count > shown.count ? ", and \(rest.count - shown.count) more" : ""
        let others = rest.isEmpty ? "" : " (\(late.count) ends can be late; the others: \(shown.joined(separator: ", "))\(more))"
        collector.error(
            Code.deadlineNotMet, at: "/deadlineSeconds",
            "a run ending \(TimeBudget.label(worst)) can take up to \(TimeBudget.format(worst.worstSeconds)), more than the deadline of \(TimeBudget.format(deadline))\(others); path: \(worst.path.joined(separator: " -> ")); lower the timeouts or retries on it, or raise the deadline")
    }
}

extension BudgetCheck {
    /// Whether the check might report something, decided without the duration analysis: only a declared deadline
    /// can be missed, and only a loop makes the duration unbounded. The analysis's graph (each state in a normal
    /// run and on the cancel path, see ``BudgetGraph``) has a loop only where the states reached from the start or
    /// from the cancel path's first state do, along transitions other than the cancel edges (a normal run's
    /// points lead to the cancel path's, never back).
    static func mayFind(_ workflow: Workflow) -> Bool {
        let model = workflow.model
        return workflow.contract.deadlineSeconds != nil || hasLoop(model, from: [model.start, model.onCancel].compactMap { $0 })
    }

    /// Whether a loop of transitions other than cancel edges is reachable from `starts`; iterative, so a long
    /// chain of states cannot exhaust the stack.
    private static func hasLoop(_ model: CompiledWorkflow, from starts: [Int]) -> Bool {
        // 0: not met yet, 1: on the walk's stack, 2: done (every state behind it is loop-free).
        var mark = [UInt8](repeating: 0, count: model.count)
        var stack: [(state: Int, next: Int)] = []
        for start in starts where mark[start] == 0 {
            mark[start] = 1
            stack.append((start, model.leaving[start].lowerBound))
            while let top = stack.last {
                guard top.next < model.leaving[top.state].upperBound else {
                    mark[top.state] = 2
                    stack.removeLast()
                    continue
                }
                stack[stack.count - 1].next += 1
                let edge = model.edges[top.next]
                guard !edge.kind.isCancel, let to = edge.to else { continue }
                switch mark[to] {
                case 0:
                    mark[to] = 1
                    stack.append((to, model.leaving[to].lowerBound))
                case 1: return true
                default: continue
                }
            }
        }
        return false
    }
}
