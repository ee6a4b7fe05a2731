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
                "a run can loop \(loop.joined(separator: " -> ")) any number of times, so nothing bounds how long it takes; to try a step again, give it a retry entry (which has a maxRetries) instead; to poll until something holds, use a repeat state (its maxIterations bounds it); to run steps for each element of a list, a map state (its maxItems bounds it); or leave the loop by a wait's timeout into a terminal state")
            return
        }
        guard let deadline = workflow.contract.deadlineSeconds else { return }
        let late = graph.endPoints.filter { $0.worstSeconds > deadline }
        guard let latest = late.max(by: { $0.worstSeconds < $1.worstSeconds }) else { return }
        let worst = graph.spelled(latest)
        let others = late.count > 1 ? " (\(late.count) ends can be late; `matterflow validate --budget` shows them all)" : ""
        collector.error(
            Code.deadlineNotMet, at: "/deadlineSeconds",
            "a run ending \(TimeBudget.label(worst)) can take up to \(TimeBudget.format(worst.worstSeconds)), more than the deadline of \(TimeBudget.format(deadline))\(others); path: \(worst.path.joined(separator: " -> ")); lower the timeouts or retries on it, or raise the deadline")
    }
}
