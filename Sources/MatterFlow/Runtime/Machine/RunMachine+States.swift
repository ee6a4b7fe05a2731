import MatterFlowJSON

extension RunMachine {
    // What each kind of state does once entered, and how a level moves, ends and takes its cancel path.

    /// The entered state's work: a move decided at once, or work handed to the driver.
    mutating func work(of state: PlannedState) -> Continuation {
        // What a resumed run brings applies to the first state it works (the one it stood in), and to no later one:
        // not to its cancel path, nor to a state an error leads to.
        let resumed = self.resumed
        self.resumed = nil
        let waited = resumed?.waited
        if !top.onCancelPath, isCancelRequested, !state.isTerminal {
            // A cancel that arrived between states takes effect before the state does any work.
            return .move(.cancel)
        }
        switch state.state.kind {
        case .succeed(let succeed): return .move(self.succeed(succeed))
        case .fail(let fail): return .move(.end(.failed(raise(fail, scope: top.scope, state: top.qualifiedCurrent))))
        case .choice(let choice): return .move(choose(choice, state))
        case .assign(let assign): return .move(self.assign(assign, state))
        case .wait(let wait): return startWait(wait, waited: waited)
        case .ask(let ask): return startAsk(ask, waited: waited)
        case .delay(let delay): return startDelay(delay, waited: waited)
        case .action, .workflow:
            let progress = resumed?.progress(of: state) ?? StepProgress(state)
            if let retryDelay = resumed?.retryDelay, let waited, progress.attempt > 1 {
                let left = Self.remaining(.seconds(rounding: retryDelay), after: waited)
                if left > .zero { return resumeRetryDelay(progress, left: left) }
            }
            return beginAttempt(progress)
        }
    }

    /// Takes a move; returns how the level ended once it has.
    mutating func advance(_ move: Move) -> LevelEnd? {
        switch move {
        case .along(let edge):
            return follow(edge)
        case .end(let end):
            // A level restored on its cancel path (a resumed run) was cancelled before this process began.
            let cancelledIn = top.cancelledIn.map { cancelledState ?? top.prefix + $0 }
            return finishLevel(end, cancelledIn: cancelledIn, ended: top.current)
        case .cancel:
            if cancelledState == nil { cancelledState = top.qualifiedCurrent }
            guard let edge = takeCancel() else {
                return .cancelled(cancelError(in: cancelledState ?? top.qualifiedCurrent, path: nil))
            }
            return follow(edge)
        }
    }

    /// Moves the innermost level along an edge; the level fails when the edge leads to no state (the workflow was
    /// not validated).
    private mutating func follow(_ edge: Int) -> LevelEnd? {
        guard let next = top.model.edges[edge].to else { return .failed(missingState(top.model.edges[edge].target)) }
        top.state = next
        return nil
    }

    /// The move along an edge of the innermost level's current state, reported as a transition (when anyone
    /// observes the run) as `kind`, or as the edge's own kind.
    mutating func transition(_ edge: Int, reportedAs kind: WorkflowEdge.Kind? = nil) -> Move {
        if configuration.reportsEvents {
            let model = top.model
            report(top.path, .transition(from: top.current, to: model.edges[edge].target, edge: kind ?? model.edges[edge].kind))
        }
        return .along(edge)
    }

    func missingState(_ name: String) -> FlowError {
        FlowError(.engineMisconfigured, "state \"\(name)\" does not exist (the workflow was not validated)")
    }

    func succeed(_ succeed: SucceedState) -> Move {
        do throws(FlowError) {
            let output = try succeed.output.map { template throws(FlowError) in try top.scope.evaluate(template) }
            return .end(.succeeded(output))
        } catch {
            return .end(.failed(located(error, top.qualifiedCurrent)))
        }
    }

    mutating func choose(_ choice: ChoiceState, _ state: PlannedState) -> Move {
        do throws(FlowError) {
            // The branches' edges come first, then the default's.
            var taken = choice.branches.count
            for index in choice.branches.indices where try top.scope.holds(choice.branches[index].condition) {
                taken = index
                break
            }
            return transition(state.firstEdge + taken)
        } catch {
            return .end(.failed(located(error, top.qualifiedCurrent)))
        }
    }

    mutating func assign(_ assign: AssignState, _ state: PlannedState) -> Move {
        do throws(FlowError) {
            var values: [(String, JSONValue)] = []
            for (name, template) in assign.assignments { values.append((name, try top.scope.evaluate(template))) }
            for (name, value) in values { top.scope.bind(name, value) }
            if let warning = assign.warning {
                let message = try top.scope.evaluate(warning)
                warn(message.stringValue ?? JSONWriter.compact(message), in: top.current)
            }
            if let show = assign.show {
                let value = try top.scope.evaluate(show)
                report(top.path, .shown(state: top.current, value: value, revealed: value))
            }
            return transition(state.firstEdge)
        } catch {
            return .end(.failed(located(error, top.qualifiedCurrent)))
        }
    }

    /// A wait state's match is evaluated and reported, and the wait handed to the driver; a match that does not
    /// evaluate ends the level.
    mutating func startWait(_ wait: WaitState, waited: Duration?) -> Continuation {
        var fields: [(name: String, value: JSONValue)] = []
        do throws(FlowError) {
            for (name, template) in wait.match { fields.append((name, try top.scope.evaluate(template))) }
        } catch {
            return .move(.end(.failed(located(error, top.qualifiedCurrent))))
        }
        report(top.path, .waitStarted(state: top.current, event: wait.event, timeoutSeconds: wait.timeoutSeconds))
        let request = EventWait(
            event: wait.event, fields: fields, timeout: Self.remaining(.seconds(rounding: wait.timeoutSeconds), after: waited),
            cancellable: !top.onCancelPath)
        return handOver(.waitingEvent(wait), .waitForEvent(request))
    }

    /// Where a wait's end sends the level.
    mutating func waitEnded(_ end: WaitEnd, _ wait: WaitState) -> Move {
        // The branches' edges come first, then `otherwise`'s when there is one, then the timeout's.
        let first = top.planned.firstEdge
        let otherwise = first + wait.branches.count
        let timeout = wait.otherwise == nil ? otherwise : otherwise + 1
        switch end {
        case .event(let event):
            for field in top.model.catalog.event(named: event.name)?.secretFields ?? [] { event.fields[field].map(secrets.add) }
            report(top.path, .eventReceived(state: top.current, event: event.name, value: event.value, fields: event.fields))
            if let result = wait.result { top.scope.bind(result, .object(event.fields)) }
            if let branch = wait.branches.firstIndex(where: { $0.value == event.value }) { return transition(first + branch) }
            // An event no branch takes goes where `otherwise` says, or else (its edge's number then being the
            // timeout's) where the timeout does.
            return transition(otherwise, reportedAs: .eventOtherwise)
        case .timedOut:
            return transition(timeout)
        case .cancelled:
            return .cancel
        }
    }

    /// Moves a cancelled level onto its cancel path: the number of the current state's cancel edge, taken and
    /// reported; nil when it has none.
    mutating func takeCancel() -> Int? {
        report(top.path, .cancelRequested(state: top.current, reason: cancelReason))
        top.cancelledIn = top.current
        guard let edge = top.planned.cancelEdge else { return nil }
        let qualified = top.qualifiedCurrent
        top.scope.error = cancelError(in: qualified, path: nil)
        _ = transition(edge)
        return edge
    }

    /// The error a cancelled level ends with: where the cancel arrived, why (when its canceller said), and how the
    /// cancel path ended (`path`).
    func cancelError(in state: String, path: String?) -> FlowError {
        var message = "the run was cancelled in state \(state)" + (cancelReason.map { " (\($0))" } ?? "")
        if let path { message += "; \(path)" }
        return FlowError(code: .cancelled, cause: .runCancelled, message: message, state: state)
    }

    /// Ends a level, turning the end of a cancel path into a cancelled outcome.
    func finishLevel(_ end: LevelEnd, cancelledIn: String?, ended: String) -> LevelEnd {
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

    func raise(_ fail: FailState, scope: Scope, state: String) -> FlowError {
        do {
            switch fail.raise {
            case .rethrow(let template):
                let value = try scope.evaluate(template)
                if let problem = ErrorValueProblem.of(value) {
                    return FlowError(
                        code: .internal, cause: .malformedError,
                        message: "the fail state's \"error\" is not an error value: \(problem.description)", state: state)
                }
                guard let object = value.objectValue, let code = object["code"]?.stringValue.flatMap(ErrorCode.init(rawValue:)) else {
                    return FlowError(code: .internal, cause: .malformedError, message: "the fail state's \"error\" is not an error value", state: state)
                }
                var raised = FlowError(
                    code: code, cause: ErrorCause(rawValue: object["cause"]?.stringValue ?? ErrorCause.workflowFailed.rawValue),
                    message: object["message"]?.stringValue ?? "", state: object["state"]?.stringValue ?? state)
                // The caught error raised again keeps what its value does not carry: who holds the session it names.
                if let caught = scope.error, caught.code == raised.code, caught.cause == raised.cause, caught.message == raised.message {
                    raised.sessionHolder = caught.sessionHolder
                }
                return raised
            case .new(let codeTemplate, let causeTemplate, let messageTemplate):
                let codeValue = try scope.evaluate(codeTemplate)
                guard let codeText = codeValue.stringValue else {
                    return FlowError(
                        code: .internal, cause: .malformedError,
                        message: "the fail state's code evaluated to \(codeValue.typeName), not a canonical code's name", state: state)
                }
                guard let code = ErrorCode(rawValue: codeText) else {
                    return FlowError(code: .internal, cause: .malformedError, message: "the fail state's code \"\(codeText)\" is not a canonical code", state: state)
                }
                // A cause that evaluates to null or "" is no cause: the default. Another value is routed by its JSON text.
                let cause = try causeTemplate.map { template throws(FlowError) in
                    let value = try scope.evaluate(template)
                    return value.stringValue ?? (value.isNull ? "" : JSONWriter.compact(value))
                }
                let message = try scope.evaluate(messageTemplate)
                return FlowError(
                    code: code, cause: ErrorCause(rawValue: cause.flatMap { $0.isEmpty ? nil : $0 } ?? ErrorCause.workflowFailed.rawValue),
                    message: message.stringValue ?? JSONWriter.compact(message), state: state)
            }
        } catch {
            var copy = error
            copy.state = state
            return copy
        }
    }
}
