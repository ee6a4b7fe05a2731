import MatterFlowJSON

/// Performs a ``RunMachine``'s actions against the hub, the clock and the hub's events, and feeds their ends back
/// as inputs, until the run ends.
///
/// Each piece of hub work runs in a ``StepRace``: against its timeout, and against the run's cancel unless the
/// run is on a cancel path. A call abandoned at its timeout or cancel and still running after its grace period is
/// kept in ``AbandonedCalls``; the run's next hub call waits for it first (bounded), and each wait is a warning.
/// The run's cancel signal is the one way a cancel reaches the machine: the driver feeds it as an input before
/// the next input whenever the signal has fired, so a cancel from the run's own observer (on entering a state)
/// takes effect before that state does any work. A map state that runs elements at once has each element driven
/// by a driver of its own (RunDriver+Elements.swift).
struct RunDriver: Sendable {
    let hub: any Hub
    let options: RunOptions
    let runID: String
    let signal: CancellationSignal
    /// Hub events received and not yet consumed by a wait state.
    let inbox: EventInbox
    /// Answers given in advance and the question waiting for one.
    let desk: AnswerDesk
    /// Hub calls abandoned while still running, which the run's next hub call waits for.
    let abandoned = AbandonedCalls()

    /// Drives the machine from its start to its end.
    func run(_ machine: inout RunMachine) async -> RunResult {
        do throws(RunMachineError) {
            // Elements a concurrent map state starts or cancels, from the actions that handed over `work`.
            var orders: [RunAction] = []
            var work = perform(try machine.start(), orders: &orders) ?? .proceed
            while true {
                if signal.isCancelled, !machine.isCancelRequested, let next = perform(machine.cancelRequested(), orders: &orders) { work = next }
                let actions: RunActions
                switch work {
                case .finish(let result):
                    return result
                case .awaitElements:
                    work = try await runElements(&machine, orders: &orders)
                    continue
                case .proceed:
                    actions = try machine.proceed()
                case .checkStatus(let check):
                    await settleAbandoned(&machine)
                    let outcome = await race(cancellable: check.cancellable, state: check.state)
                        .status(hub: hub, structure: options.structureID)
                    if case .cancelled = outcome { _ = perform(machine.cancelRequested(), orders: &orders) }
                    actions = try machine.statusChecked(outcome)
                case .call(let call):
                    if call.attempt == 1, !signal.isCancelled, let pause = options.pause { await pause.parkIfRequested() }
                    // The clock is read only for the reports' durations.
                    let started = options.observer == nil ? Duration.zero : options.clock.now
                    await settleAbandoned(&machine)
                    let outcome = await recorded(call)
                    if case .cancelled = outcome { _ = perform(machine.cancelRequested(), orders: &orders) }
                    let duration = options.observer == nil ? Duration.zero : options.clock.now - started
                    actions = try machine.callEnded(outcome, duration: duration)
                case .delay(let duration, let cancellable):
                    let elapsed = await race(cancellable: cancellable).delay(duration)
                    actions = try machine.delayEnded(elapsed: elapsed)
                case .waitForEvent(let wait):
                    let outcome = await inbox.wait(
                        for: wait.matches, timeout: wait.timeout, clock: options.clock, signal: wait.cancellable ? signal : nil)
                    let end: WaitEnd
                    switch outcome {
                    case .finished(let event): end = .event(event)
                    case .timedOut, .failed: end = .timedOut
                    case .cancelled: end = .cancelled
                    }
                    actions = try machine.waitEnded(end)
                case .askQuestion(let wait):
                    let end = await desk.wait(
                        for: wait, clock: options.clock, timeoutClock: options.questionClock,
                        signal: wait.cancellable ? signal : nil
                    ) { reason in
                        report(.answerRejected(state: wait.question.state, question: wait.question.name, reason: reason), machine)
                    }
                    if case .answered(let value) = end, wait.question.secret {
                        options.recording?.secretAnswered(wait.question, value: value)
                    }
                    actions = try machine.answerEnded(end)
                case .report, .checkpoint, .interruptWork, .startElement, .cancelElement:
                    throw RunMachineError(code: .impossibleInput, phase: machine.phaseName, input: "no work")
                }
                guard let next = perform(actions, orders: &orders) else {
                    throw RunMachineError(code: .impossibleInput, phase: machine.phaseName, input: "an end without next work")
                }
                work = next
            }
        } catch {
            return failure(error, machine)
        }
    }

    /// Performs reports and checkpoints in order, and adds the element orders of a concurrent map state to
    /// `orders`; returns the work the actions end with, if any.
    func perform(_ actions: RunActions, orders: inout [RunAction]) -> RunAction? {
        for action in actions.notes {
            switch action {
            case .report(let path, let kind):
                let event = RunEvent(runID: runID, time: options.clock.now, workflowPath: path, kind: kind)
                options.recording?.record(event)
                options.observer?(event)
            case .checkpoint(let checkpoint):
                options.recording?.record(checkpoint)
                options.checkpoints?(checkpoint)
            case .interruptWork:
                // The work in flight races the run's cancel signal, which has fired: it is stopping already.
                break
            case .startElement, .cancelElement:
                // For the map's element runner (``runElements(_:orders:)``).
                orders.append(action)
            case .proceed, .checkStatus, .call, .delay, .waitForEvent, .askQuestion, .awaitElements, .finish:
                // Work is never a note: it is the actions' `work`.
                break
            }
        }
        return actions.work
    }

    /// Reports an event of the driver's own about the innermost level (redacted as the machine's reports are).
    func report(_ kind: RunEvent.Kind, _ machine: RunMachine) {
        guard machine.configuration.reportsEvents else { return }
        let shown = machine.configuration.showSecrets ? kind : machine.secrets.redacting(kind)
        let event = RunEvent(runID: runID, time: options.clock.now, workflowPath: machine.top.path, kind: shown)
        options.recording?.record(event)
        options.observer?(event)
    }

    /// A run the driver cannot go on with (the machine refused an input): it fails with the refusal.
    private func failure(_ error: RunMachineError, _ machine: RunMachine) -> RunResult {
        RunResult(
            runID: runID, workflow: machine.workflowName, outcome: .failed,
            output: nil, error: FlowError(.engineMisconfigured, error.description), warnings: machine.warnings,
            visitedStates: machine.visited)
    }

    /// The race a piece of hub work runs in: cancellable unless the run is on a cancel path.
    private func race(cancellable: Bool, state: String = "") -> StepRace {
        StepRace(clock: options.clock, signal: cancellable ? signal : nil, abandoned: abandoned, state: state)
    }

    /// Makes a call, told to the run's recording first (which may refuse it) and after its race is decided.
    private func recorded(_ call: RunCall) async -> RaceOutcome<JSONValue> {
        guard let recording = options.recording else { return await make(call) }
        let prepared = PreparedCall(
            workflowPath: call.path, state: call.state, attempt: call.attempt, operation: call.operation.operation,
            shownArguments: call.shownArguments, context: HubCallContext.current ?? call.context, guardName: call.guardName)
        let outcome: RaceOutcome<JSONValue>
        switch await recording.callStarting(prepared) {
        case .success(let value)?: outcome = .finished(value)
        case .failure(let error)?: outcome = .failed(error)
        case nil: outcome = await make(call) { value in recording.lateResult(prepared, value: value) }
        }
        let value: JSONValue?
        switch outcome {
        case .finished(let result): value = result
        case .cancelled(let late): value = late
        case .failed, .timedOut: value = nil
        }
        await recording.callEnded(prepared, value: value)
        return outcome
    }

    /// Makes a call in its race, with the call's context unless an outer layer set one.
    private func make(_ call: RunCall, lateResult: (@Sendable (JSONValue) -> Void)? = nil) async -> RaceOutcome<JSONValue> {
        var race = race(cancellable: call.cancellable, state: call.state)
        race.onLateResult = lateResult
        guard HubCallContext.current == nil else {
            return await race.call(call.operation, hub: hub, structure: options.structureID, arguments: call.arguments, timeout: call.timeout)
        }
        // The race's task inherits the context, so the hub sees it while it serves the call.
        return await HubCallContext.$current.withValue(call.context) {
            await race.call(call.operation, hub: hub, structure: options.structureID, arguments: call.arguments, timeout: call.timeout)
        }
    }

    /// Waits, before a hub call, for the run's abandoned calls to end (see ``AbandonedCalls``); each wait, and
    /// each call given up, is a warning, reported as it happens so that a trace shows why the run is waiting.
    private func settleAbandoned(_ machine: inout RunMachine) async {
        guard !abandoned.isEmpty else { return }
        await abandoned.settle { report in
            // A warning only reports: it orders no element.
            var orders: [RunAction] = []
            if let actions = try? machine.warning(Self.message(report)) { _ = perform(actions, orders: &orders) }
        }
    }

    /// The warning about an abandoned call the run waits for or gives up.
    static func message(_ report: AbandonedCalls.Report) -> String {
        switch report {
        case .waiting(let call):
            "the hub has not ended \(call), abandoned \(Int(StepRace.gracePeriod.secondsValue)) s ago; "
                + "waiting up to \(Int(AbandonedCalls.limit.secondsValue)) s for it before calling the hub again"
        case .givenUp(let call):
            "the hub still runs \(call) after \(Int(AbandonedCalls.limit.secondsValue)) s more; the run calls the hub "
                + "again while it runs, so the Hub contract (one call at a time per run) is not kept: check the hub's cancellation"
        }
    }
}
