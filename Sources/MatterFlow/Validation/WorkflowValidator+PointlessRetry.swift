import MatterFlowJSON

extension WorkflowValidator {
    /// The error names an action's retry can never help with, and why: `invalidArgument` and its causes say the
    /// arguments are wrong, and an action's arguments are the same on every attempt (its variables change only when
    /// the run leaves the state), so each retry fails as the first attempt did, later.
    static let neverTransient: [(name: String, why: String)] = [
        (ErrorCode.invalidArgument.rawValue, "an argument is malformed or out of range"),
        (ErrorCause.invalidPayload.rawValue, "the onboarding payload is not a valid QR or manual pairing code"),
        (ErrorCause.invalidArgumentValue.rawValue, "an argument has the wrong type or an invalid value"),
        (ErrorCause.unresolvedReference.rawValue, "a ${...} in the arguments has no value, and the state's variables do not change between attempts"),
        (ErrorCause.notBorderRouter.rawValue, "the device is not a border router"),
        (ErrorCause.invalidDataset.rawValue, "the Thread Operational Dataset is malformed or incomplete"),
    ]

    /// An action's retry entry naming an error that the same arguments raise again on every attempt
    /// (`pointlessRetry`, a warning). `"*"` is not flagged (it is meant for errors of every kind), nor is an entry
    /// with `maxRetries` 0 (it keeps such an error from a later entry), nor a workflow state's retry (it runs the
    /// child again, which may read other values from the hub).
    func checkPointlessRetries(_ step: StepBehavior, state: WorkflowState, operation: String) {
        for (index, retrier) in step.retry.enumerated() where retrier.maxRetries > 0 {
            for name in retrier.errors {
                guard let why = Self.neverTransient.first(where: { $0.name == name })?.why else { continue }
                collector.warning(
                    Code.pointlessRetry, at: JSONPointer.appending(index, to: state.pointer + "/retry") + "/errors",
                    "retrying \(name) cannot help: \(why), so every attempt of \(operation) fails the same way and the retries only delay the failure; remove \"\(name)\" from this entry and route it with onError (or give it an entry of its own with \"maxRetries\": 0)")
            }
        }
    }
}
