import MatterFlowJSON

/// Executes one run: walks the state machine, calls the hub, applies guards, retries and error routes, runs
/// sub-workflows, and takes the cancel path when the run is cancelled.
struct WorkflowRunner: Sendable {
    let hub: any Hub
    let catalog: OperationCatalog
    let options: RunOptions
    let runID: String
    let signal: CancellationSignal
    /// Secret values seen so far (secret inputs and arguments), kept out of events, warnings and error messages.
    let secrets: SecretValues
    /// Hub events received and not yet consumed by a wait state.
    let inbox: EventInbox

    /// How one workflow level ended.
    enum LevelEnd: Sendable {
        case succeeded(JSONValue?)
        case failed(FlowError)
        /// Cancelled; the error explains where and what the cancel path did.
        case cancelled(FlowError)
    }

    /// What a run accumulates for its result.
    struct Record: Sendable {
        var warnings: [String] = []
        var visited: [String] = []
        /// The innermost state the run was in when it was cancelled.
        var cancelledState: String?
    }

    func emit(_ path: [String], _ kind: RunEvent.Kind) {
        guard let observer = options.observer else { return }
        let shown = options.showSecrets ? kind : secrets.redacting(kind)
        observer(RunEvent(runID: runID, time: options.clock.now, workflowPath: path, kind: shown))
    }

    /// Runs a workflow level with resolved inputs.
    func execute(
        _ workflow: Workflow, inputs: JSONObject, path: [String], statePrefix: String, shielded: Bool, record: inout Record
    ) async -> LevelEnd {
        var scope = Scope(
            inputs: inputs, run: ["id": .string(runID), "workflow": .string(workflow.name), "structureID": .string(options.structureID)])
        var current = workflow.start
        var cancelledIn: String?
        let race = StepRace(clock: options.clock, signal: shielded ? nil : signal)
        let shieldedRace = StepRace(clock: options.clock, signal: nil)

        while true {
            guard let state = workflow.states[current] else {
                return .failed(FlowError(.hubFailure, "state \"\(current)\" does not exist (the workflow was not validated)"))
            }
            record.visited.append(statePrefix + current)
            emit(path, .stateEntered(state: current, type: state.kind.typeName))
            let onCancelPath = cancelledIn != nil || shielded

            // A cancel that arrived between states takes effect before the state does any work.
            if !onCancelPath, signal.isCancelled, !state.isTerminal {
                if record.cancelledState == nil { record.cancelledState = statePrefix + current }
                if let next = takeCancel(workflow, from: current, qualified: statePrefix + current, path: path, scope: &scope, cancelledIn: &cancelledIn) {
                    current = next
                    continue
                }
                return .cancelled(cancelError(in: record.cancelledState ?? statePrefix + current, path: nil))
            }

            switch state.kind {
            case .succeed(let succeed):
                let output: JSONValue?
                do throws(FlowError) {
                    output = try succeed.output.map { template throws(FlowError) in try scope.evaluate(template) }
                } catch {
                    return finish(.failed(located(error, statePrefix + current)), cancelledIn: cancelledIn == nil ? nil : record.cancelledState, ended: current)
                }
                return finish(.succeeded(output), cancelledIn: cancelledIn == nil ? nil : record.cancelledState, ended: current)

            case .fail(let fail):
                return finish(.failed(raise(fail, scope: scope, state: statePrefix + current)), cancelledIn: cancelledIn == nil ? nil : record.cancelledState, ended: current)

            case .choice(let choice):
                do throws(FlowError) {
                    var target = choice.defaultNext
                    var edge = WorkflowEdge.Kind.choiceDefault
                    for (index, branch) in choice.branches.enumerated() where try scope.holds(branch.condition) {
                        target = branch.next
                        edge = .choice(index)
                        break
                    }
                    emit(path, .transition(from: current, to: target, edge: edge))
                    current = target
                } catch {
                    return finish(.failed(located(error, statePrefix + current)), cancelledIn: cancelledIn == nil ? nil : record.cancelledState, ended: current)
                }

            case .assign(let assign):
                do throws(FlowError) {
                    var values: [(String, JSONValue)] = []
                    for (name, template) in assign.assignments { values.append((name, try scope.evaluate(template))) }
                    for (name, value) in values { scope.vars[name] = value }
                    if let warning = assign.warning {
                        let message = try scope.evaluate(warning)
                        let text = message.stringValue ?? JSONWriter.compact(message)
                        record.warnings.append(text)
                        emit(path, .warning(state: current, message: text))
                    }
                    emit(path, .transition(from: current, to: assign.next, edge: .next))
                    current = assign.next
                } catch {
                    return finish(.failed(located(error, statePrefix + current)), cancelledIn: cancelledIn == nil ? nil : record.cancelledState, ended: current)
                }

            case .wait(let wait):
                let matching: [(String, JSONValue)]
                do throws(FlowError) {
                    var pairs: [(String, JSONValue)] = []
                    for (name, template) in wait.match { pairs.append((name, try scope.evaluate(template))) }
                    matching = pairs
                } catch {
                    return finish(.failed(located(error, statePrefix + current)), cancelledIn: cancelledIn == nil ? nil : record.cancelledState, ended: current)
                }
                let eventName = wait.event
                emit(path, .waitStarted(state: current, event: eventName, timeoutSeconds: wait.timeoutSeconds))
                let outcome = await inbox.wait(
                    for: { event in
                        event.name == eventName && matching.allSatisfy { name, value in event.fields[name].map { Scope.equal($0, value) } ?? false }
                    },
                    timeout: .milliseconds(Int64((wait.timeoutSeconds * 1000).rounded())), clock: options.clock,
                    signal: onCancelPath ? nil : signal)
                switch outcome {
                case .finished(let event):
                    emit(path, .eventReceived(state: current, event: event.name, value: event.value, fields: event.fields))
                    if let result = wait.result { scope.vars[result] = .object(event.fields) }
                    let branch = wait.branches.first { $0.value == event.value }
                    let target = branch?.next ?? wait.otherwise ?? wait.onTimeout
                    emit(path, .transition(from: current, to: target, edge: branch == nil ? .eventOtherwise : .event(event.value)))
                    current = target
                case .timedOut, .failed:
                    emit(path, .transition(from: current, to: wait.onTimeout, edge: .timeout))
                    current = wait.onTimeout
                case .cancelled:
                    if record.cancelledState == nil { record.cancelledState = statePrefix + current }
                    if let next = takeCancel(workflow, from: current, qualified: statePrefix + current, path: path, scope: &scope, cancelledIn: &cancelledIn) {
                        current = next
                        continue
                    }
                    return .cancelled(cancelError(in: record.cancelledState ?? statePrefix + current, path: nil))
                }

            case .action, .workflow:
                let step: StepBehavior
                switch state.kind {
                case .action(let action): step = action.step
                case .workflow(let subworkflow): step = subworkflow.step
                case .choice, .assign, .wait, .succeed, .fail: preconditionFailure("only action and workflow states are steps")
                }
                let outcome = await runStep(
                    state, workflow: workflow, step: step, scope: scope, path: path, statePrefix: statePrefix,
                    race: onCancelPath ? shieldedRace : race, shielded: onCancelPath, record: &record)
                switch outcome {
                case .finished(let value):
                    if let result = step.result { scope.vars[result] = value }
                    emit(path, .transition(from: current, to: step.next, edge: .next))
                    current = step.next
                case .failed(let error):
                    let located = located(error, statePrefix + current)
                    guard let (index, route) = step.onError.enumerated().first(where: { $0.element.errors.contains(where: located.matches) }) else {
                        return finish(.failed(located), cancelledIn: cancelledIn == nil ? nil : record.cancelledState, ended: current)
                    }
                    scope.error = located
                    emit(path, .transition(from: current, to: route.next, edge: .error(index, route.errors)))
                    current = route.next
                case .timedOut:
                    preconditionFailure("runStep reports timeouts as deadlineExceeded errors")
                case .cancelled(let late):
                    // A call that still succeeded while the run was being cancelled did its work on the hub: keep its
                    // result, so the cancel path can tell what to release.
                    if let late, let result = step.result { scope.vars[result] = late }
                    if record.cancelledState == nil { record.cancelledState = statePrefix + current }
                if let next = takeCancel(workflow, from: current, qualified: statePrefix + current, path: path, scope: &scope, cancelledIn: &cancelledIn) {
                        current = next
                        continue
                    }
                    return .cancelled(cancelError(in: record.cancelledState ?? statePrefix + current, path: nil))
                }
            }
        }
    }

    /// Moves a cancelled level onto its cancel path; nil when it declares none.
    private func takeCancel(
        _ workflow: Workflow, from state: String, qualified: String, path: [String], scope: inout Scope,
        cancelledIn: inout String?
    ) -> String? {
        emit(path, .cancelRequested(state: state))
        cancelledIn = state
        guard let onCancel = workflow.onCancel else { return nil }
        scope.error = FlowError(
            code: .cancelled, cause: .runCancelled, message: "the run was cancelled in state \(qualified)", state: qualified)
        emit(path, .transition(from: state, to: onCancel, edge: .cancel))
        return onCancel
    }

    private func cancelError(in state: String, path: String?) -> FlowError {
        var message = "the run was cancelled in state \(state)"
        if let path { message += "; \(path)" }
        return FlowError(code: .cancelled, cause: .runCancelled, message: message, state: state)
    }

    /// Ends a level, turning the end of a cancel path into a cancelled outcome.
    private func finish(_ end: LevelEnd, cancelledIn: String?, ended: String) -> LevelEnd {
        guard let cancelledIn else { return end }
        switch end {
        case .succeeded:
            return .cancelled(cancelError(in: cancelledIn, path: "the cancel path ended in \(ended)"))
        case .failed(let error) where error.code == .cancelled:
            // The cancel path ended in its own `cancelled` fail state, as cancel paths usually do.
            return .cancelled(cancelError(in: cancelledIn, path: error.message))
        case .failed(let error):
            return .cancelled(cancelError(in: cancelledIn, path: "the cancel path failed in \(ended): \(error)"))
        case .cancelled:
            return end
        }
    }

    private func located(_ error: FlowError, _ state: String) -> FlowError {
        var copy = error
        if copy.state == nil { copy.state = state }
        return copy
    }

    private func raise(_ fail: FailState, scope: Scope, state: String) -> FlowError {
        do {
            switch fail.raise {
            case .rethrow(let template):
                let value = try scope.evaluate(template)
                guard let object = value.objectValue, let code = object["code"]?.stringValue.flatMap(ErrorCode.init(rawValue:)) else {
                    return FlowError(code: .internal, cause: .malformedError, message: "the fail state's \"error\" is not an error value", state: state)
                }
                return FlowError(
                    code: code, cause: ErrorCause(rawValue: object["cause"]?.stringValue ?? ErrorCause.workflowFailed.rawValue),
                    message: object["message"]?.stringValue ?? "", state: object["state"]?.stringValue ?? state)
            case .new(let codeTemplate, let causeTemplate, let messageTemplate):
                let codeText = try scope.evaluate(codeTemplate).stringValue ?? ""
                guard let code = ErrorCode(rawValue: codeText) else {
                    return FlowError(code: .internal, cause: .malformedError, message: "the fail state's code \"\(codeText)\" is not a canonical code", state: state)
                }
                let cause = try causeTemplate.map { template throws(FlowError) in try scope.evaluate(template).stringValue ?? "" }
                let message = try scope.evaluate(messageTemplate)
                return FlowError(
                    code: code, cause: ErrorCause(rawValue: cause ?? ErrorCause.workflowFailed.rawValue),
                    message: message.stringValue ?? JSONWriter.compact(message), state: state)
            }
        } catch {
            var copy = error
            copy.state = state
            return copy
        }
    }
}
