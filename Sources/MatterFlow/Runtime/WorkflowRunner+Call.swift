import MatterFlowJSON

extension WorkflowRunner {
    /// A sub-workflow's inputs, evaluated in the parent's scope and checked against the child's declarations.
    @inline(never)
    func childInputs(_ state: PlannedState, scope: Scope) -> Result<(ExecutionPlan, JSONObject), FlowError> {
        guard let child = state.child else {
            guard case .workflow(let subworkflow) = state.state.kind else { preconditionFailure("not a sub-workflow state") }
            return .failure(FlowError(.engineMisconfigured, "sub-workflow \(subworkflow.path) was not loaded"))
        }
        var given = JSONObject()
        given.reserveCapacity(state.childInputs.count)
        do throws(FlowError) {
            for (name, template) in state.childInputs { given[name] = try scope.evaluate(template) }
        } catch {
            return .failure(error)
        }
        do {
            return .success((child, try child.resolveInputs(given, source: state.childPath)))
        } catch {
            let message = error.diagnostics.map(\.message).joined(separator: "; ")
            return .failure(FlowError(.invalidArgumentValue, "inputs of \(state.childPath): \(message)"))
        }
    }

    /// The sub-workflow inputs that still evaluate in the parent's scope (for a level being restored).
    func availableInputs(_ state: PlannedState, scope: Scope) -> JSONObject {
        var given = JSONObject()
        for (name, template) in state.childInputs {
            if let value = try? scope.evaluate(template) { given[name] = value }
        }
        return given
    }

    /// Arguments as events show them: secret arguments redacted unless the run shows secrets.
    private func shown(_ arguments: JSONObject, of call: PlannedCall) -> JSONObject {
        guard !options.showSecrets else { return arguments }
        var shown = arguments
        for name in call.secretArguments where shown[name] != nil {
            shown[name] = .string(RunOptions.redacted)
        }
        return shown
    }

    /// Reports a guard's check; returns how the step ends when the guard did not pass, nil when it did.
    @inline(never)
    func guardChecked(
        _ guardName: Guard, _ outcome: RaceOutcome<HubStatus>, state: String, path: [String]
    ) -> RaceOutcome<JSONValue>? {
        let failure: FlowError?
        switch outcome {
        case .finished(let status): failure = Self.failure(of: guardName, status: status)
        case .failed(let error): failure = error
        case .timedOut: failure = FlowError(.actionTimedOut, "the hub did not report its status within \(Int(TimeBudget.guardTimeoutSeconds)) s for guard \(guardName.rawValue)")
        case .cancelled: return .cancelled(late: nil)
        }
        emit(path, .guardChecked(state: state, guard: guardName, error: failure))
        if let failure { return .failed(failure) }
        return nil
    }

    /// The error a guard raises for a hub status, or nil when it passes.
    static func failure(of guardName: Guard, status: HubStatus) -> FlowError? {
        switch guardName {
        case .permission:
            return status.permissionGranted
                ? nil : FlowError(.permissionNotGranted, "the user has not granted access to this structure; ask them to grant it in the app's permission settings")
        case .hubReachable:
            if !status.online { return FlowError(.hubOffline, "the hub is offline; check its power and network, then retry") }
            if !status.reachable { return FlowError(.hubUnreachable, "the hub is online but not reachable from here; check the local network") }
            return nil
        case .noActiveSession:
            return status.activeSession
                ? FlowError(.sessionBusy, "another commissioning session is active on this structure; cancel it or wait for it to finish") : nil
        }
    }

    /// A hub call ready to start, and what its end needs.
    struct HubCall: Sendable {
        var plan: PlannedCall
        var started: Duration
        /// The evaluated arguments.
        var arguments: JSONObject
    }

    /// The idempotency key a call gets when its state passes none: the run's ID (drawn from the run's random source
    /// unless given) and the state's qualified name. Two runs never share one; the same state of the same run
    /// always gets the same one, so a run that recovery resumes repeats an interrupted attempt under its own key
    /// (the key is in the call's journaled arguments too).
    func generatedKey(for planned: PlannedState) -> String {
        runID + "/" + planned.qualifiedName
    }

    // The call is prepared and finished in synchronous functions that are never inlined, so the run's suspended
    // frame holds only the call, not every temporary of its arguments, events and errors.
    @inline(never)
    func prepareCall(
        _ planned: PlannedState, scope: Scope, path: [String], attempt: Int
    ) -> Result<HubCall, FlowError> {
        guard let call = planned.call else {
            guard case .action(let action) = planned.state.kind else { preconditionFailure("not an action state") }
            return .failure(FlowError(.engineMisconfigured, "operation \(action.operation) is not in the catalog"))
        }
        var arguments = JSONObject()
        arguments.reserveCapacity(call.arguments.count)
        do throws(FlowError) {
            for (name, template) in call.arguments {
                let value = try scope.evaluate(template)
                if !value.isNull { arguments[name] = value }
            }
        } catch {
            return .failure(error)
        }
        for name in call.secretArguments {
            arguments[name].map(secrets.add)
        }
        if let key = call.operation.idempotencyKey, arguments[key] == nil {
            arguments[key] = .string(generatedKey(for: planned))
        }
        emit(path, .hubCallStarted(state: planned.name, operation: call.name, attempt: attempt, arguments: shown(arguments, of: call)))
        return .success(
            HubCall(
                plan: call,
                // The clock is read only for the events' durations.
                started: options.observer == nil ? .zero : options.clock.now,
                arguments: arguments))
    }

    @inline(never)
    func finishCall(
        _ call: HubCall, _ outcome: RaceOutcome<JSONValue>, state: String, path: [String], attempt: Int
    ) -> RaceOutcome<JSONValue> {
        let duration = options.observer == nil ? .zero : options.clock.now - call.started
        switch outcome {
        case .finished(let value):
            for field in call.plan.secretResultFields { value[field].map(secrets.add) }
            emit(path, .hubCallFinished(state: state, operation: call.plan.name, attempt: attempt, duration: duration, error: nil))
            return outcome
        case .failed(let error):
            emit(path, .hubCallFinished(state: state, operation: call.plan.name, attempt: attempt, duration: duration, error: error))
            return outcome
        case .timedOut:
            let error = FlowError(
                .actionTimedOut,
                "\(call.plan.name) did not finish within \(call.plan.timeoutSeconds) s; raise \"timeoutSeconds\" on the state if the hub is slow")
            emit(path, .hubCallFinished(state: state, operation: call.plan.name, attempt: attempt, duration: duration, error: error))
            return .failed(error)
        case .cancelled(let late):
            let error = late == nil ? FlowError(.runCancelled, "cancelled while waiting for \(call.plan.name)") : nil
            emit(path, .hubCallFinished(state: state, operation: call.plan.name, attempt: attempt, duration: duration, error: error))
            return outcome
        }
    }
}
