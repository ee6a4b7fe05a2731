import MatterFlowJSON

/// Everything a ``RunPool`` holds, under its lock.
struct PoolState: ~Copyable {
    var runs: [Int: PoolEntry] = [:]
    var nextNumber = 0
    /// The number the next caller waiting for a result gets, so that its cancellation finds it.
    var nextResultWaiter = 0
    /// The runs whose workflows wait for events, by structure.
    var listeners: [StructureID: [Int]] = [:]
    /// Why the hub's events of a structure stopped reaching the pool (``RunPool/listen(to:)``'s connection was
    /// lost): every wait on it ends by its timeout path at once.
    var lostEvents: [StructureID: String] = [:]
    /// Every run's timeouts and retry delays, by deadline.
    var timers = DeadlineHeap()
    var nextTimer: UInt64 = 0
    /// The run each pending timer belongs to; a timer whose run moved on is dropped from here.
    var timerOwners: [UInt64: Int] = [:]
    /// The deadline the clock's one timer is set for, and that timer.
    var armedDeadline: Duration?
    var armedTimer: (any ClockTimer)?
    /// Hub work running now, and work waiting for a slot, in order.
    var running = 0
    var queue: [PoolJob] = []
    var queueHead = 0

    /// Inputs not fed yet, in order. An input's actions can start or cancel a concurrent map's elements, and an
    /// element's end is an input of its map's run: those are queued here and fed one after another by the outermost
    /// ``feed(_:_:now:limits:effects:)``, not by recursion, so a map of many elements that end at once cannot
    /// exhaust the stack.
    var inputs: [(number: Int, input: PoolInput)] = []
    var feeding = false
    /// How many entries are elements of concurrent map states rather than runs.
    var elementCount = 0
    /// The recordings of the runs (and their elements) that have one, such as a journal's: kept apart from the
    /// entries, so that runs without one hold no room for it.
    var recordings: [Int: any RunRecording] = [:]
    /// What runs resumed with an ending (``RunPool/Ending``) do once they have ended, before their results are
    /// handed out; kept apart from the entries, as ``recordings`` are.
    var endings: [Int: RunPool.Ending] = [:]

    /// Feeds an input to a run (or element), then handles its actions until it waits or ends, and does the same
    /// for every input those actions give its elements or its map.
    mutating func feed(
        _ number: Int, _ input: PoolInput, now: Duration, limits pool: RunPool, effects: inout PoolEffects
    ) {
        inputs.append((number, input))
        guard !feeding else { return }
        feeding = true
        var head = 0
        while head < inputs.count {
            let next = inputs[head]
            head += 1
            feedOne(next.number, next.input, now: now, limits: pool, effects: &effects)
        }
        inputs.removeAll(keepingCapacity: true)
        feeding = false
    }

    private mutating func feedOne(
        _ number: Int, _ input: PoolInput, now: Duration, limits pool: RunPool, effects: inout PoolEffects
    ) {
        guard let entry = runs[number] else { return }
        switch entry.waiting {
        case .finished, .recordingEnd: return
        case .nothing, .event, .delay, .question, .working, .elements: break
        }
        if case .cancel(let reason) = input {
            // Each element's cancel is tied to its run's, as a single run's element signals are.
            for element in entry.elements.values { cancel(element, reason: reason, effects: &effects) }
        }
        var next = given(number, entry, effects: &effects) { entry throws(RunMachineError) in try input.apply(to: &entry.machine) }
        while !next.isEmpty {
            let actions = next
            next = RunActions()
            for action in actions {
                switch action {
                case .report(let path, let kind):
                    report(RunEvent(runID: entry.machine.configuration.runID, time: now, workflowPath: path, kind: kind), number, entry, pool: pool, effects: &effects)
                case .checkpoint(let checkpoint):
                    // Recorded under the pool's lock, so in the run's order whatever thread handles its next input.
                    recordings[number]?.record(checkpoint)
                case .interruptWork:
                    // The work in flight now, under the same lock as the cancel (not work that ended meanwhile),
                    // races this signal; its end is fed as cancelled.
                    if case .working(let signal) = entry.waiting { effects.cancels.append(signal) }
                case .proceed:
                    entry.waiting = .nothing
                    next = given(number, entry, effects: &effects) { entry throws(RunMachineError) in try entry.machine.proceed() }
                case .checkStatus(let check):
                    enqueue(.status(check), number, entry, limits: pool, effects: &effects)
                case .call(let call):
                    enqueue(.call(call), number, entry, limits: pool, effects: &effects)
                case .delay(let duration, _):
                    entry.waiting = .delay(timer: addTimer(now + duration, number))
                case .waitForEvent(let wait):
                    if let index = entry.inbox.firstIndex(where: wait.matches) {
                        let event = entry.inbox.remove(at: index)
                        entry.waiting = .nothing
                        next = given(number, entry, effects: &effects) { entry throws(RunMachineError) in
                            try entry.machine.waitEnded(.event(event))
                        }
                    } else if let reason = lostEvents[entry.structure] {
                        entry.waiting = .nothing
                        next = given(number, entry, effects: &effects) { entry throws(RunMachineError) in
                            var actions = try entry.machine.warning(EventInbox.lostWarning(reason, event: wait.event))
                            for action in try entry.machine.waitEnded(.timedOut) { actions.append(action) }
                            return actions
                        }
                    } else {
                        entry.waiting = .event(wait, timer: addTimer(now + wait.timeout, number))
                    }
                case .askQuestion(let wait):
                    if let answer = givenAnswer(to: wait.question, number, entry, now: now, pool: pool, effects: &effects) {
                        entry.waiting = .nothing
                        next = given(number, entry, effects: &effects) { entry throws(RunMachineError) in
                            try entry.machine.answerEnded(.answered(answer))
                        }
                    } else {
                        entry.waiting = .question(wait.question, timer: addTimer(now + wait.timeout, number))
                    }
                case .finish(let result):
                    finish(number, entry, result, effects: &effects)
                case .startElement(let launch):
                    startElement(launch, of: number, entry)
                case .cancelElement(let index):
                    if let element = entry.elements[index] { cancel(element, reason: nil, effects: &effects) }
                case .awaitElements:
                    entry.waiting = .elements
                case .settleLateSessions(let settlement):
                    if entry.abandoned.map({ $0.hasNothingToSettle(for: settlement) }) ?? (settlement.unreadOpen == nil) {
                        next = given(number, entry, effects: &effects) { entry throws(RunMachineError) in
                            try entry.machine.lateSessionsSettled([])
                        }
                    } else {
                        enqueue(
                            .settleLateSessions(settlement, runID: entry.machine.configuration.runID), number, entry, limits: pool,
                            effects: &effects)
                    }
                }
            }
        }
    }

    /// Reports a run's event to its recording and its observers. Recorded under the pool's lock, so in the run's order
    /// whatever thread handles its next input; but the run's end, which a journal flushes to disk, is recorded outside
    /// it, before the run's result is handed out.
    private func report(_ event: RunEvent, _ number: Int, _ entry: PoolEntry, pool: RunPool, effects: inout PoolEffects) {
        if let recording = recordings[number] {
            if case .runFinished = event.kind { effects.finishes.append((number, recording, event)) } else { recording.record(event) }
        }
        if pool.observer != nil || entry.observer != nil { effects.reports.append((event, entry.observer)) }
    }

    /// The answer given in advance to `question`, checked against it; one that does not fit is reported as rejected
    /// (to the observers) and dropped, and the question waits.
    private func givenAnswer(
        to question: Question, _ number: Int, _ entry: PoolEntry, now: Duration, pool: RunPool, effects: inout PoolEffects
    ) -> JSONValue? {
        switch question.takeGivenAnswer(from: &entry.answers) {
        case .success(let answer)?:
            if question.secret { recordings[number]?.secretAnswered(question, value: answer) }
            return answer
        case .failure(let error)?:
            let kind = RunEvent.Kind.answerRejected(state: question.state, question: question.name, reason: error.message)
            if let event = entry.machine.driverEvent(kind, at: now) { report(event, number, entry, pool: pool, effects: &effects) }
            return nil
        case nil:
            return nil
        }
    }

    /// The actions an input gives; a refused input (a pool's mistake) ends the run as failed with the refusal.
    private mutating func given(
        _ number: Int, _ entry: PoolEntry, effects: inout PoolEffects, _ input: (PoolEntry) throws(RunMachineError) -> RunActions
    ) -> RunActions {
        do throws(RunMachineError) {
            return try input(entry)
        } catch {
            let machine = entry.machine
            finish(
                number, entry,
                RunResult(
                    runID: machine.configuration.runID, workflow: machine.workflowName, outcome: .failed, output: nil,
                    error: FlowError(.engineMisconfigured, error.description), warnings: machine.warnings,
                    visitedStates: machine.visited, holdsSession: machine.holdsSession,
                    sessionsInDoubt: machine.sessionsInDoubt),
                effects: &effects)
            return RunActions()
        }
    }

    private mutating func finish(_ number: Int, _ entry: PoolEntry, _ result: RunResult, effects: inout PoolEffects) {
        if let parent = entry.parent {
            elementEnded(number, entry, parent: parent, result, effects: &effects)
            return
        }
        let recorded = recordings.removeValue(forKey: number) != nil
        if recorded || endings[number] != nil {
            // Its end is recorded, and its ending run, outside the lock first; only then is the result handed out
            // (``ended(_:_:effects:)``).
            entry.waiting = .recordingEnd
            entry.inbox = []
            effects.recordedEnds.append((number, result))
            return
        }
        ended(number, result, effects: &effects)
    }

    /// A run's result is ready: handed to the caller waiting for it, or kept until one asks.
    mutating func ended(_ number: Int, _ result: RunResult, effects: inout PoolEffects) {
        guard let entry = runs[number] else { return }
        if !entry.resultWaiters.isEmpty {
            forget(number)
            for waiter in entry.resultWaiters { effects.results.append((waiter.continuation, result)) }
            entry.resultWaiters = []
        } else {
            entry.waiting = .finished(result)
            entry.inbox = []
        }
    }

    /// Drops a run (its result was taken).
    mutating func forget(_ number: Int) {
        guard let entry = runs.removeValue(forKey: number) else { return }
        recordings[number] = nil
        endings[number] = nil
        if entry.listens {
            listeners[entry.structure]?.removeAll { $0 == number }
            if listeners[entry.structure]?.isEmpty == true { listeners[entry.structure] = nil }
        }
    }

    private mutating func addTimer(_ deadline: Duration, _ number: Int) -> UInt64 {
        nextTimer += 1
        timers.push(deadline: deadline, id: nextTimer)
        timerOwners[nextTimer] = number
        return nextTimer
    }

    private mutating func enqueue(
        _ work: PoolJob.Work, _ number: Int, _ entry: PoolEntry, limits pool: RunPool, effects: inout PoolEffects
    ) {
        let abandoned = entry.abandoned ?? AbandonedCalls()
        entry.abandoned = abandoned
        let job = PoolJob(
            number: number, structure: entry.structure, work: work, signal: CancellationSignal(), abandoned: abandoned,
            timed: entry.machine.configuration.reportsEvents, recording: recordings[number])
        entry.waiting = .working(job.signal)
        if running < pool.maxConcurrentWork {
            running += 1
            effects.jobs.append(job)
        } else {
            queue.append(job)
        }
    }

    /// Starts queued work while slots are free.
    mutating func startQueued(limits pool: RunPool, effects: inout PoolEffects) {
        while running < pool.maxConcurrentWork, queueHead < queue.count {
            effects.jobs.append(queue[queueHead])
            queueHead += 1
            running += 1
        }
        if queueHead == queue.count {
            queue.removeAll(keepingCapacity: false)
            queueHead = 0
        }
    }

    /// Sets the clock's one timer for the earliest pending deadline, when it is not set for it already.
    mutating func arm(clock: any WorkflowClock, pool: RunPool) {
        while let top = timers.peek, timerOwners[top.id] == nil { _ = timers.pop() }
        guard let earliest = timers.peek?.deadline else { return }
        if let armedDeadline, armedDeadline <= earliest { return }
        armedTimer?.cancel()
        armedDeadline = earliest
        armedTimer = clock.scheduleTimer(after: earliest - clock.now) { [weak pool] in pool?.timersFired() }
    }
}
