import MatterFlowJSON
import Synchronization

/// Many runs held as data: each run is a ``RunMachine`` value, not a suspended task, so a run waiting for a hub
/// event, a timeout or a retry costs only its position and bindings.
///
/// The pool keeps one timer queue for every run's timeouts and retry delays, dispatches each hub event handed to
/// ``deliver(_:)`` to the runs on its structure (the first wait it matches ends; other runs keep it for their next
/// wait, as a single run's inbox does), and performs hub work (guards' status checks and calls) as tasks, at most
/// `maxConcurrentWork` at once; the rest queue in order. A run's cancel is an input like any other: a waiting run
/// takes its cancel path at once, and a run whose hub work is in flight stops it first.
///
/// ```swift
/// let pool = RunPool(hub: hub)
/// let run = try pool.submit(workflow, inputs: ["deviceID": "router-1"], structureID: "structure-1")
/// pool.deliver(event)                 // from the hub's event stream
/// let result = await pool.result(of: run)
/// ```
///
/// A run's questions wait for ``answer(_:to:of:)-(JSONValue,_,_)`` (or answers given in advance at ``submit(_:inputs:structureID:runID:answers:)``)
/// until their timeout, as a single run's do.
///
/// The pool's hub work is served with its runs' own ``HubCallContext`` (and a guard's status check with none), whatever
/// task submits a run or delivers an event: unlike ``WorkflowEngine/run(_:inputs:on:options:)``, a pool does not take
/// a context bound around it.
///
/// On a ``VirtualClock`` the pool counts as working while it handles an input, so virtual time passes only while
/// every run waits. Unlike ``WorkflowEngine/run(_:inputs:on:options:)``, a pool does not subscribe to the hub's
/// events for each run (one subscription per run would cost more than the run): ``listen(to:)`` subscribes once for
/// a structure, or hand events from a subscription of your own to ``deliver(_:)``.
///
/// A hub call abandoned at its timeout or cancel and still running after its grace period is waited for (bounded,
/// as a single run does: ``WorkflowEngine``) before the run's next hub call. A map state that runs elements at once
/// (`concurrency` above 1) holds each running element as an entry of its own, with its own machine, hub work and
/// abandoned calls, as a single run's elements each have a driver of their own; the run's cancel reaches every
/// running element, and an element's end is fed to the map once the calls it abandoned have ended.
public final class RunPool: Sendable {
    /// A run submitted to the pool.
    public struct Run: Sendable, Hashable {
        let number: Int
        /// The run's ID, as its events and result carry it.
        public let runID: String
    }

    /// The hub the pool's runs call.
    package let hub: any Hub
    let catalog: OperationCatalog
    let clock: any WorkflowClock
    /// Draws the pool's run IDs and its runs' retry jitter.
    package let random: any RandomSource
    let maxConcurrentWork: Int
    let observer: (@Sendable (RunEvent) -> Void)?
    let state = Mutex(PoolState())

    /// - Parameters:
    ///   - maxConcurrentWork: How many hub calls and status checks run at once, over all runs.
    ///   - observer: Receives every run's events (secrets redacted); nil builds none, unless a run has an observer
    ///     of its own (``submit(_:inputs:structureID:runID:answers:observer:)``).
    public init(
        hub: any Hub, catalog: OperationCatalog = .standard, clock: any WorkflowClock = SystemClock(),
        random: any RandomSource = SystemRandomSource(), maxConcurrentWork: Int = 64,
        observer: (@Sendable (RunEvent) -> Void)? = nil
    ) {
        self.hub = hub
        self.catalog = catalog
        self.clock = clock
        self.random = random
        self.maxConcurrentWork = max(1, maxConcurrentWork)
        self.observer = observer
    }

    /// Submits a run and starts it; it runs until it must wait, then waits as data.
    /// - Parameters:
    ///   - answers: Answers to the run's questions given in advance, by question name (or ask state name); each is
    ///     used once, when its question is asked, and one that does not fit is reported (`answerRejected`) and the
    ///     question waits for ``answer(_:to:of:)-(JSONValue,_,_)``.
    ///   - observer: Receives this run's events (secrets redacted), as well as the pool's observer does: a service
    ///     streams each run to whoever follows it. Called outside the pool's lock, so it may call the pool.
    ///   - recording: Told of the run's every event and checkpoint, in the run's order, and of each hub call before
    ///     the hub sees it and after (as ``RunOptions/recording`` is for a single run): how `RunJournal` journals a
    ///     pool's run. Its events and checkpoints are recorded under the pool's lock, its calls and the run's end
    ///     outside it.
    /// - Throws: ``DiagnosticsError`` when the inputs do not match the workflow's declarations.
    @discardableResult
    public func submit(
        _ workflow: Workflow, inputs: JSONObject = [:], structureID: StructureID, runID: String? = nil,
        answers: [String: JSONValue] = [:], observer runObserver: (@Sendable (RunEvent) -> Void)? = nil,
        recording: (any RunRecording)? = nil
    ) throws(DiagnosticsError) -> Run {
        submit(
            workflow, resolvedInputs: try workflow.resolveRunInputs(inputs), structureID: structureID, runID: runID,
            answers: answers, observer: runObserver, recording: recording)
    }

    /// Submits a run whose inputs the caller has resolved already (``Workflow/resolveRunInputs(_:)``), as
    /// ``submit(_:inputs:structureID:runID:answers:observer:recording:)`` does after resolving them: for the journal,
    /// which resolves them first to digest the secret ones.
    @discardableResult
    package func submit(
        _ workflow: Workflow, resolvedInputs resolved: ResolvedInputs, structureID: StructureID, runID: String?,
        answers: [String: JSONValue], observer runObserver: (@Sendable (RunEvent) -> Void)?, recording: (any RunRecording)?
    ) -> Run {
        let configuration = configuration(
            runID: runID ?? "run-" + random.hexDigits(12), structureID: structureID, showSecrets: false,
            observed: runObserver != nil, recording: recording)
        let machine = RunMachine(
            place: workflow.model.topPlace(catalog: catalog), inputs: resolved.values, configuration: configuration,
            payloads: resolved.payloads)
        return start(
            machine, of: workflow, structureID: structureID, answers: answers, observer: runObserver, recording: recording, ending: nil)
    }

    /// How a run of the pool is configured: it builds events when someone follows it (the pool's observer, its
    /// own, its recording), and checkpoints when it is recorded.
    func configuration(
        runID: String, structureID: StructureID, showSecrets: Bool, observed: Bool, recording: (any RunRecording)?
    ) -> RunMachine.Configuration {
        RunMachine.Configuration(
            runID: runID, structureID: structureID, showSecrets: showSecrets,
            reportsEvents: observer != nil || observed || recording != nil, recordsCheckpoints: recording != nil,
            random: random, wallClock: WallClock.reading(clock, origin: nil))
    }

    /// Adds a run with its machine and starts it.
    func start(
        _ machine: RunMachine, of workflow: Workflow, structureID: StructureID, answers: [String: JSONValue],
        observer runObserver: (@Sendable (RunEvent) -> Void)?, recording: (any RunRecording)?, ending: Ending?
    ) -> Run {
        let listens = workflow.waitsForEvents
        let run = state.withLock { state -> Run in
            state.nextNumber += 1
            let run = Run(number: state.nextNumber, runID: machine.configuration.runID)
            state.runs[run.number] = PoolEntry(
                machine: machine, structure: structureID, listens: listens, answers: answers, observer: runObserver)
            if let recording { state.recordings[run.number] = recording }
            if let ending { state.endings[run.number] = ending }
            if listens { state.listeners[structureID, default: []].append(run.number) }
            return run
        }
        feed(run.number, .start)
        return run
    }

    /// Hands a hub event to the runs on its structure: each run whose wait it matches wakes; the others keep it
    /// for their next wait.
    public func deliver(_ event: HubEvent) {
        handle { state, effects in
            let now = clock.now
            for number in state.listeners[event.structureID] ?? [] {
                guard let entry = state.runs[number] else { continue }
                guard case .event(let wait, let timer) = entry.waiting, wait.matches(event) else {
                    EventInbox.keep(event, in: &entry.inbox)
                    continue
                }
                state.timerOwners[timer] = nil
                state.feed(number, .waitEnded(.event(event)), now: now, limits: self, effects: &effects)
            }
        }
    }

    /// Subscribes to the hub's events for `structure` and hands each to ``deliver(_:)``, until the subscription
    /// returned is cancelled. Listen before submitting the structure's runs, so that no event falls between. When
    /// the subscription is lost (the hub's connection), ``eventsLost(_:reason:)`` ends the structure's waits.
    public func listen(to structure: StructureID) async -> any HubEventSubscription {
        let subscription = await hub.subscribe(structure: structure) { [weak self] event in self?.deliver(event) }
        subscription.whenLost { [weak self] reason in self?.eventsLost(structure, reason: reason) }
        return subscription
    }

    /// The hub's events of `structure` stopped reaching the pool (`reason` says why): each run waiting for one ends
    /// its wait by its timeout path at once, with a warning, and so does every later wait on the structure.
    public func eventsLost(_ structure: StructureID, reason: String) {
        handle { state, effects in
            guard state.lostEvents[structure] == nil else { return }
            state.lostEvents[structure] = reason
            let now = clock.now
            for number in state.listeners[structure] ?? [] {
                guard let entry = state.runs[number], case .event(let wait, let timer) = entry.waiting else { continue }
                state.timerOwners[timer] = nil
                state.feed(number, .warning(EventInbox.lostWarning(reason, event: wait.event)), now: now, limits: self, effects: &effects)
                state.feed(number, .waitEnded(.timedOut), now: now, limits: self, effects: &effects)
            }
        }
    }

    /// Cancels a run: a waiting run takes its cancel path at once; one whose hub work is in flight (or queued) stops
    /// it first. Cancelling a run that has ended does nothing. `reason` says why, as ``RunHandle/cancel(reason:)``'s.
    public func cancel(_ run: Run, reason: String? = nil) {
        feed(run.number, .cancel(reason: reason))
    }

    /// Answers the question a run waits for, named by its question name or its ask state's name. A string that does
    /// not fit as it is reads as typed text (a choice's number or label, `yes`/`no`).
    /// - Throws: ``AnswerError``: `invalidAnswer` when the answer does not fit the question's schema (the reason says
    ///   why), `noPendingQuestion` when the run waits for no question of that name. The run keeps waiting either way.
    public func answer(_ value: JSONValue, to name: String, of run: Run) throws(AnswerError) {
        let pending = state.withLock { state -> (question: Question, timer: UInt64)? in
            guard case .question(let question, let timer)? = state.runs[run.number]?.waiting else { return nil }
            return (question, timer)
        }
        guard let pending, pending.question.answers(to: name) else { throw AnswerError.notAsked(name, waiting: pending?.question) }
        let checked = try pending.question.accept(value)
        let taken = handle { state, effects -> Bool in
            guard case .question(_, let timer)? = state.runs[run.number]?.waiting, timer == pending.timer else { return false }
            state.timerOwners[timer] = nil
            if pending.question.secret { state.recordings[run.number]?.secretAnswered(pending.question, value: checked) }
            state.feed(run.number, .answerEnded(.answered(checked)), now: clock.now, limits: self, effects: &effects)
            return true
        }
        guard taken else { throw AnswerError.stoppedWaiting(name) }
    }

    /// Gives a run the answer to the question `name` (its question name or its ask state's) whether or not it waits
    /// for it now, as ``RunHandle/give(_:to:)`` does: the waiting question takes it at once, checked as
    /// ``answer(_:to:of:)-(JSONValue,_,_)`` checks it; otherwise it is kept, as an answer given in advance is, and used
    /// when the question is asked (one that does not fit is then reported as `answerRejected`).
    /// - Throws: ``AnswerError`` `invalidAnswer` when the question waits now and the answer does not fit,
    ///   `noPendingQuestion` when the run has ended (or the question stopped waiting while the answer was checked).
    @discardableResult
    public func give(_ value: JSONValue, to name: String, of run: Run) throws(AnswerError) -> AnswerDelivery {
        let waiting = state.withLock { state -> Question?? in
            guard let entry = state.runs[run.number] else { return .none }
            switch entry.waiting {
            case .question(let question, _) where question.answers(to: name):
                return .some(question)
            case .recordingEnd, .finished:
                return .none
            case .nothing, .event, .delay, .question, .working, .elements:
                entry.answers[name] = value
                return .some(nil)
            }
        }
        switch waiting {
        case .none: throw AnswerError.runEnded(name)
        case .some(.none): return .kept
        case .some(.some):
            try answer(value, to: name, of: run)
            return .answered
        }
    }

    /// Answers the question a run waits for with a typed value.
    /// - Throws: ``AnswerError``, as ``answer(_:to:of:)-(JSONValue,_,_)`` does.
    public func answer(_ value: AnswerValue, to name: String, of run: Run) throws(AnswerError) {
        try answer(value.jsonValue, to: name, of: run)
    }

    /// The question the run waits for an answer to now, if any.
    public func pendingQuestion(of run: Run) -> Question? {
        state.withLock { state in
            guard case .question(let question, _)? = state.runs[run.number]?.waiting else { return nil }
            return question
        }
    }

    /// The run's result, once it has ended; the pool then forgets the run. Callers waiting at the same time all get
    /// it; one asking after that gets nil. Nil too when the waiting task is cancelled: the run goes on, and its
    /// result can be asked for again.
    public func result(of run: Run) async -> RunResult? {
        let id = state.withLock { state in
            state.nextResultWaiter += 1
            return state.nextResultWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<RunResult?, Never>) in
                let ready = state.withLock { state -> RunResult?? in
                    guard let entry = state.runs[run.number] else { return .some(nil) }
                    if case .finished(let result) = entry.waiting {
                        state.forget(run.number)
                        return .some(result)
                    }
                    // Cancelled before it could wait: the handler found no waiter to end.
                    if Task.isCancelled { return .some(nil) }
                    entry.resultWaiters.append((id, continuation))
                    return nil
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<RunResult?, Never>? in
                guard let entry = state.runs[run.number], let index = entry.resultWaiters.firstIndex(where: { $0.id == id }) else {
                    return nil
                }
                return entry.resultWaiters.remove(at: index).continuation
            }
            waiter?.resume(returning: nil)
        }
    }

    /// How many runs the pool holds (running, waiting, or ended with a result not yet taken).
    public var runCount: Int { state.withLock { $0.runs.count - $0.elementCount } }

    /// How many runs wait for a hub event.
    public var waitingForEvents: Int { count(.event) }

    /// How many runs wait for an answer.
    public var waitingForAnswers: Int { count(.answer) }

    /// How many runs wait for a delay to pass (a `delay` state or a retry's).
    public var waitingForDelays: Int { count(.delay) }

    private func count(_ kind: PoolWaiting.Kind) -> Int {
        state.withLock { state in
            state.runs.values.reduce(0) { count, entry in entry.parent == nil && entry.waiting.kind == kind ? count + 1 : count }
        }
    }

    // MARK: - Driving

    /// Handles an input of the pool: changes its state under its lock, arms the timer queue for the earliest
    /// deadline left, then performs what follows (reports, results, hub work) outside the lock. Every input goes
    /// through here, and the pool counts as working on the clock meanwhile, so on virtual time the clock moves only
    /// while every run waits as data and no hub work runs.
    private func handle<Result: Sendable>(_ change: (inout PoolState, inout PoolEffects) -> Result) -> Result {
        clock.working {
            var effects = PoolEffects()
            let result = state.withLock { state -> Result in
                let result = change(&state, &effects)
                state.arm(clock: clock, pool: self)
                return result
            }
            perform(effects)
            return result
        }
    }

    /// Feeds an input to a run and performs what follows.
    func feed(_ number: Int, _ input: PoolInput) {
        handle { state, effects in
            state.feed(number, input, now: clock.now, limits: self, effects: &effects)
        }
    }

    /// The timer queue's earliest deadline has come: every run whose timeout or retry delay is due moves on.
    func timersFired() {
        handle { state, effects in
            let now = clock.now
            state.armedDeadline = nil
            state.armedTimer = nil
            while let top = state.timers.peek, top.deadline <= now {
                _ = state.timers.pop()
                guard let number = state.timerOwners.removeValue(forKey: top.id), let entry = state.runs[number] else { continue }
                switch entry.waiting {
                case .event(_, let timer) where timer == top.id:
                    state.feed(number, .waitEnded(.timedOut), now: now, limits: self, effects: &effects)
                case .delay(let timer) where timer == top.id:
                    state.feed(number, .delayEnded, now: now, limits: self, effects: &effects)
                case .question(_, let timer) where timer == top.id:
                    state.feed(number, .answerEnded(.timedOut), now: now, limits: self, effects: &effects)
                case .event, .delay, .question, .nothing, .working, .elements, .recordingEnd, .finished:
                    // A timer the run no longer waits on (it moved on first).
                    break
                }
            }
        }
    }

    /// Reports events, resumes those waiting for results, and starts hub work, outside the pool's lock.
    private func perform(_ effects: PoolEffects) {
        // The run's result comes with its end, in the same effects: its output is kept with the end.
        let results = effects.finishes.isEmpty
            ? [:] : Dictionary(effects.recordedEnds.map { ($0.number, $0.result) }, uniquingKeysWith: { first, _ in first })
        for (number, recording, event) in effects.finishes {
            if let result = results[number] {
                recording.recordEnd(event, output: result.redactedOutput)
            } else {
                recording.record(event)
            }
        }
        if !effects.recordedEnds.isEmpty {
            let endings = handle { state, next -> [(number: Int, result: RunResult, ending: Ending)] in
                var endings: [(number: Int, result: RunResult, ending: Ending)] = []
                for (number, result) in effects.recordedEnds {
                    if let ending = state.endings.removeValue(forKey: number) {
                        endings.append((number, result, ending))
                    } else {
                        state.ended(number, result, effects: &next)
                    }
                }
                return endings
            }
            for (number, result, ending) in endings {
                clock.detachedTask {
                    let handedOut = await ending(result)
                    self.handle { state, next in state.ended(number, handedOut, effects: &next) }
                }
            }
        }
        for (event, runObserver) in effects.reports {
            observer?(event)
            runObserver?(event)
        }
        for (waiter, result) in effects.results { waiter.resume(returning: result) }
        // The work in flight races each signal; its end is fed as cancelled.
        for signal in effects.cancels { signal.cancel() }
        for job in effects.jobs { start(job) }
        for settle in effects.settles { clock.detachedTask { await self.settle(settle) } }
    }

    /// Waits for an ended element's abandoned calls (each wait a warning, reported and kept in the element's end),
    /// then feeds its end to the entry whose map started it.
    private func settle(_ settle: PoolElementSettle) async {
        var warnings = settle.end.warnings
        await settle.abandoned.settle { report in
            let message = RunDriver.message(report)
            warnings.append(message)
            let machine = settle.machine
            guard let event = machine.driverEvent(.warning(state: machine.top.current, message: message), at: clock.now) else { return }
            settle.recording?.record(event)
            observer?(event)
            settle.runObserver?(event)
        }
        let end = settle.end
        feed(
            settle.parent,
            .elementEnded(
                ElementEnd(
                    index: end.index, end: end.end, visited: end.visited, warnings: warnings, sessionsInDoubt: end.sessionsInDoubt,
                    calls: end.calls)))
    }

    /// Starts a piece of hub work as a task, working on the clock until its end is fed. Detached: whatever task
    /// starts it (a submit, an event delivered from inside another run's hub call, a timer) lends it nothing, so the
    /// hub serves the job with its own run's context, and a guard's status check with none.
    private func start(_ job: PoolJob) {
        clock.detachedTask { await self.run(job) }
    }

    private func run(_ job: PoolJob) async {
        // The Hub contract: never two calls for one run at once, so first the run's abandoned calls end (bounded);
        // each wait and each call given up is a warning, reported as it happens.
        if !job.abandoned.isEmpty {
            let atEnd = if case .settleLateSessions = job.work { true } else { false }
            await job.abandoned.settle { report in feed(job.number, .warning(RunDriver.message(report, atEnd: atEnd))) }
        }
        switch job.work {
        case .status(let check):
            let signal = check.cancellable ? job.signal : nil
            let race = StepRace(clock: clock, signal: signal, abandoned: job.abandoned, state: check.state)
            let outcome: RaceOutcome<HubStatus> =
                signal?.isCancelled == true ? .cancelled(late: nil) : await race.status(hub: hub, structure: job.structure)
            workEnded(job.number, .statusChecked(outcome))
        case .call(let call):
            let signal = call.cancellable ? job.signal : nil
            let started = job.timed ? clock.now : Duration.zero
            let outcome: RaceOutcome<JSONValue>
            if signal?.isCancelled == true {
                outcome = .cancelled(late: nil)
            } else {
                let make = { (lateResult: (@Sendable (JSONValue) -> Void)?) async -> RaceOutcome<JSONValue> in
                    var race = StepRace(clock: self.clock, signal: signal, abandoned: job.abandoned, state: call.state)
                    race.onLateResult = lateResult
                    return await race.call(call, context: call.context, hub: self.hub, structure: job.structure)
                }
                if let recording = job.recording {
                    outcome = await recording.recorded(call, context: call.context) { lateResult in await make(lateResult) }
                } else {
                    outcome = await make(nil)
                }
            }
            let duration = job.timed ? clock.now - started : Duration.zero
            workEnded(job.number, .callEnded(outcome, duration: duration))
        case .settleLateSessions(let settlement, let runID):
            let settled = await job.abandoned.releaseLateSessions(
                settlement, hub: hub, structure: job.structure, clock: clock, runID: runID)
            workEnded(job.number, .lateSessionsSettled(settled))
        }
    }

    /// A piece of hub work ended: the next queued one starts, and the run takes the end as its input.
    private func workEnded(_ number: Int, _ input: PoolInput) {
        handle { state, effects in
            state.running -= 1
            state.startQueued(limits: self, effects: &effects)
            state.feed(number, input, now: clock.now, limits: self, effects: &effects)
        }
    }
}
