import MatterFlowJSON

extension RunMachine {
    // A step's guards are checked in order before each attempt. A built-in guard and a custom status guard read
    // the hub's status (one status check each); a custom operation guard calls its `read` operation, as a hub call
    // of the run like any other (reported, journaled, one at a time), and evaluates its condition over the result.

    /// Starts checking guard `index` of the attempt.
    mutating func checkGuard(_ progress: StepProgress, index: Int) -> Continuation {
        let state = progress.state
        switch state.plannedGuards[index] {
        case .status:
            return handOver(
                .checkingGuard(progress, index: index), .checkStatus(GuardCheck(state: state.name, cancellable: !top.onCancelPath)))
        case .operation(let descriptor, let call):
            switch prepare(call, for: state, attempt: progress.attempt, guardName: descriptor.name) {
            case .success(let prepared):
                return handOver(.checkingGuard(progress, index: index), .call(prepared))
            case .failure(let error):
                return guardChecked(progress, index: index, .custom(descriptor.name), guardError(error, descriptor))
            }
        case .missing(let name):
            let error = FlowError(
                .engineMisconfigured, "guard \(name) is neither built in nor in the run's operation catalog; pass the catalog that declares it")
            return guardChecked(progress, index: index, .custom(name), error)
        }
    }

    /// A custom operation guard's call ended: its condition is evaluated over the result, and the guard reported.
    mutating func guardCallEnded(
        _ progress: StepProgress, index: Int, _ descriptor: GuardDescriptor, _ call: PlannedCall,
        _ outcome: RaceOutcome<JSONValue>, duration: Duration
    ) -> Continuation {
        // How the call ended (reported), and the guard's failure: the call's, or the condition's on its result.
        let callError: FlowError?
        let failure: FlowError?
        switch outcome {
        case .finished(let value):
            for field in call.secretResultFields { value[field].map(secrets.add) }
            callError = nil
            failure = conditionFailure(descriptor, value: value)
        case .failed(let error):
            callError = error
            failure = error
        case .timedOut:
            callError = FlowError(
                .actionTimedOut,
                "\(call.name), which guard \(descriptor.name) reads, did not finish within \(call.timeoutSeconds) s; check the hub, or raise the operation's defaultTimeoutSeconds in its catalog")
            failure = callError
        case .cancelled:
            callError = FlowError(.runCancelled, "cancelled while waiting for \(call.name)")
            failure = nil
        }
        if configuration.reportsEvents {
            report(
                top.path,
                .hubCallFinished(
                    state: progress.state.name, operation: call.name, attempt: progress.attempt, duration: duration, error: callError))
        }
        if case .cancelled = outcome { return attemptEnded(progress, .cancelled(late: nil)) }
        return guardChecked(progress, index: index, .custom(descriptor.name), failure)
    }

    /// The error a status-read guard raises for a hub status, or nil when it passes.
    func statusFailure(of statusGuard: StatusGuard, status: HubStatus) -> FlowError? {
        switch statusGuard {
        case .builtIn(let builtIn):
            Self.failure(of: builtIn, status: status, runID: configuration.runID)
        case .custom(let descriptor):
            conditionFailure(descriptor, value: GuardDescriptor.statusValue(status))
        }
    }

    /// The guard's error when its condition does not hold over `value` (bound to the variable the condition reads),
    /// the evaluation's error when it cannot be evaluated, nil when it holds.
    private func conditionFailure(_ descriptor: GuardDescriptor, value: JSONValue) -> FlowError? {
        var scope = Scope(inputs: JSONObject(), run: top.scope.run)
        scope.bind(descriptor.check.conditionVariable, value)
        do {
            return try scope.holds(descriptor.check.condition) ? nil : descriptor.failure
        } catch {
            return guardError(error, descriptor)
        }
    }

    /// An error met while checking a guard (an argument or its condition not resolving), naming the guard.
    private func guardError(_ error: FlowError, _ descriptor: GuardDescriptor) -> FlowError {
        var named = error
        named.message = "guard \(descriptor.name): " + error.message
        return named
    }
}

extension PlannedState {
    /// Guard `index` when it is checked by a status read; nil when it is checked by a call of its operation, or the
    /// state has no such guard.
    func statusGuard(_ index: Int) -> StatusGuard? {
        guard plannedGuards.indices.contains(index), case .status(let statusGuard) = plannedGuards[index] else { return nil }
        return statusGuard
    }
}
