import MatterFlowJSON

/// The driver's hub calls and status checks: made on the run's ``CallSegment`` task while it has not suspended,
/// otherwise each in a ``StepRace``; and the end of a call the segment lost the run in.
extension RunDriver {
    /// A hub call made on a segment's task: the call, and when it started, or a guard's status check. (A recorded
    /// call's ``PreparedCall`` is made again from the call should it be needed: kept here, it would add its size to
    /// every run's driver.)
    enum InlineCall {
        case call(RunCall, started: Duration)
        case status(GuardCheck)
    }

    /// Checks the hub's status for a guard; feeds the check's end. Nil when the segment lost the run in the check.
    @inline(never)
    func checkStatus(_ check: GuardCheck, segment: CallSegment?) async -> RunAction? {
        if !abandoned.isEmpty { await settleAbandoned() }
        let outcome: RaceOutcome<HubStatus>
        if let segment, beginInline(check, segment) {
            guard let ended = await inlineStatus(segment) else { return nil }
            outcome = ended
        } else {
            outcome = await racedStatus(check)
        }
        return checked(outcome)
    }

    /// Checks the hub's status in its race, on a task of its own.
    @inline(never)
    private func racedStatus(_ check: GuardCheck) async -> RaceOutcome<HubStatus> {
        await race(cancellable: check.cancellable, state: check.state).status(hub: hub, structure: options.structureID)
    }

    /// Feeds a guard's status check's end.
    private func checked(_ outcome: RaceOutcome<HubStatus>) -> RunAction {
        // The cancel that stopped the work is fed before the work's end.
        if case .cancelled = outcome { _ = feedCancel() }
        return feed { machine throws(RunMachineError) in try machine.statusChecked(outcome) }
    }

    /// Makes a hub call (after a pause the run was asked to take before a state's first attempt, once no call the
    /// run abandoned is still running); feeds its end. Nil when the segment lost the run in the call.
    @inline(never)
    func makeCall(_ call: RunCall, segment: CallSegment?) async -> RunAction? {
        if !abandoned.isEmpty { await settleAbandoned() }
        if call.attempt == 1, !signal.isCancelled, let pause = options.pause { await pause.parkIfRequested() }
        // The clock is read only for the reports' durations.
        let started = options.observer == nil ? Duration.zero : options.clock.now
        options.pause?.callBegan()
        if options.recording != nil { return await recordedCall(call, started: started, segment: segment) }
        guard let outcome = await make(call, onLateResult: nil, started: started, segment: segment) else { return nil }
        return called(call, started: started, outcome: outcome)
    }

    /// Makes a call told to the run's recording (``RunRecording/recorded(_:context:make:)``). Nil when the segment lost
    /// the run in the call: the task that took it over tells the recording the call's end.
    @inline(never)
    private func recordedCall(_ call: RunCall, started: Duration, segment: CallSegment?) async -> RunAction? {
        guard let recording = options.recording else { return nil }
        let outcome = await recording.recorded(call, context: Self.servedContext(of: call)) { lateResult in
            await make(call, onLateResult: lateResult, started: started, segment: segment)
        }
        guard let outcome else { return nil }
        return called(call, started: started, outcome: outcome)
    }

    /// Tells a call's end to the pause switch, and feeds it.
    @inline(never)
    private func called(_ call: RunCall, started: Duration, outcome: RaceOutcome<JSONValue>) -> RunAction {
        options.pause?.callEnded()
        if let pause = options.pause, let value = outcome.value, call.operation.secretResultFields.contains(where: { value[$0] != nil }) {
            pause.holdsSecretNoJournalKeeps()
        }
        let duration = options.observer == nil ? Duration.zero : options.clock.now - started
        // The cancel that stopped the work is fed before the work's end.
        if case .cancelled = outcome { _ = feedCancel() }
        return feed { machine throws(RunMachineError) in try machine.callEnded(outcome, duration: duration) }
    }

    /// Makes a call: on the segment's task while the segment has not suspended, else in its race (`onLateResult` told
    /// of a result the race no longer waits for); with the call's context unless an outer layer set one (which the
    /// call's task then inherits). Nil when the segment lost the run in the call. (Given the handler, not the
    /// ``PreparedCall``: an optional struct argument takes its size in the frame of each caller on the way.)
    @inline(never)
    private func make(
        _ call: RunCall, onLateResult: (@Sendable (JSONValue) -> Void)?, started: Duration, segment: CallSegment?
    ) async -> RaceOutcome<JSONValue>? {
        switch route(call, started: started, segment) {
        case .refused(let outcome): return outcome
        case .inline(let segment): return await inlineCall(call, segment: segment)
        case .raced: return await raced(call, onLateResult: onLateResult)
        }
    }

    /// How a call is made.
    private enum CallRoute {
        /// The run refused the call (``RunCall/refusal``): it fails as it would have failed at the hub.
        case refused(RaceOutcome<JSONValue>)
        /// On the segment's task, the call begun.
        case inline(CallSegment)
        /// In a race of its own.
        case raced
    }

    /// How `call` is made, begun on the segment's task if it is made there. Synchronous and never inlined: the
    /// refusal it reads, inlined, took room in the frame of ``make(_:onLateResult:started:segment:)``, which every
    /// call in flight holds (48 bytes, 176 inlined).
    @inline(never)
    private func route(_ call: RunCall, started: Duration, _ segment: CallSegment?) -> CallRoute {
        if let refusal = call.refusal { return .refused(.failed(refusal)) }
        if let segment, beginInline(call, started: started, segment) { return .inline(segment) }
        return .raced
    }

    /// The context to bind for a call: its own, unless an outer layer bound one (which the call's task then
    /// inherits); nil then.
    private static func context(of call: RunCall) -> HubCallContext? {
        HubCallContext.current == nil ? call.context : nil
    }

    /// The context the hub sees for a call: the one an outer layer bound, else the call's own.
    private static func servedContext(of call: RunCall) -> HubCallContext {
        HubCallContext.current ?? call.context
    }

    /// Makes a call in its race, on a task of its own.
    @inline(never)
    private func raced(_ call: RunCall, onLateResult: (@Sendable (JSONValue) -> Void)?) async -> RaceOutcome<JSONValue> {
        var race = race(cancellable: call.cancellable, state: call.state)
        race.onLateResult = onLateResult
        return await race.call(
            call.operation, hub: hub, structure: options.structureID, arguments: call.arguments, timeout: call.timeout,
            context: Self.context(of: call))
    }

    /// Begins a hub call on the segment's task, if the segment has not suspended yet; keeps what finishing it needs
    /// should the segment lose the run in it.
    @inline(never)
    private func beginInline(_ call: RunCall, started: Duration, _ segment: CallSegment) -> Bool {
        // Set first: the segment's lock publishes it to a task that takes the run over once the call has begun.
        inFlight = .call(call, started: started)
        guard segment.beginCall(timeout: call.timeout, cancellable: call.cancellable) else {
            inFlight = nil
            return false
        }
        return true
    }

    /// Begins a guard's status check on the segment's task, if the segment has not suspended yet.
    @inline(never)
    private func beginInline(_ check: GuardCheck, _ segment: CallSegment) -> Bool {
        inFlight = .status(check)
        guard segment.beginCall(timeout: StepRace.guardTimeout, cancellable: check.cancellable) else {
            inFlight = nil
            return false
        }
        return true
    }

    /// Makes a call on the segment's task. Nil when the segment lost the run in it.
    @inline(never)
    private func inlineCall(_ call: RunCall, segment: CallSegment) async -> RaceOutcome<JSONValue>? {
        do {
            let value = try await Race.invoke(
                call.operation, hub: hub, structure: options.structureID, arguments: call.arguments, context: Self.context(of: call))
            return inlineEnded(.success(.json(value)), segment) { if case .json(let value) = $0 { value } else { nil } }
        } catch {
            return inlineEnded(.failure(FlowError.fromHubCall(error)), segment) { if case .json(let value) = $0 { value } else { nil } }
        }
    }

    /// Checks the hub's status on the segment's task. Nil when the segment lost the run in the check.
    @inline(never)
    private func inlineStatus(_ segment: CallSegment) async -> RaceOutcome<HubStatus>? {
        do {
            let status = try await hub.status(structure: options.structureID)
            return inlineEnded(.success(.status(status)), segment) { if case .status(let status) = $0 { status } else { nil } }
        } catch {
            return inlineEnded(.failure(FlowError.fromHubCall(error)), segment) { if case .status(let status) = $0 { status } else { nil } }
        }
    }

    /// The outcome of a call made on the segment's task that ended with `result`; nil when the segment lost the run
    /// in it meanwhile (the result then goes to the task that took the run over).
    @inline(never)
    private func inlineEnded<Value: Sendable>(
        _ result: Result<Race.Value, FlowError>, _ segment: CallSegment, _ value: (consuming Race.Value) -> Value?
    ) -> RaceOutcome<Value>? {
        let outcome: RaceOutcome<Value> = switch result {
        case .success(let won): value(won).map { .finished($0) } ?? .failed(Self.misplaced)
        case .failure(let error): .failed(error)
        }
        guard segment.endCall(result) else { return nil }
        inFlight = nil
        return outcome
    }

    /// Hands a call's late result to the run's recording (``RunRecording/lateResult(_:value:)``).
    private func lateResult(of prepared: PreparedCall?) -> (@Sendable (JSONValue) -> Void)? {
        guard let prepared, let recording = options.recording else { return nil }
        return { value in recording.lateResult(prepared, value: value) }
    }

    /// A call's value of the wrong kind: never made, since each call stores the kind its caller takes back.
    private static let misplaced = FlowError(.engineMisconfigured, "a hub call ended with a value of another kind")

    /// Ends the call a ``CallSegment`` lost the run in (`decision`: its timeout or the run's cancel) as a lost race
    /// ends, and feeds that end; returns the work it hands over.
    @inline(never)
    func takeOver(_ decision: Race.Decision, from segment: CallSegment) async -> RunAction {
        let end: @Sendable () async throws -> Race.Value = { try await segment.lostCallEnd().get() }
        switch inFlight.take() {
        case .call(let call, let started)?:
            let prepared = options.recording.map { _ in PreparedCall(call, context: Self.servedContext(of: call)) }
            var race = race(cancellable: call.cancellable, state: call.state)
            race.onLateResult = lateResult(of: prepared)
            let outcome: RaceOutcome<JSONValue> = await race.lost(
                decision, awaiting: end, label: call.operation.name, opensSession: call.operation.acquiresSession
            ) { if case .json(let value) = $0 { value } else { nil } }
            if let prepared { await options.recording?.callEnded(prepared, value: outcome.value) }
            return called(call, started: started, outcome: outcome)
        case .status(let check)?:
            let outcome: RaceOutcome<HubStatus> = await race(cancellable: check.cancellable, state: check.state).lost(
                decision, awaiting: end, label: "the status check", opensSession: false
            ) { if case .status(let status) = $0 { status } else { nil } }
            return checked(outcome)
        case nil:
            return .finish(failure(RunMachineError(code: .impossibleInput, phase: machine.phaseName, input: "a call taken over while none was made")))
        }
    }
}
