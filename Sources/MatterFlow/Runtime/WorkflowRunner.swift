import MatterFlowJSON

/// Executes one run: walks the state machine, calls the hub, applies guards, retries and error routes, runs
/// sub-workflows, and takes the cancel path when the run is cancelled.
///
/// A class, so that the frames a waiting run keeps hold one reference to it rather than a copy of its fields.
final class WorkflowRunner: Sendable {
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
    let resume: ResumeCursor?
    /// Hub calls abandoned while still running, which the run's next hub call waits for.
    let abandoned = AbandonedCalls()
    /// The context each hub call of the run carries (run ID, call key, the run's session).
    let callContexts: RunCallContexts

    init(
        hub: any Hub, catalog: OperationCatalog, options: RunOptions, runID: String, signal: CancellationSignal,
        secrets: SecretValues, inbox: EventInbox, resume: ResumeCursor?
    ) {
        self.hub = hub
        self.catalog = catalog
        self.options = options
        self.runID = runID
        self.signal = signal
        self.secrets = secrets
        self.inbox = inbox
        self.resume = resume
        callContexts = RunCallContexts(runID: runID)
    }

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
        var visited: [String]
        /// The innermost state the run was in when it was cancelled.
        var cancelledState: String?

        init() {
            // Room for a typical run's states, so that recording them does not grow the array step by step.
            visited = []
            visited.reserveCapacity(32)
        }
    }

    /// Reports an event to the observer; without one, neither the event nor its path is built (inlined, so that
    /// an unobserved run does not even gather what the event would show).
    @inline(__always)
    func emit(_ path: @autoclosure () -> [String], _ kind: @autoclosure () -> RunEvent.Kind) {
        guard options.observer != nil else { return }
        report(path(), kind())
    }

    @inline(never)
    private func report(_ path: [String], _ kind: RunEvent.Kind) {
        guard let observer = options.observer else { return }
        let shown = options.showSecrets ? kind : secrets.redacting(kind)
        observer(RunEvent(runID: runID, time: options.clock.now, workflowPath: path, kind: shown))
    }

    /// A workflow level in progress: where it is, what it has bound, and whether it is on its cancel path.
    struct Level {
        /// The level's compiled workflow: one reference, so the level copies none of the workflow's structs.
        let plan: ExecutionPlan
        /// Runs inside a cancel path: never cancelled again.
        let shielded: Bool
        var scope: Scope
        var current: String
        /// The state this level was cancelled in, once it is on its cancel path.
        var cancelledIn: String?
        /// Restored from a checkpoint and about to re-enter its state (see ``ResumePoint``).
        var restoring = false
        /// The action or sub-workflow state whose work is in progress, and how far it got.
        var progress: StepProgress?

        var path: [String] { plan.path }
        /// The qualification of this level's states (`parent/`), empty at the top.
        var prefix: String { plan.prefix }
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

    @inline(never)
    func succeed(_ succeed: SucceedState, _ level: Level) -> Move {
        do throws(FlowError) {
            let output = try succeed.output.map { template throws(FlowError) in try level.scope.evaluate(template) }
            return .end(.succeeded(output))
        } catch {
            return .end(.failed(located(error, level.qualifiedCurrent)))
        }
    }

    @inline(never)
    func choose(_ choice: ChoiceState, _ level: Level) -> Move {
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

    @inline(never)
    func assign(_ assign: AssignState, _ level: inout Level, _ record: inout Record) -> Move {
        do throws(FlowError) {
            var values: [(String, JSONValue)] = []
            for (name, template) in assign.assignments { values.append((name, try level.scope.evaluate(template))) }
            for (name, value) in values { level.scope.bind(name, value) }
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

    /// Moves a cancelled level onto its cancel path; nil when it declares none.
    @inline(never)
    func takeCancel(_ level: inout Level) -> String? {
        emit(level.path, .cancelRequested(state: level.current))
        level.cancelledIn = level.current
        guard let onCancel = level.plan.onCancel else { return nil }
        let qualified = level.qualifiedCurrent
        level.scope.error = FlowError(
            code: .cancelled, cause: .runCancelled, message: "the run was cancelled in state \(qualified)", state: qualified)
        emit(level.path, .transition(from: level.current, to: onCancel, edge: .cancel))
        return onCancel
    }

    func cancelError(in state: String, path: String?) -> FlowError {
        var message = "the run was cancelled in state \(state)"
        if let path { message += "; \(path)" }
        return FlowError(code: .cancelled, cause: .runCancelled, message: message, state: state)
    }

    /// Ends a level, turning the end of a cancel path into a cancelled outcome.
    @inline(never)
    func finish(_ end: LevelEnd, cancelledIn: String?, ended: String) -> LevelEnd {
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

    func located(_ error: FlowError, _ state: String) -> FlowError {
        var copy = error
        if copy.state == nil { copy.state = state }
        return copy
    }

    @inline(never)
    func raise(_ fail: FailState, scope: Scope, state: String) -> FlowError {
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

extension WorkflowRunner {
    // A wait state: its match is evaluated and reported before the run's loop awaits the event; the event, the
    // timeout or a cancel then decides where the level goes.

    /// The event a wait state waits for, and how the wait may end; a class, so the run's loop holds one reference.
    final class WaitRequest: Sendable {
        let state: WaitState
        let matches: @Sendable (HubEvent) -> Bool
        let timeout: Duration
        /// Nil while the level is on its cancel path.
        let signal: CancellationSignal?

        init(state: WaitState, matches: @escaping @Sendable (HubEvent) -> Bool, timeout: Duration, signal: CancellationSignal?) {
            self.state = state
            self.matches = matches
            self.timeout = timeout
            self.signal = signal
        }
    }

    /// What a wait state waits for; the error that ends its level when its match does not evaluate.
    @inline(never)
    func prepareWait(_ state: PlannedState, _ level: Level) -> Result<WaitRequest, FlowError> {
        guard case .wait(let wait) = state.state.kind else { preconditionFailure("not a wait state") }
        var matching: [(String, JSONValue)] = []
        do throws(FlowError) {
            for (name, template) in wait.match { matching.append((name, try level.scope.evaluate(template))) }
        } catch {
            return .failure(located(error, level.qualifiedCurrent))
        }
        let eventName = wait.event
        let expected = matching
        emit(level.path, .waitStarted(state: level.current, event: eventName, timeoutSeconds: wait.timeoutSeconds))
        return .success(
            WaitRequest(
                state: wait,
                matches: { event in
                    event.name == eventName
                        && expected.allSatisfy { name, value in event.fields[name].map { Scope.equal($0, value) } ?? false }
                },
                timeout: .seconds(rounding: wait.timeoutSeconds), signal: level.onCancelPath ? nil : signal))
    }

    /// Where a wait's end sends the level.
    @inline(never)
    func waitEnded(_ outcome: RaceOutcome<HubEvent>, _ wait: WaitState, _ level: inout Level) -> Move {
        switch outcome {
        case .finished(let event):
            emit(level.path, .eventReceived(state: level.current, event: event.name, value: event.value, fields: event.fields))
            if let result = wait.result { level.scope.bind(result, .object(event.fields)) }
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
}
