import MatterFlowJSON

/// Elements that run at once must not share the commissioning session: a structure has one, so two elements
/// preparing, requesting, commissioning, configuring, completing or cancelling in it at the same time would
/// interleave one session's protocol. A map state with `concurrency` above 1 whose body (at any depth) calls an
/// operation that opens, works in or releases the session is refused (`concurrentSessionUse`), and so is one whose
/// body asks a question or waits for a hub event: a run asks one question at a time, and hands each hub event to one
/// wait at a time, so two elements waiting at once would lose one's answer or event. A body that runs a concurrent
/// map state of its own (at any depth) is refused too: a resumed run continues the running elements of one
/// concurrent map, not those of a concurrent map inside one of its elements.
struct MapConcurrencyCheck {
    let workflow: Workflow
    let context: VerificationContext
    let collector: DiagnosticCollector

    func check() {
        for state in workflow.statesInOrder {
            guard case .workflow(let subworkflow) = state.kind, let map = subworkflow.map, map.isConcurrent,
                let body = workflow.subworkflows[subworkflow.path]
            else { continue }
            if let operation = context.sessionOperation(body) {
                collector.error(
                    WorkflowDiagnosticCode.concurrentSessionUse, at: state.pointer + "/concurrency",
                    "map state \(state.name) runs \(map.concurrency) elements at once, but its body \(subworkflow.path) calls \(operation), which works in the structure's commissioning session (a structure has one, and its calls must not interleave); remove \"concurrency\" so the elements run one at a time, or move the session's steps out of the body")
            } else if let ask = context.firstState(in: body, where: .question) {
                collector.error(
                    DiagnosticCode.invalidValue, at: state.pointer + "/concurrency",
                    "map state \(state.name) runs \(map.concurrency) elements at once, but its body \(subworkflow.path) asks a question (state \(ask.description)), and a run asks one question at a time; remove \"concurrency\" so the elements run one at a time")
            } else if let wait = context.firstState(in: body, where: .eventWait) {
                collector.error(
                    DiagnosticCode.invalidValue, at: state.pointer + "/concurrency",
                    "map state \(state.name) runs \(map.concurrency) elements at once, but its body \(subworkflow.path) waits for a hub event (state \(wait.description)), and a run hands each event to one wait at a time, so elements waiting at once would lose events; remove \"concurrency\" so the elements run one at a time, or move the wait out of the body")
            }
            if let inner = context.firstState(in: body, where: .concurrentMap) {
                collector.error(
                    DiagnosticCode.invalidValue, at: state.pointer + "/concurrency",
                    "map state \(state.name) runs \(map.concurrency) elements at once, and its body \(subworkflow.path) runs map state \(inner.description) with \"concurrency\" above 1 too; a resumed run could not continue the inner map's running elements, so only one of the two may run elements at once: remove \"concurrency\" from one of them")
            }
        }
    }
}
