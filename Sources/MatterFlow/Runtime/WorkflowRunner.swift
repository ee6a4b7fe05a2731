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
    /// What is left to restore when the run resumes from a ``ResumePoint``; nil for a fresh run.
    var resume: ResumeCursor? = nil

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

    /// A workflow level in progress: where it is, what it has bound, and whether it is on its cancel path.
    struct Level {
        let workflow: Workflow
        let path: [String]
        /// The qualification of this level's states (`parent/`), empty at the top.
        let prefix: String
        /// Runs inside a cancel path: never cancelled again.
        let shielded: Bool
        var scope: Scope
        var current: String
        /// The state this level was cancelled in, once it is on its cancel path.
        var cancelledIn: String?

        var onCancelPath: Bool { cancelledIn != nil || shielded }
        var qualifiedCurrent: String { prefix + current }
    }

    /// Where a state sends its level.
    enum Move {
        /// On to the next state.
        case to(String)
        /// The level ends (a terminal state, or an error nothing routes).
        case end(LevelEnd)
        /// The run was cancelled while in the state.
        case cancel
    }

    /// Runs a workflow level with resolved inputs.
    func execute(
        _ workflow: Workflow, inputs: JSONObject, path: [String], statePrefix: String, shielded: Bool, record: inout Record
    ) async -> LevelEnd {
        let run: JSONObject = ["id": .string(runID), "workflow": .string(workflow.name), "structureID": .string(options.structureID)]
        var level = Level(
            workflow: workflow, path: path, prefix: statePrefix, shielded: shielded, scope: Scope(inputs: inputs, run: run),
            current: workflow.start)
        var restoring = restore(&level)
        while true {
            guard let state = workflow.states[level.current] else {
                return .failed(FlowError(.hubFailure, "state \"\(level.current)\" does not exist (the workflow was not validated)"))
            }
            record.visited.append(level.qualifiedCurrent)
            emit(path, .stateEntered(state: level.current, type: state.kind.typeName))
            options.checkpoints?(checkpoint(level))

            // A restored level re-enters its state; one that leads to a deeper restored level must descend
            // before anything else, so that the innermost level is the first to act (or to take its cancel path).
            let descending = restoring && resume?.descending == true
            let completed = restoring && !descending ? resume?.takeCompletedStep() : nil
            restoring = false
            let move: Move
            if let completed, let step = state.kind.step {
                move = finishRestored(step, result: completed, &level)
            } else if !descending, !level.onCancelPath, signal.isCancelled, !state.isTerminal {
                // A cancel that arrived between states takes effect before the state does any work.
                move = .cancel
            } else {
                switch state.kind {
                case .succeed(let succeed): move = self.succeed(succeed, level)
                case .fail(let fail): move = .end(.failed(raise(fail, scope: level.scope, state: level.qualifiedCurrent)))
                case .choice(let choice): move = choose(choice, level)
                case .assign(let assign): move = self.assign(assign, &level, &record)
                case .wait(let wait): move = await self.wait(wait, &level)
                case .action(let action): move = await step(state, action.step, &level, &record)
                case .workflow(let subworkflow): move = await step(state, subworkflow.step, &level, &record)
                }
            }

            switch move {
            case .to(let next):
                level.current = next
            case .end(let end):
                return finish(end, cancelledIn: level.cancelledIn == nil ? nil : record.cancelledState, ended: level.current)
            case .cancel:
                if record.cancelledState == nil { record.cancelledState = level.qualifiedCurrent }
                guard let next = takeCancel(&level) else {
                    return .cancelled(cancelError(in: record.cancelledState ?? level.qualifiedCurrent, path: nil))
                }
                level.current = next
            }
        }
    }

    /// Restores a level from its checkpoint when the run resumes; returns whether it did.
    private func restore(_ level: inout Level) -> Bool {
        guard let checkpoint = resume?.take(path: level.path) else { return false }
        // Inputs the checkpoint lacks (secrets never kept) come from the parent's templates, where they still resolve.
        var inputs = checkpoint.inputs
        for member in level.scope.inputs.members where inputs[member.key] == nil { inputs[member.key] = member.value }
        level.scope.inputs = inputs
        level.scope.vars = Dictionary(checkpoint.variables.members.map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
        level.scope.error = checkpoint.error
        level.current = checkpoint.state
        level.cancelledIn = checkpoint.cancelledIn
        return true
    }

    /// The level as a checkpoint, secrets redacted unless the run shows them.
    private func checkpoint(_ level: Level) -> RunCheckpoint {
        var variables = JSONObject()
        for name in level.scope.vars.keys.sorted() {
            let value = level.scope.vars[name] ?? .null
            variables[name] = options.showSecrets ? value : secrets.redacting(value)
        }
        let inputs = options.showSecrets ? level.scope.inputs : secrets.redacting(.object(level.scope.inputs)).objectValue ?? [:]
        return RunCheckpoint(
            workflowPath: level.path, state: level.current, inputs: inputs, variables: variables,
            error: options.showSecrets ? level.scope.error : secrets.redacting(level.scope.error), cancelledIn: level.cancelledIn,
            shielded: level.shielded)
    }

    /// A restored state whose work had finished before the run stopped: bind its result and move on, or take the
    /// cancel path with the result kept, as for a call that finished while the run was being cancelled.
    private func finishRestored(_ step: StepBehavior, result: JSONValue, _ level: inout Level) -> Move {
        if let name = step.result { level.scope.vars[name] = result }
        if !level.onCancelPath, signal.isCancelled { return .cancel }
        emit(level.path, .transition(from: level.current, to: step.next, edge: .next))
        return .to(step.next)
    }

    private func succeed(_ succeed: SucceedState, _ level: Level) -> Move {
        do throws(FlowError) {
            let output = try succeed.output.map { template throws(FlowError) in try level.scope.evaluate(template) }
            return .end(.succeeded(output))
        } catch {
            return .end(.failed(located(error, level.qualifiedCurrent)))
        }
    }

    private func choose(_ choice: ChoiceState, _ level: Level) -> Move {
        do throws(FlowError) {
            var target = choice.defaultNext
            var edge = WorkflowEdge.Kind.choiceDefault
            for (index, branch) in choice.branches.enumerated() where try level.scope.holds(branch.condition) {
                target = branch.next
                edge = .choice(index)
                break
            }
            emit(level.path, .transition(from: level.current, to: target, edge: edge))
            return .to(target)
        } catch {
            return .end(.failed(located(error, level.qualifiedCurrent)))
        }
    }

    private func assign(_ assign: AssignState, _ level: inout Level, _ record: inout Record) -> Move {
        do throws(FlowError) {
            var values: [(String, JSONValue)] = []
            for (name, template) in assign.assignments { values.append((name, try level.scope.evaluate(template))) }
            for (name, value) in values { level.scope.vars[name] = value }
            if let warning = assign.warning {
                let message = try level.scope.evaluate(warning)
                let text = message.stringValue ?? JSONWriter.compact(message)
                record.warnings.append(text)
                emit(level.path, .warning(state: level.current, message: text))
            }
            emit(level.path, .transition(from: level.current, to: assign.next, edge: .next))
            return .to(assign.next)
        } catch {
            return .end(.failed(located(error, level.qualifiedCurrent)))
        }
    }

    private func wait(_ wait: WaitState, _ level: inout Level) async -> Move {
        var matching: [(String, JSONValue)] = []
        do throws(FlowError) {
            for (name, template) in wait.match { matching.append((name, try level.scope.evaluate(template))) }
        } catch {
            return .end(.failed(located(error, level.qualifiedCurrent)))
        }
        let eventName = wait.event
        let expected = matching
        emit(level.path, .waitStarted(state: level.current, event: eventName, timeoutSeconds: wait.timeoutSeconds))
        let outcome = await inbox.wait(
            for: { event in
                event.name == eventName && expected.allSatisfy { name, value in event.fields[name].map { Scope.equal($0, value) } ?? false }
            },
            timeout: .seconds(rounding: wait.timeoutSeconds), clock: options.clock,
            signal: level.onCancelPath ? nil : signal)
        switch outcome {
        case .finished(let event):
            emit(level.path, .eventReceived(state: level.current, event: event.name, value: event.value, fields: event.fields))
            if let result = wait.result { level.scope.vars[result] = .object(event.fields) }
            let branch = wait.branches.first { $0.value == event.value }
            let target = branch?.next ?? wait.otherwise ?? wait.onTimeout
            emit(level.path, .transition(from: level.current, to: target, edge: branch == nil ? .eventOtherwise : .event(event.value)))
            return .to(target)
        case .timedOut, .failed:
            emit(level.path, .transition(from: level.current, to: wait.onTimeout, edge: .timeout))
            return .to(wait.onTimeout)
        case .cancelled:
            return .cancel
        }
    }

    private func step(_ state: WorkflowState, _ step: StepBehavior, _ level: inout Level, _ record: inout Record) async -> Move {
        let race = StepRace(clock: options.clock, signal: level.onCancelPath ? nil : signal)
        let outcome = await runStep(
            state, workflow: level.workflow, step: step, scope: level.scope, path: level.path, statePrefix: level.prefix,
            race: race, shielded: level.onCancelPath, record: &record)
        switch outcome {
        case .finished(let value):
            if let result = step.result { level.scope.vars[result] = value }
            emit(level.path, .transition(from: level.current, to: step.next, edge: .next))
            return .to(step.next)
        case .failed(let error):
            let located = located(error, level.qualifiedCurrent)
            guard let (index, route) = step.onError.enumerated().first(where: { $0.element.errors.contains(where: located.matches) }) else {
                return .end(.failed(located))
            }
            level.scope.error = located
            emit(level.path, .transition(from: level.current, to: route.next, edge: .error(index, route.errors)))
            return .to(route.next)
        case .timedOut:
            preconditionFailure("runStep reports timeouts as deadlineExceeded errors")
        case .cancelled(let late):
            // A call that still succeeded while the run was being cancelled did its work on the hub: keep its
            // result, so the cancel path can tell what to release.
            if let late, let result = step.result { level.scope.vars[result] = late }
            return .cancel
        }
    }

    /// Moves a cancelled level onto its cancel path; nil when it declares none.
    private func takeCancel(_ level: inout Level) -> String? {
        emit(level.path, .cancelRequested(state: level.current))
        level.cancelledIn = level.current
        guard let onCancel = level.workflow.onCancel else { return nil }
        let qualified = level.qualifiedCurrent
        level.scope.error = FlowError(
            code: .cancelled, cause: .runCancelled, message: "the run was cancelled in state \(qualified)", state: qualified)
        emit(level.path, .transition(from: level.current, to: onCancel, edge: .cancel))
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
