import MatterFlowJSON

extension WorkflowRunner {
    // An action or sub-workflow state runs in attempts: its guards, then its work (a hub call, or the child's
    // level), retried by the state's retriers. The run's loop awaits each piece; these functions decide the next.
    //
    // Retry counters belong to the state's entry, so they reset whenever the run leaves the state, as in Amazon
    // States Language. The first retrier matching the error applies; once its `maxRetries` are used the error is
    // routed.

    /// How far an action or sub-workflow state's work got.
    struct StepProgress {
        let state: PlannedState
        /// The attempt in progress, from 1.
        var attempt = 1
        /// Retries used so far, by retrier.
        var retriesUsed: [Int]
        /// Guards of this attempt that passed.
        var guardsPassed = 0
        /// The attempt enters a restored child level: its guards passed before the run stopped.
        var resuming = false

        init(_ state: PlannedState) {
            self.state = state
            retriesUsed = [Int](repeating: 0, count: state.step?.retry.count ?? 0)
        }
    }

    /// The race a level's hub work runs in: cancellable unless the level is on a cancel path; a call it abandons
    /// is kept in the run's ``AbandonedCalls``.
    func race(onCancelPath: Bool, state: String = "") -> StepRace {
        StepRace(clock: options.clock, signal: onCancelPath ? nil : signal, abandoned: abandoned, state: state)
    }

    /// Starts an action or sub-workflow state's first attempt.
    @inline(never)
    func beginStep(_ state: PlannedState, _ levels: inout Stack, _ record: inout Record) -> Next {
        levels.top.progress = StepProgress(state)
        return beginAttempt(&levels, &record)
    }

    @inline(never)
    private func beginAttempt(_ levels: inout Stack, _ record: inout Record) -> Next {
        guard let state = levels.top.progress?.state else { preconditionFailure("no step in progress") }
        // Resuming into the child: its guards passed before the run stopped.
        levels.top.progress?.resuming = state.child.map { resume?.expects(path: $0.path) == true } ?? false
        levels.top.progress?.guardsPassed = 0
        return proceedStep(&levels, &record)
    }

    /// The attempt's next guard, or its work once every guard has passed.
    // The progress is read field by field: a copy of it would retain its state and its retry counts.
    @inline(never)
    private func proceedStep(_ levels: inout Stack, _ record: inout Record) -> Next {
        guard let state = levels.top.progress?.state else { preconditionFailure("no step in progress") }
        let resuming = levels.top.progress?.resuming == true
        if !resuming, levels.top.progress?.guardsPassed ?? 0 < state.guardCount {
            return .work(.status(shielded: levels.top.onCancelPath))
        }
        if state.isSubworkflow { return descend(state, resuming: resuming, &levels, &record) }
        let attempt = levels.top.progress?.attempt ?? 1
        switch prepareCall(state, scope: levels.top.scope, path: levels.top.path, attempt: attempt) {
        case .success(let call):
            if attempt == 1, let warn = call.plan.argumentWarnings {
                for text in warn(call.arguments) {
                    record.warnings.append(text)
                    emit(levels.top.path, .warning(state: state.name, message: text))
                }
            }
            return .work(.call(call, shielded: levels.top.onCancelPath))
        case .failure(let error): return attemptEnded(.failed(error), &levels, &record)
        }
    }

    /// Pushes the level of a sub-workflow state's child.
    @inline(never)
    private func descend(_ state: PlannedState, resuming: Bool, _ levels: inout Stack, _ record: inout Record) -> Next {
        let child: ExecutionPlan
        let inputs: JSONObject
        if resuming, let restoring = state.child {
            // Its inputs come from its checkpoint; those evaluated here only fill what the checkpoint lacks.
            (child, inputs) = (restoring, availableInputs(state, scope: levels.top.scope))
        } else {
            switch childInputs(state, scope: levels.top.scope) {
            case .success(let resolved): (child, inputs) = resolved
            case .failure(let error): return attemptEnded(.failed(error), &levels, &record)
            }
        }
        // A level on a cancel path runs its children shielded.
        levels.push(makeLevel(child, inputs: inputs, shielded: levels.top.onCancelPath))
        return .descended
    }

    /// A guard's status check ended.
    @inline(never)
    func guardEnded(_ outcome: RaceOutcome<HubStatus>, _ levels: inout Stack, _ record: inout Record) -> Next {
        guard let state = levels.top.progress?.state, let step = state.step, let passed = levels.top.progress?.guardsPassed
        else { preconditionFailure("no step in progress") }
        let guardName = step.guards[passed]
        if let failure = guardChecked(guardName, outcome, state: state.name, path: levels.top.path) {
            return attemptEnded(failure, &levels, &record)
        }
        levels.top.progress?.guardsPassed += 1
        return proceedStep(&levels, &record)
    }

    /// A hub call ended.
    @inline(never)
    func callEnded(_ outcome: RaceOutcome<JSONValue>, _ call: HubCall, _ levels: inout Stack, _ record: inout Record) -> Next {
        guard let state = levels.top.progress?.state, let attempt = levels.top.progress?.attempt else {
            preconditionFailure("no step in progress")
        }
        let finished = finishCall(call, outcome, state: state.name, path: levels.top.path, attempt: attempt)
        return attemptEnded(finished, &levels, &record)
    }

    /// A level ended: at the top, the run ends; a child level is popped, and its end is the outcome of its
    /// parent's attempt.
    @inline(never)
    func levelEnded(_ end: LevelEnd, _ levels: inout Stack, _ record: inout Record) -> Next {
        guard levels.depth > 0 else { return .work(.ended(end)) }
        levels.pop()
        switch end {
        case .succeeded(let output): return attemptEnded(.finished(output ?? .null), &levels, &record)
        case .failed(let error): return attemptEnded(.failed(error), &levels, &record)
        case .cancelled: return attemptEnded(.cancelled(late: nil), &levels, &record)
        }
    }

    /// The delay before a retry ended: the next attempt starts, unless the run was cancelled first.
    @inline(never)
    func delayEnded(_ elapsed: Bool, _ levels: inout Stack, _ record: inout Record) -> Next {
        guard elapsed else { return stepEnded(.cancelled(late: nil), &levels.top) }
        levels.top.progress?.attempt += 1
        return beginAttempt(&levels, &record)
    }

    /// An attempt ended: retry after a delay when a retrier allows, or the step ends.
    @inline(never)
    private func attemptEnded(_ outcome: consuming RaceOutcome<JSONValue>, _ levels: inout Stack, _ record: inout Record) -> Next {
        if case .failed(let error) = outcome, let delay = retryDelay(after: error, &levels.top) {
            return .work(.delay(.seconds(rounding: delay), shielded: levels.top.onCancelPath))
        }
        return stepEnded(consume outcome, &levels.top)
    }

    /// The delay before retrying after an error, counting the retry; nil when no retrier allows one.
    @inline(never)
    private func retryDelay(after error: FlowError, _ level: inout Level) -> Double? {
        guard error.cause.isRetryable, let progress = level.progress, let step = progress.state.step else { return nil }
        guard let index = step.retry.firstIndex(where: { $0.errors.contains(where: error.matches) }),
            progress.retriesUsed[index] < step.retry[index].maxRetries
        else { return nil }
        level.progress?.retriesUsed[index] += 1
        let retrier = step.retry[index]
        var delay = retrier.delay(beforeRetry: progress.retriesUsed[index] + 1)
        if retrier.jitter { delay *= options.random.fraction() }
        emit(level.path, .retryScheduled(state: progress.state.name, attempt: progress.attempt + 1, delaySeconds: delay, error: error))
        return delay
    }

    /// Where a step's outcome sends the level.
    @inline(never)
    private func stepEnded(_ outcome: consuming RaceOutcome<JSONValue>, _ level: inout Level) -> Next {
        guard let step = level.progress?.state.step else { preconditionFailure("not an action or sub-workflow state") }
        level.progress = nil
        // Consumed, so that the result moves into the scope rather than being copied.
        switch consume outcome {
        case .finished(let value):
            if let result = step.result { level.scope.bind(result, value) }
            emit(level.path, .transition(from: level.current, to: step.next, edge: .next))
            return .move(.to(step.next))
        case .failed(let error):
            let located = located(error, level.qualifiedCurrent)
            guard let (index, route) = step.onError.enumerated().first(where: { $0.element.errors.contains(where: located.matches) }) else {
                return .move(.end(.failed(located)))
            }
            level.scope.error = located
            emit(level.path, .transition(from: level.current, to: route.next, edge: .error(index, route.errors)))
            return .move(.to(route.next))
        case .timedOut:
            preconditionFailure("hub calls report timeouts as deadlineExceeded errors")
        case .cancelled(let late):
            // A call that still succeeded while the run was being cancelled did its work on the hub: keep its
            // result, so the cancel path can tell what to release.
            if let late, let result = step.result { level.scope.bind(result, late) }
            return .move(.cancel)
        }
    }
}
