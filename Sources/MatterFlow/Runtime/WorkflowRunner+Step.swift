import MatterFlowJSON

extension WorkflowRunner {
    /// Runs an action or sub-workflow state: guards, then the work, retried by the state's retriers.
    ///
    /// Retry counters belong to this call, so they reset whenever the run leaves the state, as in Amazon States
    /// Language. The first retrier matching the error applies; once its `maxRetries` are used the error is routed.
    @inline(never)
    nonisolated(nonsending) func runStep(
        _ state: PlannedState, scope: Scope, path: [String], race: StepRace, shielded: Bool, record: inout Record
    ) async -> RaceOutcome<JSONValue> {
        var retriesUsed = [Int](repeating: 0, count: state.step?.retry.count ?? 0)
        var attempt = 0
        while true {
            attempt += 1
            let outcome = await attemptStep(
                state, scope: scope, path: path, attempt: attempt, race: race, shielded: shielded, record: &record)
            guard case .failed(let error) = outcome,
                let delay = retryDelay(after: error, state: state, retriesUsed: &retriesUsed, path: path, attempt: attempt)
            else { return outcome }
            guard await race.delay(.seconds(rounding: delay)) else { return .cancelled(late: nil) }
        }
    }

    /// The delay before retrying after an error, counting the retry; nil when no retrier allows one.
    @inline(never)
    private func retryDelay(
        after error: FlowError, state: PlannedState, retriesUsed: inout [Int], path: [String], attempt: Int
    ) -> Double? {
        guard let step = state.step else { return nil }
        guard let index = step.retry.firstIndex(where: { $0.errors.contains(where: error.matches) }),
            retriesUsed[index] < step.retry[index].maxRetries
        else { return nil }
        retriesUsed[index] += 1
        let retrier = step.retry[index]
        var delay = retrier.delay(beforeRetry: retriesUsed[index])
        if retrier.jitter { delay *= options.random.fraction() }
        emit(path, .retryScheduled(state: state.name, attempt: attempt + 1, delaySeconds: delay, error: error))
        return delay
    }

    private nonisolated(nonsending) func attemptStep(
        _ state: PlannedState, scope: Scope, path: [String], attempt: Int, race: StepRace, shielded: Bool,
        record: inout Record
    ) async -> RaceOutcome<JSONValue> {
        // Each kind runs in its own function, so a run's suspended frames hold only what the kind needs.
        if state.isSubworkflow {
            return await attemptSubworkflow(state, scope: scope, path: path, race: race, shielded: shielded, record: &record)
        }
        return await attemptAction(state, scope: scope, path: path, attempt: attempt, race: race)
    }

    @inline(never)
    private nonisolated(nonsending) func attemptAction(
        _ state: PlannedState, scope: Scope, path: [String], attempt: Int, race: StepRace
    ) async -> RaceOutcome<JSONValue> {
        if let failure = await checkGuards(state.guards, state: state.name, path: path, race: race) {
            return failure
        }
        return await callOperation(state, scope: scope, path: path, attempt: attempt, race: race)
    }

    @inline(never)
    private nonisolated(nonsending) func attemptSubworkflow(
        _ state: PlannedState, scope: Scope, path: [String], race: StepRace, shielded: Bool, record: inout Record
    ) async -> RaceOutcome<JSONValue> {
        let child: ExecutionPlan
        let inputs: JSONObject
        if let restoring = state.child, resume?.expects(path: restoring.path) == true {
            // Resuming into the child: its guards passed before the run stopped, and its inputs come from its
            // checkpoint; those evaluated here only fill what the checkpoint lacks.
            (child, inputs) = (restoring, availableInputs(state, scope: scope))
        } else {
            if let failure = await checkGuards(state.guards, state: state.name, path: path, race: race) {
                return failure
            }
            switch childInputs(state, scope: scope) {
            case .success(let resolved): (child, inputs) = resolved
            case .failure(let error): return .failed(error)
            }
        }
        let end = await execute(child, inputs: inputs, shielded: shielded, record: &record)
        switch end {
        case .succeeded(let output): return .finished(output ?? .null)
        case .failed(let error): return .failed(error)
        case .cancelled: return .cancelled(late: nil)
        }
    }

    /// A sub-workflow's inputs, evaluated in the parent's scope and checked against the child's declarations.
    @inline(never)
    private func childInputs(_ state: PlannedState, scope: Scope) -> Result<(ExecutionPlan, JSONObject), FlowError> {
        guard case .workflow(let subworkflow) = state.state.kind else { preconditionFailure("not a sub-workflow state") }
        guard let child = state.child else {
            return .failure(FlowError(.hubFailure, "sub-workflow \(subworkflow.path) was not loaded"))
        }
        var given = JSONObject()
        do throws(FlowError) {
            for (name, template) in subworkflow.inputs { given[name] = try scope.evaluate(template) }
        } catch {
            return .failure(error)
        }
        do {
            return .success((child, try child.resolveInputs(given, source: subworkflow.path)))
        } catch {
            let message = error.diagnostics.map(\.message).joined(separator: "; ")
            return .failure(FlowError(.invalidArgumentValue, "inputs of \(subworkflow.path): \(message)"))
        }
    }

    /// The sub-workflow inputs that still evaluate in the parent's scope (for a level being restored).
    private func availableInputs(_ state: PlannedState, scope: Scope) -> JSONObject {
        guard case .workflow(let subworkflow) = state.state.kind else { return [:] }
        var given = JSONObject()
        for (name, template) in subworkflow.inputs {
            if let value = try? scope.evaluate(template) { given[name] = value }
        }
        return given
    }

    /// Arguments as events show them: secret arguments redacted unless the run shows secrets.
    private func shown(_ arguments: JSONObject, of operation: OperationDescriptor) -> JSONObject {
        guard !options.showSecrets else { return arguments }
        var shown = arguments
        for argument in operation.arguments where argument.secret && shown[argument.name] != nil {
            shown[argument.name] = .string(RunOptions.redacted)
        }
        return shown
    }

    /// Checks guards in order; returns the first failure, or nil when all pass.
    @inline(never)
    private nonisolated(nonsending) func checkGuards(_ guards: [Guard], state: String, path: [String], race: StepRace) async -> RaceOutcome<JSONValue>? {
        let hub = self.hub
        let structure = options.structureID
        for guardName in guards {
            let outcome: RaceOutcome<HubStatus> = await race.run(timeout: StepRace.guardTimeout) {
                try await hub.status(structure: structure)
            }
            if let failure = guardChecked(guardName, outcome, state: state, path: path) { return failure }
        }
        return nil
    }

    /// Reports a guard's check; returns how the step ends when the guard did not pass, nil when it did.
    @inline(never)
    private func guardChecked(
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
    private struct HubCall: Sendable {
        var operation: String
        var timeoutSeconds: Double
        var secretResultFields: Set<String>
        var started: Duration
        var work: StepRace.Work
    }

    // The call is prepared and finished in synchronous functions that are never inlined, so the run's suspended
    // frame holds only the call, not every temporary of its arguments, events and errors.
    @inline(never)
    private nonisolated(nonsending) func callOperation(
        _ state: PlannedState, scope: Scope, path: [String], attempt: Int, race: StepRace
    ) async -> RaceOutcome<JSONValue> {
        let call: HubCall
        switch prepareCall(state, scope: scope, path: path, attempt: attempt) {
        case .success(let prepared): call = prepared
        case .failure(let error): return .failed(error)
        }
        let outcome: RaceOutcome<JSONValue> = await race.run(timeout: .seconds(rounding: call.timeoutSeconds), call.work)
        return finishCall(call, outcome, state: state.name, path: path, attempt: attempt)
    }

    @inline(never)
    private func prepareCall(
        _ planned: PlannedState, scope: Scope, path: [String], attempt: Int
    ) -> Result<HubCall, FlowError> {
        guard case .action(let action) = planned.state.kind else { preconditionFailure("not an action state") }
        let state = planned.name
        guard let operation = planned.operation else {
            return .failure(FlowError(.hubFailure, "operation \(action.operation) is not in the catalog"))
        }
        var arguments = JSONObject()
        do throws(FlowError) {
            for (name, template) in action.arguments {
                let value = try scope.evaluate(template)
                if !value.isNull { arguments[name] = value }
            }
        } catch {
            return .failure(error)
        }
        for argument in operation.arguments where argument.secret {
            arguments[argument.name].map(secrets.add)
        }
        emit(path, .hubCallStarted(state: state, operation: operation.name, attempt: attempt, arguments: shown(arguments, of: operation)))
        let hub = self.hub
        let structure = options.structureID
        let callArguments = arguments
        return .success(
            HubCall(
                operation: operation.name, timeoutSeconds: action.timeoutSeconds ?? operation.defaultTimeoutSeconds,
                secretResultFields: operation.secretResultFields,
                // The clock is read only for the events' durations.
                started: options.observer == nil ? .zero : options.clock.now,
                work: { try await planned.callOperation(hub: hub, structure: structure, arguments: callArguments) }))
    }

    @inline(never)
    private func finishCall(
        _ call: HubCall, _ outcome: RaceOutcome<JSONValue>, state: String, path: [String], attempt: Int
    ) -> RaceOutcome<JSONValue> {
        let duration = options.observer == nil ? .zero : options.clock.now - call.started
        switch outcome {
        case .finished(let value):
            for field in call.secretResultFields { value[field].map(secrets.add) }
            emit(path, .hubCallFinished(state: state, operation: call.operation, attempt: attempt, duration: duration, error: nil))
            return outcome
        case .failed(let error):
            emit(path, .hubCallFinished(state: state, operation: call.operation, attempt: attempt, duration: duration, error: error))
            return outcome
        case .timedOut:
            let error = FlowError(
                .actionTimedOut,
                "\(call.operation) did not finish within \(call.timeoutSeconds) s; raise \"timeoutSeconds\" on the state if the hub is slow")
            emit(path, .hubCallFinished(state: state, operation: call.operation, attempt: attempt, duration: duration, error: error))
            return .failed(error)
        case .cancelled(let late):
            let error = late == nil ? FlowError(.runCancelled, "cancelled while waiting for \(call.operation)") : nil
            emit(path, .hubCallFinished(state: state, operation: call.operation, attempt: attempt, duration: duration, error: error))
            return outcome
        }
    }
}
