import MatterFlowJSON

/// Time bounds: a loop leaves a run's duration unbounded (`unboundedDuration`), and a declared
/// `deadlineSeconds` must be met by every path, a cancelled run's included (`deadlineNotMet`).
struct BudgetCheck {
    typealias Code = WorkflowDiagnosticCode
    let workflow: Workflow
    let budget: TimeBudget
    let collector: DiagnosticCollector

    func check() {
        if let loop = budget.loop, let first = loop.first, let state = workflow.states[first] {
            collector.error(
                Code.unboundedDuration, at: state.pointer, atKey: true,
                "a run can loop \(loop.joined(separator: " -> ")) any number of times, so nothing bounds how long it takes; end the loop with a retry entry (which has a maxRetries) instead, or leave it by a wait's timeout into a terminal state")
            return
        }
        guard let deadline = budget.deadlineSeconds else { return }
        let late = budget.ends.filter { $0.worstSeconds > deadline }
        guard let worst = late.max(by: { $0.worstSeconds < $1.worstSeconds }) else { return }
        let others = late.count > 1 ? " (\(late.count) ends can be late; `matterflow validate --budget` shows them all)" : ""
        collector.error(
            Code.deadlineNotMet, at: "/deadlineSeconds",
            "a run ending \(TimeBudget.label(worst)) can take up to \(TimeBudget.format(worst.worstSeconds)), more than the deadline of \(TimeBudget.format(deadline))\(others); path: \(worst.path.joined(separator: " -> ")); lower the timeouts or retries on it, or raise the deadline")
    }
}
