import MatterFlowJSON

/// Retry safety (`unsafeRetry`): a retry repeats the call, so a non-idempotent write may be retried only after
/// errors that mean the failed attempt changed nothing. A timeout or an unrecognised hub failure
/// (``OperationDescriptor/inDoubtCauses``) leaves that in doubt: retrying after one needs the state's
/// `repeatSafety` (an idempotency key the operation declares, passed as an argument). A workflow state's retry
/// runs the whole sub-workflow again, so it is unsafe after any error the sub-workflow itself may end with when
/// the sub-workflow (at any depth) calls a non-idempotent write.
struct RetrySafetyCheck {
    typealias Code = WorkflowDiagnosticCode
    let workflow: Workflow
    let flow: ErrorFlow
    let catalog: OperationCatalog
    let collector: DiagnosticCollector
    /// What a sub-workflow (by the path in its state) can end with.
    let childErrors: (String) -> ErrorSet?
    /// The first non-idempotent write a sub-workflow (by the path in its state) calls, at any depth.
    let childWrite: (String) -> String?

    func check() {
        for (number, state) in flow.model.states.enumerated() {
            guard let routing = flow.routing(number) else { continue }
            switch state.kind {
            case .action(let action):
                checkAction(action, state: state, routing: routing)
            case .workflow(let subworkflow):
                guard let write = childWrite(subworkflow.path) else { continue }
                let fromChild = childErrors(subworkflow.path) ?? PossibleErrorTable.anyError
                for (index, retrier) in subworkflow.step.retry.enumerated() where retrier.maxRetries > 0 {
                    let taken = routing.retried[safe: index] ?? ErrorSet()
                    // Errors the state raises before the child starts (guards, inputs) are safe to retry.
                    guard taken.intersects(fromChild) else { continue }
                    collector.error(
                        Code.unsafeRetry, at: state.pointer + "/retry/\(index)",
                        "this entry runs \(subworkflow.path) again after it failed, but it calls \(write), a non-idempotent write, which the failed run may already have done; retry inside \(subworkflow.path), on the step itself, after errors that mean nothing was done")
                }
            case .choice, .assign, .wait, .ask, .delay, .succeed, .fail:
                continue
            }
        }
    }

    private func checkAction(_ action: ActionState, state: WorkflowState, routing: ErrorFlow.Routing) {
        guard let operation = catalog[action.operation] else { return }
        if let safety = action.repeatSafety {
            checkRepeatSafety(safety, action: action, operation: operation, state: state)
        }
        guard operation.effect == .nonIdempotentWrite, action.repeatSafety == nil else { return }
        let inDoubt = Set(OperationDescriptor.inDoubtCauses.map(\.rawValue))
        for (index, retrier) in action.step.retry.enumerated() where retrier.maxRetries > 0 {
            let doubtful = flow.table.errors(in: routing.retried[safe: index] ?? ErrorSet()).filter { error in
                error.cause.map(inDoubt.contains) ?? true
            }
            guard !doubtful.isEmpty else { continue }
            let remedy = operation.idempotencyKey.map {
                "declare \"repeatSafety\": {\"idempotencyKey\": \"\($0)\"} and pass \"\($0)\", or retry only errors that mean nothing was done"
            } ?? "retry only errors that mean nothing was done (\(operation.name) has no idempotency key)"
            collector.error(
                Code.unsafeRetry, at: state.pointer + "/retry/\(index)",
                "this entry retries \(operation.name), a non-idempotent write, after \(doubtful.listed): such a failure leaves in doubt whether the attempt took effect, so a retry could do it twice; \(remedy)")
        }
    }

    /// `repeatSafety` must name the operation's idempotency key, passed as an argument.
    private func checkRepeatSafety(
        _ safety: RepeatSafety, action: ActionState, operation: OperationDescriptor, state: WorkflowState
    ) {
        let pointer = state.pointer + "/repeatSafety/idempotencyKey"
        guard let key = operation.idempotencyKey else {
            collector.error(
                DiagnosticCode.invalidValue, at: pointer,
                "\(operation.name) has no idempotency key, so a repeat cannot be recognised; remove \"repeatSafety\" and retry only errors that mean nothing was done")
            return
        }
        guard safety.idempotencyKey == key else {
            collector.error(
                DiagnosticCode.invalidValue, at: pointer,
                "the idempotency key of \(operation.name) is \"\(key)\", not \"\(safety.idempotencyKey)\"")
            return
        }
        guard action.arguments.contains(where: { $0.name == key }) else {
            collector.error(
                WorkflowDiagnosticCode.missingArgument, at: state.pointer + "/arguments",
                "\"repeatSafety\" relies on \"\(key)\", so the state must pass it (the same value on every attempt, e.g. \"${run.id}\")")
            return
        }
    }
}
