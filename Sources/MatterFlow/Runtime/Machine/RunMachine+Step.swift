import MatterFlowJSON

extension RunMachine {
    // An action or sub-workflow state runs in attempts: its guards, then its work (a hub call, or the child's
    // level), retried by the state's retriers. The first retrier matching the error applies; once its
    // `maxRetries` are used the error is routed.

    /// Starts an attempt: its first guard, or its work when it has none.
    mutating func beginAttempt(_ progress: StepProgress) -> Continuation {
        proceedStep(progress, guardsPassed: 0)
    }

    /// The attempt's next guard, or its work once every guard has passed.
    mutating func proceedStep(_ progress: StepProgress, guardsPassed: Int) -> Continuation {
        let state = progress.state
        if guardsPassed < state.plannedGuards.count { return checkGuard(progress, index: guardsPassed) }
        if state.isSubworkflow { return state.map == nil ? descend(progress) : beginMap(progress) }
        switch prepareCall(state, attempt: progress.attempt) {
        case .success(let call):
            for text in call.warnings { warn(text, in: state.name) }
            return handOver(.calling(progress, call), .call(call))
        case .failure(let error):
            return attemptEnded(progress, .failed(error))
        }
    }

    /// Pushes the level of a sub-workflow state's child, and enters its start state.
    mutating func descend(_ progress: StepProgress) -> Continuation {
        if progress.state.repeating != nil { checkpointIteration(progress) }
        switch childInputs(progress.state, of: top) {
        case .success(let (child, inputs)):
            return push(child, inputs: inputs, elementTag: top.elementTag + Self.iterationTag(progress), step: progress)
        case .failure(let error):
            return attemptEnded(progress, .failed(error))
        }
    }

    /// Pushes a child level below the innermost one, which then waits for it in `step` (of a map state: for the
    /// element of `map` being run), and enters the child's start state. A level on a cancel path runs its children
    /// shielded.
    mutating func push(
        _ child: LevelPlace, inputs: JSONObject, elementTag: String, step: StepProgress, map: MapProgress? = nil
    ) -> Continuation {
        guard let start = child.model.start else {
            return attemptEnded(step, .failed(missingState(child.model.startName)))
        }
        var level = Level(
            place: child, shielded: top.onCancelPath, scope: Scope(inputs: inputs, run: Self.runInfo(child.model, configuration)),
            state: start, elementTag: elementTag)
        // Swapped rather than copied, so that the waiting level is moved to the parents, not retained again.
        swap(&top, &level)
        parents.append(ParentLevel(level: level, step: step, map: map))
        return .enterCurrent
    }

    /// A guard's status check ended: the attempt's next guard, or its end when the guard did not pass.
    mutating func guardEnded(
        _ progress: StepProgress, index: Int, _ statusGuard: StatusGuard, _ outcome: RaceOutcome<HubStatus>
    ) -> Continuation {
        let failure: FlowError?
        switch outcome {
        case .finished(let status): failure = statusFailure(of: statusGuard, status: status)
        case .failed(let error): failure = error
        case .timedOut:
            failure = FlowError(
                .actionTimedOut,
                "the hub did not report its status within \(Int(TimeBudget.guardTimeoutSeconds)) s for guard \(statusGuard.listed.name)")
        case .cancelled: return attemptEnded(progress, .cancelled(late: nil))
        }
        return guardChecked(progress, index: index, statusGuard.listed, failure)
    }

    /// Reports a guard's check; the attempt's next guard when it passed, else the attempt ends with its error.
    mutating func guardChecked(_ progress: StepProgress, index: Int, _ listed: Guard, _ failure: FlowError?) -> Continuation {
        if configuration.reportsEvents {
            report(top.path, .guardChecked(state: progress.state.name, guard: listed, error: failure))
        }
        if let failure { return attemptEnded(progress, .failed(failure)) }
        return proceedStep(progress, guardsPassed: index + 1)
    }

    /// The error a built-in guard of run `runID` raises for a hub status, or nil when it passes.
    static func failure(of guardName: BuiltInGuard, status: HubStatus, runID: String) -> FlowError? {
        switch guardName {
        case .permission:
            return status.permissionGranted
                ? nil : FlowError(.permissionNotGranted, "the user has not granted access to this structure; ask them to grant it in the app's permission settings")
        case .hubReachable:
            if !status.online { return FlowError(.hubOffline, "the hub is offline; check its power and network, then try again") }
            if !status.reachable { return FlowError(.hubUnreachable, "the hub is online but not reachable from here; check the local network") }
            return nil
        case .noActiveSession:
            return status.activeSession ? FlowError.sessionBusy(heldBy: status.holder, refusing: runID) : nil
        }
    }

    /// A hub call ended: the session it opened is noted, its end reported, and the attempt ends.
    mutating func callEnded(
        _ progress: StepProgress, _ call: RunCall, _ outcome: RaceOutcome<JSONValue>, duration: Duration
    ) -> Continuation {
        let ended: StepOutcome
        let error: FlowError?
        switch outcome {
        case .finished(let value):
            noteResult(call, value)
            error = nil
            ended = .finished(value)
        case .failed(let failure):
            if call.operation.acquiresSession, failure.cause == .hubFailure {
                // The hub may have opened the session and answered in a form the run could not read. (A call that
                // timed out is settled by its late answer, which the run's end waits for.)
                mayHaveLateSession = true
                unreadOpen = "\(call.operation.name) in state \(progress.state.name)"
            }
            if failure.cause == .hubFailure {
                // The hub answered, so it acted, in a form the run could not read. (A hub out of reach refused the
                // call before acting; a connection lost during it leaves the run's journal in doubt, for recovery.)
                warnIfCompletionInDoubt(call, progress, because: "its answer could not be read (\(failure.cause.rawValue))")
            }
            if call.operation.releaseAttemptSuffices {
                // Unless the hub says there is no session to release, it may have kept the one the run held.
                if holdsSession, failure.cause != .noActiveSession, failure.cause != .sessionExpired {
                    unconfirmedRelease = (sessionID, "\(call.operation.name) failed: \(failure.message)")
                }
                holdsSession = false
            }
            error = failure
            ended = .failed(failure)
        case .timedOut:
            noteUnanswered(call)
            warnIfCompletionInDoubt(call, progress, because: "it was not answered within \(call.operation.timeoutSeconds) s")
            let timedOut = FlowError(
                .actionTimedOut,
                "\(call.operation.name) did not finish within \(call.operation.timeoutSeconds) s; raise \"timeoutSeconds\" on the state if the hub is slow")
            error = timedOut
            ended = .failed(timedOut)
        case .cancelled(let late):
            if let late {
                noteResult(call, late)
                if call.operation.completesSession {
                    // No cancel path can undo it, so the run says what stands.
                    warn(
                        "\(call.operation.name) in state \(progress.state.name) finished on the hub just as the run was cancelled: what it did stands, and the session ended with it (its result: \(JSONWriter.compact(late)))",
                        in: progress.state.name)
                }
            } else {
                noteUnanswered(call)
            }
            error = late == nil ? FlowError(.runCancelled, "cancelled while waiting for \(call.operation.name)") : nil
            ended = .cancelled(late: late)
        }
        // The report is built only when someone observes the run.
        if configuration.reportsEvents {
            report(
                top.path,
                .hubCallFinished(
                    state: progress.state.name, operation: call.operation.name, attempt: progress.attempt, duration: duration,
                    error: error))
        }
        return attemptEnded(progress, ended)
    }

    /// A call that ends the session by completing it (`completeCommissioning`) and whose outcome is unknown: the
    /// hub may have committed the devices, which no cancel path undoes, so the run says where to look.
    private mutating func warnIfCompletionInDoubt(_ call: RunCall, _ progress: StepProgress, because reason: String) {
        guard call.operation.completesSession else { return }
        warn(
            "\(call.operation.name) in state \(progress.state.name) may have completed on the hub, as \(reason): its devices may be in the structure already; check the structure's devices before commissioning again",
            in: progress.state.name)
    }

    /// Keeps a warning for the run's result and reports it from `state` of the current level.
    mutating func warn(_ text: String, in state: String) {
        warnings.append(text)
        report(top.path, .warning(state: state, message: text))
    }

    /// A call's result, on time or late: its secret fields join the run's secrets (a late result is bound too, for
    /// the cancel path to read), and the session it opened is noted.
    private mutating func noteResult(_ call: RunCall, _ value: JSONValue) {
        for field in call.operation.secretResultFields { value[field].map(secrets.add) }
        if call.operation.releasesSession {
            holdsSession = false
            unconfirmedRelease = nil
        }
        guard call.operation.acquiresSession, let opened = value["sessionID"]?.stringValue else { return }
        sessionID = opened
        holdsSession = true
    }

    /// A call that ended without an answer the run took (its timeout, or a cancel it did not answer within its grace
    /// period): a session-opening one may still open a session on the hub, which the run settles before it ends
    /// (``Phase/ending(_:)``). A release that timed out ends the hold when its attempt suffices, as a failed one does.
    private mutating func noteUnanswered(_ call: RunCall) {
        if call.operation.acquiresSession { mayHaveLateSession = true }
        if call.operation.releaseAttemptSuffices {
            if holdsSession { unconfirmedRelease = (sessionID, "\(call.operation.name) was not answered") }
            holdsSession = false
        }
    }

    /// An attempt ended: retry after a delay when a retrier allows, or the step ends.
    mutating func attemptEnded(_ progress: StepProgress, _ outcome: StepOutcome) -> Continuation {
        if let repeating = progress.state.repeating { return iterationEnded(progress, repeating, outcome) }
        if case .failed(let error) = outcome {
            var retrying = progress
            if let delay = retryDelay(after: error, &retrying) {
                checkpointRetry(retrying, delay: delay)
                return handOver(.retryDelay(retrying), .delay(.seconds(rounding: delay), cancellable: !top.onCancelPath))
            }
        }
        return .move(stepEnded(progress.state, outcome))
    }

    /// Records the level's checkpoint as a retry is scheduled: the attempt that follows, the retries used and the
    /// delay, so that a run resumed in the delay or in the next attempt continues the count (a step's `maxRetries`
    /// bounds the whole run), and one resumed in the delay waits what is left of it.
    private mutating func checkpointRetry(_ progress: StepProgress, delay: Double) {
        guard configuration.recordsCheckpoints else { return }
        var next = progress
        next.attempt += 1
        actions.append(.checkpoint(checkpoint(top, step: next, retryDelay: delay)))
    }

    /// A resumed run that stopped in a retry's delay waits what is left of it (reported as `delayStarted`, which a
    /// later recovery counts from the first `retryScheduled`), then makes the attempt.
    mutating func resumeRetryDelay(_ progress: StepProgress, left: Duration) -> Continuation {
        var waiting = progress
        waiting.attempt -= 1
        report(top.path, .delayStarted(state: progress.state.name, seconds: left.secondsValue))
        return handOver(.retryDelay(waiting), .delay(left, cancellable: !top.onCancelPath))
    }

    /// The delay before retrying after an error, counting the retry; nil when no retrier allows one.
    private mutating func retryDelay(after error: FlowError, _ progress: inout StepProgress) -> Double? {
        guard error.cause.isRetryable, let step = progress.state.step else { return nil }
        guard let index = step.retry.firstIndex(where: { $0.errors.contains(where: error.matches) }),
            progress.retriesUsed[index] < step.retry[index].maxRetries
        else { return nil }
        progress.retriesUsed[index] += 1
        let retrier = step.retry[index]
        var delay = retrier.delay(beforeRetry: progress.retriesUsed[index])
        if retrier.jitter { delay *= configuration.random.fraction() }
        report(top.path, .retryScheduled(state: progress.state.name, attempt: progress.attempt + 1, delaySeconds: delay, error: error))
        return delay
    }

    /// Where a step's outcome sends the level.
    mutating func stepEnded(_ state: PlannedState, _ outcome: StepOutcome) -> Move {
        guard let step = state.step else {
            return .end(.failed(located(FlowError(.engineMisconfigured, "state \(state.name) has no step to end"), top.qualifiedCurrent)))
        }
        switch outcome {
        case .finished(let value):
            if let result = step.result { top.scope.bind(result, value) }
            return transition(state.firstEdge)
        case .failed(let error):
            let located = located(error, top.qualifiedCurrent)
            guard let route = step.onError.firstIndex(where: { $0.errors.contains(where: located.matches) }) else {
                return .end(.failed(located))
            }
            top.scope.error = located
            // The `next` edge comes first, then the error routes' edges.
            return transition(state.firstEdge + 1 + route)
        case .cancelled(let late):
            // A call that still succeeded while the run was being cancelled did its work on the hub: keep its
            // result, so the cancel path can tell what to release.
            if let late, let result = step.result { top.scope.bind(result, late) }
            return .cancel
        }
    }
}
