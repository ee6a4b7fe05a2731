import MatterFlowJSON

extension WorkflowRunner {
    /// Runs an action or sub-workflow state: guards, then the work, retried by the state's retriers.
    ///
    /// Retry counters belong to this call, so they reset whenever the run leaves the state, as in Amazon States
    /// Language. The first retrier matching the error applies; once its `maxRetries` are used the error is routed.
    func runStep(
        _ state: WorkflowState, workflow: Workflow, step: StepBehavior, scope: Scope, path: [String],
        statePrefix: String, race: StepRace, shielded: Bool, record: inout Record
    ) async -> RaceOutcome<JSONValue> {
        var retriesUsed = [Int](repeating: 0, count: step.retry.count)
        var attempt = 0
        while true {
            attempt += 1
            let outcome = await attemptStep(
                state, workflow: workflow, scope: scope, path: path, statePrefix: statePrefix, attempt: attempt,
                race: race, shielded: shielded, record: &record)
            guard case .failed(let error) = outcome else { return outcome }
            guard let index = step.retry.firstIndex(where: { $0.errors.contains(where: error.matches) }),
                retriesUsed[index] < step.retry[index].maxRetries
            else { return outcome }
            retriesUsed[index] += 1
            let retrier = step.retry[index]
            var delay = retrier.delay(beforeRetry: retriesUsed[index])
            if retrier.jitter { delay *= options.random.fraction() }
            emit(path, .retryScheduled(state: state.name, attempt: attempt + 1, delaySeconds: delay, error: error))
            guard await race.delay(.seconds(rounding: delay)) else { return .cancelled(late: nil) }
        }
    }

    private func attemptStep(
        _ state: WorkflowState, workflow: Workflow, scope: Scope, path: [String], statePrefix: String, attempt: Int,
        race: StepRace, shielded: Bool, record: inout Record
    ) async -> RaceOutcome<JSONValue> {
        // Each kind runs in its own function, so a run's suspended frames hold only what the kind needs.
        switch state.kind {
        case .action(let action):
            return await attemptAction(action, state: state.name, scope: scope, path: path, attempt: attempt, race: race)
        case .workflow(let subworkflow):
            return await attemptSubworkflow(
                subworkflow, state: state.name, workflow: workflow, scope: scope, path: path, statePrefix: statePrefix,
                race: race, shielded: shielded, record: &record)
        case .choice, .assign, .wait, .succeed, .fail:
            preconditionFailure("only action and workflow states are steps")
        }
    }

    private func attemptAction(
        _ action: ActionState, state: String, scope: Scope, path: [String], attempt: Int, race: StepRace
    ) async -> RaceOutcome<JSONValue> {
        if let failure = await checkGuards(action.step.guards, state: state, path: path, race: race) {
            return failure
        }
        return await callOperation(action, state: state, scope: scope, path: path, attempt: attempt, race: race)
    }

    private func attemptSubworkflow(
        _ subworkflow: SubworkflowState, state: String, workflow: Workflow, scope: Scope, path: [String],
        statePrefix: String, race: StepRace, shielded: Bool, record: inout Record
    ) async -> RaceOutcome<JSONValue> {
        guard let child = workflow.subworkflows[subworkflow.path] else {
            return .failed(FlowError(.hubFailure, "sub-workflow \(subworkflow.path) was not loaded"))
        }
        let inputs: JSONObject
        if resume?.expects(path: path + [child.name]) == true {
            // Resuming into the child: its guards passed before the run stopped, and its inputs come from its
            // checkpoint; those evaluated here only fill what the checkpoint lacks.
            inputs = availableInputs(subworkflow, scope: scope)
        } else {
            if let failure = await checkGuards(subworkflow.step.guards, state: state, path: path, race: race) {
                return failure
            }
            switch childInputs(subworkflow, child: child, scope: scope) {
            case .success(let resolved): inputs = resolved
            case .failure(let error): return .failed(error)
            }
        }
        let end = await execute(
            child, inputs: inputs, path: path + [child.name], statePrefix: statePrefix + state + "/", shielded: shielded,
            record: &record)
        switch end {
        case .succeeded(let output): return .finished(output ?? .null)
        case .failed(let error): return .failed(error)
        case .cancelled: return .cancelled(late: nil)
        }
    }

    /// A sub-workflow's inputs, evaluated in the parent's scope and checked against the child's declarations.
    private func childInputs(_ subworkflow: SubworkflowState, child: Workflow, scope: Scope) -> Result<JSONObject, FlowError> {
        var given = JSONObject()
        do throws(FlowError) {
            for (name, template) in subworkflow.inputs { given[name] = try scope.evaluate(template) }
        } catch {
            return .failure(error)
        }
        do {
            return .success(try child.resolveInputs(given, source: subworkflow.path))
        } catch {
            let message = error.diagnostics.map(\.message).joined(separator: "; ")
            return .failure(FlowError(.invalidArgumentValue, "inputs of \(subworkflow.path): \(message)"))
        }
    }

    /// The sub-workflow inputs that still evaluate in the parent's scope (for a level being restored).
    private func availableInputs(_ subworkflow: SubworkflowState, scope: Scope) -> JSONObject {
        var given = JSONObject()
        for (name, template) in subworkflow.inputs {
            if let value = try? scope.evaluate(template) { given[name] = value }
        }
        return given
    }

    /// Checks guards in order; returns the first failure, or nil when all pass.
    private func checkGuards(_ guards: [Guard], state: String, path: [String], race: StepRace) async -> RaceOutcome<JSONValue>? {
        let hub = self.hub
        let structure = options.structureID
        for guardName in guards {
            let outcome = await race.run(timeout: StepRace.guardTimeout) { try await hub.status(structure: structure) }
            let failure: FlowError?
            switch outcome {
            case .finished(let status): failure = Self.failure(of: guardName, status: status)
            case .failed(let error): failure = error
            case .timedOut: failure = FlowError(.actionTimedOut, "the hub did not report its status within \(Int(TimeBudget.guardTimeoutSeconds)) s for guard \(guardName.rawValue)")
            case .cancelled: return .cancelled(late: nil)
            }
            emit(path, .guardChecked(state: state, guard: guardName, error: failure))
            if let failure { return .failed(failure) }
        }
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

    private func callOperation(
        _ action: ActionState, state: String, scope: Scope, path: [String], attempt: Int, race: StepRace
    ) async -> RaceOutcome<JSONValue> {
        guard let operation = catalog[action.operation] else {
            return .failed(FlowError(.hubFailure, "operation \(action.operation) is not in the catalog"))
        }
        var arguments = JSONObject()
        do throws(FlowError) {
            for (name, template) in action.arguments {
                let value = try scope.evaluate(template)
                if !value.isNull { arguments[name] = value }
            }
        } catch {
            return .failed(error)
        }
        var shown = arguments
        for name in operation.secretArguments {
            guard let value = shown[name] else { continue }
            secrets.add(value)
            if !options.showSecrets { shown[name] = .string(RunOptions.redacted) }
        }
        emit(path, .hubCallStarted(state: state, operation: operation.name, attempt: attempt, arguments: shown))
        let started = options.clock.now
        let timeoutSeconds = action.timeoutSeconds ?? operation.defaultTimeoutSeconds
        let hub = self.hub
        let structure = options.structureID
        let callArguments = arguments
        let outcome = await race.run(timeout: .seconds(rounding: timeoutSeconds)) {
            try await operation.call(hub: hub, structure: structure, arguments: callArguments)
        }
        let duration = options.clock.now - started
        switch outcome {
        case .finished(let value):
            for field in operation.secretResultFields { value[field].map(secrets.add) }
            emit(path, .hubCallFinished(state: state, operation: operation.name, attempt: attempt, duration: duration, error: nil))
            return outcome
        case .failed(let error):
            emit(path, .hubCallFinished(state: state, operation: operation.name, attempt: attempt, duration: duration, error: error))
            return outcome
        case .timedOut:
            let error = FlowError(
                .actionTimedOut,
                "\(operation.name) did not finish within \(timeoutSeconds) s; raise \"timeoutSeconds\" on the state if the hub is slow")
            emit(path, .hubCallFinished(state: state, operation: operation.name, attempt: attempt, duration: duration, error: error))
            return .failed(error)
        case .cancelled(let late):
            let error = late == nil ? FlowError(.runCancelled, "cancelled while waiting for \(operation.name)") : nil
            emit(path, .hubCallFinished(state: state, operation: operation.name, attempt: attempt, duration: duration, error: error))
            return outcome
        }
    }
}
