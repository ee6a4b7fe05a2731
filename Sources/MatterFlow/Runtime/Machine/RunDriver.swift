import MatterFlowJSON

/// Performs a ``RunMachine``'s actions against the hub, the clock and the hub's events, and feeds their ends back
/// as inputs, until the run ends.
///
/// Each piece of hub work runs against its timeout, and against the run's cancel unless the run is on a cancel
/// path: made inline on the run's ``CallSegment`` task until that task first suspends (RunDriver+Segment.swift,
/// RunDriver+Calls.swift), in a ``StepRace`` of its own after that. A call abandoned at its timeout or cancel and still running after its grace period is
/// kept in ``AbandonedCalls``; the run's next hub call waits for it first (bounded), and each wait is a warning.
/// The run's cancel signal is the one way a cancel reaches the machine: the driver feeds it as an input before
/// the next input whenever the signal has fired, so a cancel from the run's own observer (on entering a state)
/// takes effect before that state does any work. A map state that runs elements at once has each element driven
/// by a driver of its own (RunDriver+Elements.swift).
///
/// The driver owns the machine, and belongs to one task at a time: the segment's, then the one that called
/// ``run()``. Everything a run holds while it waits is here, on the heap: the task's suspended frames hold a
/// reference to the driver and the piece of work in flight. Each input is fed by a synchronous method
/// (``feed(_:)``), each kind of work is awaited by an async method of its own that awaits only that work, and the
/// loop in ``drive(_:segment:)`` awaits only those.
final class RunDriver {
    let hub: any Hub
    let options: RunOptions
    let runID: String
    let signal: CancellationSignal
    /// Hub events received and not yet consumed by a wait state.
    let inbox: EventInbox
    /// Answers given in advance and the question waiting for one.
    let desk: AnswerDesk
    /// Hub calls abandoned while still running, which the run's next hub call waits for.
    let abandoned: AbandonedCalls
    /// The run, as data.
    ///
    /// Its accesses are not checked for exclusivity at run time: every one is made on the one task that drives the
    /// run at the time (the driver is handed from task to task only as RunDriver+Segment.swift says; a concurrent
    /// map's element tasks get copies of what they need, not the driver), no access spans a suspension, and none calls anything that reaches the driver while it lasts (the
    /// machine performs no I/O; reports reach the observer in ``perform(_:)``, after the input's access has ended).
    /// The check cost about 5% of the CPU time of `matterflow-bench --filter transition.overhead`, which feeds one
    /// input per state.
    @exclusivity(unchecked) private(set) var machine: RunMachine
    /// Elements a concurrent map state starts or cancels, from the actions that handed over the map's work.
    var orders: [RunAction] = []
    /// The hub call a ``CallSegment`` makes on its own task, while it makes one: what finishing it needs, should the
    /// segment lose the run in it.
    var inFlight: InlineCall?
    /// The run's end (``RunAction/finish(_:)``, its result boxed), once it has ended, until ``run()`` returns the
    /// result. Kept as the action, not the result: a result kept inline would add its size to every driver for the
    /// whole run.
    var ended: RunAction?

    init(
        machine: consuming RunMachine, hub: any Hub, options: RunOptions, runID: String, signal: CancellationSignal,
        inbox: EventInbox, desk: AnswerDesk
    ) {
        self.machine = machine
        self.hub = hub
        self.options = options
        abandoned = AbandonedCalls(pause: options.pause)
        self.runID = runID
        self.signal = signal
        self.inbox = inbox
        self.desk = desk
    }

    /// Performs work, and the inputs its ends feed, until the run ends (true; its result kept by ``end(with:)``). On
    /// a ``CallSegment``'s task, only hub calls and status checks, made inline, until the task has suspended once;
    /// then the segment hands its next work over (``CallSegment/handsOver(_:)``) and this returns false, as it does
    /// when the segment lost the run in a call. Without a segment, each hub call is raced on a task of its own.
    @inline(never)
    func drive(_ first: RunAction, segment: CallSegment?) async -> Bool {
        var work = first
        while true {
            if let segment, segment.handsOver(work) { return false }
            switch work {
            case .finish:
                end(with: work)
                return true
            case .checkStatus(let check):
                guard let next = await checkStatus(check, segment: segment) else { return false }
                work = next
            case .call(let call):
                guard let next = await makeCall(call, segment: segment) else { return false }
                work = next
            case .delay(let duration, let cancellable):
                work = await delay(duration, cancellable: cancellable)
            case .waitForEvent:
                work = await waitForEvent(work)
            case .askQuestion:
                work = await ask(work)
            case .awaitElements:
                work = await runElements()
            case .settleLateSessions:
                work = await settleLateSessions(work)
            case .proceed, .report, .checkpoint, .interruptWork, .startElement, .cancelElement:
                // ``feed(_:)`` proceeds with each state entered itself, and returns only work to await.
                work = feed { machine throws(RunMachineError) in
                    throw RunMachineError(code: .impossibleInput, phase: machine.phaseName, input: "no work")
                }
            }
        }
    }

    // MARK: - Work

    // Each kind of work is awaited in a method of its own, never inlined into `drive(_:segment:)`: an async method's
    // frame has room for every value it copies, held across an await or not, so inlined they would all add up in
    // the frame every waiting run holds, where apart only the one in flight has a frame. For the same reason a
    // wait's payload (stored out of line in the action) is taken out by the method that awaits it, and the run's
    // result kept by a synchronous method: copied out in `drive`, each would take room in its frame. The same holds
    // for the methods of RunDriver+Segment.swift and RunDriver+Calls.swift. With every `@inline(never)` of the driver
    // removed, `matterflow-bench --filter concurrent.10000` (10,000 runs in flight, release build, 7
    // alternated rounds) peaked at 266–282 MB (median 278) against 254–277 (median 257): about 2 KB more per run.

    /// Keeps the result of the run's end for ``run()`` to return; a run whose last work is not its end fails.
    @inline(never)
    func end(with end: RunAction) {
        guard case .finish = end else { return endRefused("an end without a result") }
        ended = end
    }

    /// Waits before a retry, or for a delay state; feeds the delay's end.
    @inline(never)
    private func delay(_ duration: Duration, cancellable: Bool) async -> RunAction {
        let elapsed = await race(cancellable: cancellable).delay(duration)
        return feed { machine throws(RunMachineError) in try machine.delayEnded(elapsed: elapsed) }
    }

    /// Waits for a hub event; feeds the wait's end (after a pause the run was asked to take while it waited).
    @inline(never)
    private func waitForEvent(_ work: RunAction) async -> RunAction {
        guard case .waitForEvent(let wait) = work else { return noWait() }
        if let failure = inbox.takeSubscriptionFailure(),
            let actions = try? machine.warning("no hub events reach this run (\(failure)): waits for \(wait.event) can only time out")
        {
            _ = perform(actions)
        }
        let pause = pauseWhileWaiting()
        let outcome = await inbox.wait(
            for: wait.matches, timeout: wait.timeout, clock: options.clock, signal: wait.cancellable ? signal : nil)
        await parkAfterWaiting(pause)
        let end: WaitEnd
        switch outcome {
        case .finished(let event): end = .event(event)
        case .timedOut: end = .timedOut
        case .failed(let failure):
            if let actions = try? machine.warning(EventInbox.lostWarning(failure.message, event: wait.event)) {
                _ = perform(actions)
            }
            end = .timedOut
        case .cancelled: end = .cancelled
        }
        return feed { machine throws(RunMachineError) in try machine.waitEnded(end) }
    }

    /// Waits for the answer to a question (an answer given in advance that does not fit is reported); feeds the
    /// wait's end (after a pause the run was asked to take while it waited).
    @inline(never)
    private func ask(_ work: RunAction) async -> RunAction {
        guard case .askQuestion(let wait) = work else { return noWait() }
        let pause = pauseWhileWaiting()
        let end = await desk.wait(
            for: wait, clock: options.clock, timeoutClock: options.questionClock, holdingClock: options.questionHoldsClock,
            signal: wait.cancellable ? signal : nil
        ) { reason in
            report(.answerRejected(state: wait.question.state, question: wait.question.name, reason: reason))
        }
        await parkAfterWaiting(pause)
        if case .answered(let value) = end, wait.question.secret {
            options.recording?.secretAnswered(wait.question, value: value)
        }
        return feed { machine throws(RunMachineError) in try machine.answerEnded(end) }
    }

    /// The run's pause switch, told that the run begins a wait where it may park (``RunPause/waitBegan()``); nil on
    /// the cancel path, where a run does not park, or without a switch.
    private func pauseWhileWaiting() -> RunPause? {
        guard !signal.isCancelled, let pause = options.pause else { return nil }
        pause.waitBegan()
        return pause
    }

    /// After such a wait: a run asked to pause meanwhile stays parked here, what ended its wait not taken yet; a
    /// run whose wait its cancel ended takes its cancel path instead.
    private func parkAfterWaiting(_ pause: RunPause?) async {
        guard let pause else { return }
        let parking = !signal.isCancelled
        pause.waitEnded(parking: parking)
        if parking { await pause.parkIfRequested() }
    }

    /// A wait method handed work other than its wait: the run fails.
    private func noWait() -> RunAction {
        .finish(failure(RunMachineError(code: .impossibleInput, phase: machine.phaseName, input: "a wait without what it waits for")))
    }

    // MARK: - Inputs

    /// Feeds an input and performs its actions; returns the work they end with. A cancel signalled meanwhile is fed
    /// next, and may replace that work. A state entered is proceeded with here (``RunMachine/proceed()``, after
    /// that cancel), so that the run goes from state to state within one call, until it hands over work to await.
    /// A run whose machine refuses the input, or hands over no work, ends as failed.
    ///
    /// Never inlined: the machine's work on an input would otherwise be inlined into the async method that awaited
    /// the input's work, and its locals would take room in that method's async frame, which a waiting run holds.
    @inline(never)
    func feed(_ input: (inout RunMachine) throws(RunMachineError) -> RunActions) -> RunAction {
        // An input that ends work the cancel stopped (a call, a wait) notes the cancel itself: it needs its reason.
        if machine.cancelReason == nil, signal.isCancelled { machine.cancelReason = signal.reason }
        do throws(RunMachineError) {
            var work = try performed(input(&machine))
            while case .proceed = work {
                work = try performed(machine.proceed())
            }
            return work
        } catch {
            return .finish(failure(error))
        }
    }

    /// Performs an input's actions; returns the work they end with, or the work of the cancel signalled meanwhile,
    /// which is fed next.
    private func performed(_ actions: consuming RunActions) throws(RunMachineError) -> RunAction {
        guard let work = perform(actions) else {
            throw RunMachineError(code: .impossibleInput, phase: machine.phaseName, input: "an end without next work")
        }
        guard signal.isCancelled, !machine.isCancelRequested else { return work }
        return feedCancel() ?? work
    }

    /// Feeds the run's cancel; returns the work it hands over, if any.
    func feedCancel() -> RunAction? {
        perform(machine.cancelRequested(reason: signal.reason))
    }

    /// Performs reports and checkpoints in order, and adds the element orders of a concurrent map state to
    /// ``orders``; returns the work the actions end with, if any.
    func perform(_ actions: consuming RunActions) -> RunAction? {
        for action in actions.notes {
            switch action {
            case .report(let path, let kind):
                let event = RunEvent(runID: runID, time: options.clock.now, workflowPath: path, kind: kind)
                if case .runFinished = kind, case .finish(let result)? = actions.work {
                    options.recording?.recordEnd(event, output: result.redactedOutput)
                } else {
                    options.recording?.record(event)
                }
                options.observer?(event)
            case .checkpoint(let checkpoint):
                options.recording?.record(checkpoint)
                options.checkpoints?(checkpoint)
            case .interruptWork:
                // The work in flight races the run's cancel signal, which has fired: it is stopping already.
                break
            case .startElement, .cancelElement:
                // For the map's element runner (``runElements()``).
                orders.append(action)
            case .proceed, .checkStatus, .call, .delay, .waitForEvent, .askQuestion, .awaitElements, .settleLateSessions, .finish:
                // Work is never a note: it is the actions' `work`.
                break
            }
        }
        return actions.work
    }

    /// Reports an event of the driver's own about the innermost level (redacted as the machine's reports are).
    func report(_ kind: RunEvent.Kind) {
        guard let event = machine.driverEvent(kind, at: options.clock.now) else { return }
        options.recording?.record(event)
        options.observer?(event)
    }

    /// A run the driver cannot go on with (the machine refused an input): it fails with the refusal.
    func failure(_ error: RunMachineError) -> RunResult {
        RunResult(
            runID: runID, workflow: machine.workflowName, outcome: .failed,
            output: nil, error: FlowError(.engineMisconfigured, error.description), warnings: machine.warnings,
            visitedStates: machine.visited, holdsSession: machine.holdsSession,
            sessionsInDoubt: machine.sessionsInDoubt)
    }

    // MARK: - Hub calls

    /// The race a piece of hub work runs in: cancellable unless the run is on a cancel path.
    func race(cancellable: Bool, state: String = "") -> StepRace {
        StepRace(clock: options.clock, signal: cancellable ? signal : nil, abandoned: abandoned, state: state)
    }

    /// Settles, at the run's end, what its unanswered session-opening calls did (``RunMachine/Phase/ending(_:)``):
    /// waits for the calls the hub still runs (bounded, as before a call, each wait a warning), then releases each
    /// session the hub opened late as the settlement says, and feeds what the releases did.
    @inline(never)
    private func settleLateSessions(_ work: RunAction) async -> RunAction {
        guard case .settleLateSessions(let settlement) = work else { return noWait() }
        if abandoned.hasNothingToSettle(for: settlement) {
            return feed { machine throws(RunMachineError) in try machine.lateSessionsSettled([]) }
        }
        if !abandoned.isEmpty { await settleAbandoned(atEnd: true) }
        options.pause?.callBegan()
        let settled = await abandoned.releaseLateSessions(
            settlement, hub: hub, structure: options.structureID, clock: options.clock, runID: runID)
        options.pause?.callEnded()
        return feed { machine throws(RunMachineError) in try machine.lateSessionsSettled(settled) }
    }

    /// Waits, before a hub call, for the run's abandoned calls to end (see ``AbandonedCalls``); each wait, and
    /// each call given up, is a warning, reported as it happens so that a trace shows why the run is waiting.
    /// Called only when a call is kept: a call of an async method, even one that returns at once, allocates its
    /// frame.
    func settleAbandoned(atEnd: Bool = false) async {
        await abandoned.settle { report in
            // A warning only reports: it orders no element.
            if let actions = try? machine.warning(Self.message(report, atEnd: atEnd)) { _ = perform(actions) }
        }
    }

    /// The warning about an abandoned call the run waits for or gives up, before its next hub call or (`atEnd`)
    /// before it ends.
    static func message(_ report: AbandonedCalls.Report, atEnd: Bool = false) -> String {
        switch report {
        case .waiting(let call):
            "the hub has not ended \(call), abandoned \(Int(StepRace.gracePeriod.secondsValue)) s ago; "
                + "waiting up to \(Int(AbandonedCalls.limit.secondsValue)) s for it before "
                + (atEnd ? "the run ends" : "calling the hub again")
        case .givenUp(let call) where atEnd:
            "the hub still runs \(call) after \(Int(AbandonedCalls.limit.secondsValue)) s more; the run ends without it, "
                + "and a commissioning session it opens now is left to the hub's session lease: check the hub's cancellation"
        case .givenUp(let call):
            "the hub still runs \(call) after \(Int(AbandonedCalls.limit.secondsValue)) s more; the run calls the hub "
                + "again while it runs, so the Hub contract (one call at a time per run) is not kept: check the hub's cancellation"
        }
    }
}
