import MatterFlowJSON

/// How a raced piece of work ended.
///
/// Indirect: a call's outcome (a JSON value or a ``FlowError``) would otherwise be about 65 bytes, held by value in
/// the async frames between the run's driver and the race (each copy a slot of its own), which every run with a call
/// in flight holds; boxed, each is one pointer.
indirect enum RaceOutcome<Value: Sendable>: Sendable {
    case finished(Value)
    case failed(FlowError)
    case timedOut
    /// The run was cancelled. `late` holds the work's result when the work still succeeded while winding down,
    /// so the run knows what the hub did (for example, that prepare did open a session to release).
    case cancelled(late: Value?)
}

/// Runs hub work against a timeout on the run's clock and the run's cancellation signal.
///
/// The work starts at once on the calling thread (`Task.immediate`): a hub that answers without suspending costs
/// no task switch, no timer and no cancellation registration. Otherwise the work's task races a timer and the
/// cancellation signal; when those win, the work's task is cancelled and the race waits for it to wind down, but
/// never longer than a grace period, so a hub that ignores cancellation cannot keep a run (or its cancel path)
/// stuck. A hub call still running after the grace period is handed to the run's ``AbandonedCalls``, which makes
/// the run's next hub call wait for it (bounded). Every task it starts is accounted on the clock, so the race works
/// in virtual time too.
///
/// The race's state lives in a ``Race``, shared by the waiting run, the work's task, the timer and the signal.
struct StepRace {
    let clock: any WorkflowClock
    /// Nil while the run is on its cancel path: that path is shielded from further cancellation.
    let signal: CancellationSignal?
    /// Where a hub call still running after its grace period is kept; nil: nowhere.
    var abandoned: AbandonedCalls? = nil
    /// The state whose work this race runs, as reports about an abandoned call name it.
    var state = ""
    /// Told of a hub call's result when the call succeeds after the run stopped waiting for it (its timeout, or
    /// a cancel whose grace period it outlived), so that what the hub did is still recorded. A session-opening
    /// call's late session is also noted in ``abandoned`` (``AbandonedCalls/noteLateSession(_:call:)``), for the
    /// run to release before it ends.
    var onLateResult: (@Sendable (JSONValue) -> Void)? = nil

    /// How long a losing hub call may take to wind down before the run moves on without it.
    static let gracePeriod: Duration = .seconds(5)

    /// How long a guard's status check may take (the time budget assumes the same).
    static let guardTimeout: Duration = .seconds(rounding: TimeBudget.guardTimeoutSeconds)

    /// Work a race runs; its value travels type-erased.
    typealias Work = @Sendable () async throws -> any Sendable

    /// Races a run's call: its operation with its arguments and timeout, served with `context` bound as
    /// ``HubCallContext/current`` (nil: the one bound around the race). A call the run refused (``RunCall/refusal``:
    /// its onboarding payload is not a valid code) fails at once, as it would have failed before reaching the hub.
    func call(_ call: RunCall, context: HubCallContext?, hub: any Hub, structure: StructureID) async -> RaceOutcome<JSONValue> {
        if let refusal = call.refusal { return .failed(refusal) }
        return await self.call(
            call.operation, hub: hub, structure: structure, arguments: call.arguments, timeout: call.timeout, context: context)
    }

    /// Races an operation's call, its arguments' shapes checked first, served with `context` bound as
    /// ``HubCallContext/current`` (nil: the one bound around the race).
    ///
    /// The context is bound in the race's task, where the hub serves the call, not around the race: a task started
    /// where a task-local is bound copies it, which cost `action.overhead` about 4% (release builds pinned to one
    /// core, 6 alternated rounds: 1.99–2.06 µs per call bound here, 2.04–2.14 bound around).
    func call(
        _ call: PlannedCall, hub: any Hub, structure: StructureID, arguments: JSONObject, timeout: Duration,
        context: HubCallContext?
    ) async -> RaceOutcome<JSONValue> {
        await run(
            Race(clock: clock, call: call, hub: hub, structure: structure, arguments: arguments, context: context),
            timeout: timeout, label: call.name, opensSession: call.acquiresSession
        ) {
            if case .json(let value) = $0 { value } else { nil }
        }
    }

    /// Races the hub's status check, for a guard.
    func status(hub: any Hub, structure: StructureID) async -> RaceOutcome<HubStatus> {
        await run(Race(clock: clock, hub: hub, structure: structure), timeout: Self.guardTimeout, label: "the status check") {
            if case .status(let status) = $0 { status } else { nil }
        }
    }

    /// Races `work`; `value` takes its value back out of the race. A hub call (`label` names it; nil for other
    /// work) still running after its grace period is kept in ``abandoned``; `opensSession`: the call opens the
    /// commissioning session.
    private func run<Value: Sendable>(
        _ race: Race, timeout: Duration?, label: String? = nil, opensSession: Bool = false,
        _ value: (consuming Race.Value) -> Value?
    ) async -> RaceOutcome<Value> {
        // Counted by hand, ended by the race's task (see ``Race``).
        clock.beginActivity()
        // The task's closure captures only the race, so it needs no context of its own.
        let task = Task.immediate { await race.perform() }
        let decision: Race.Decision
        let result: Race.Value?
        if let (early, earlyValue) = race.settled() {
            (decision, result) = (early, earlyValue)
        } else {
            race.arm(task: task, timeout: timeout, signal: signal)
            (decision, result) = await race.decided()
        }
        switch decision {
        case .finished:
            // The work's value is the only one ever stored, and the work produced it for this `Value`.
            guard let result, let finished = value(result) else { preconditionFailure("a race finished without its value") }
            return .finished(finished)
        case .failed(let error):
            return .failed(error)
        case .timedOut, .cancelled:
            return await lost(race, decision, label: label, opensSession: opensSession, value)
        }
    }

    /// Ends a call made on the run's own task (``CallSegment``) that `decision` (its timeout or the run's cancel) went
    /// against, as a race the work lost ends: its end, which `end` waits for, is raced against the grace period, and
    /// a call still running after that is kept in ``abandoned``. `label` names the call; `opensSession`: the call opens
    /// the commissioning session.
    func lost<Value: Sendable>(
        _ decision: Race.Decision, awaiting end: @escaping @Sendable () async throws -> Race.Value, label: String,
        opensSession: Bool, _ value: (consuming Race.Value) -> Value?
    ) async -> RaceOutcome<Value> {
        let race = Race(clock: clock, awaiting: end)
        race.offer(decision)
        clock.beginActivity()
        Task.immediate { await race.perform() }
        return await lost(race, decision, label: label, opensSession: opensSession, value)
    }

    /// The outcome of a race decided against its work (`decision`: its timeout or the run's cancel), once the work
    /// has wound down or used up its grace period. Never inlined: inlined, its values took about 240 bytes more in
    /// the frame of ``run(_:timeout:label:opensSession:_:)``, held by every raced call in flight.
    @inline(never)
    private func lost<Value: Sendable>(
        _ race: Race, _ decision: Race.Decision, label: String?, opensSession: Bool, _ value: (consuming Race.Value) -> Value?
    ) async -> RaceOutcome<Value> {
        await race.windDown(atMost: Self.gracePeriod)
        if case .timedOut = decision {
            watchLateResult(race, label: label, opensSession: opensSession)
            keepIfRunning(race, label: label)
            return .timedOut
        }
        let late = race.value
        // A result the outcome carries is not late; any other the work may still produce is.
        if late == nil { watchLateResult(race, label: label, opensSession: opensSession) }
        keepIfRunning(race, label: label)
        return .cancelled(late: late.flatMap { value($0) })
    }

    /// Keeps a losing race's hub call (`label` names it; nil for other work) as abandoned when it still runs after
    /// its grace period. Done after its late result is watched: the race tells its handlers in order, so the result
    /// is recorded before the run's pause counts the call as ended.
    private func keepIfRunning(_ race: Race, label: String?) {
        if let label, let abandoned, !race.workHasEnded {
            abandoned.keep(race, label: naming(label))
        }
    }

    /// A hub call as reports about it name it: `fetchRooms in state rooms`.
    private func naming(_ label: String) -> String {
        state.isEmpty ? label : "\(label) in state \(state)"
    }

    /// Hands a lost call's result, whenever the call ends with one, to ``onLateResult``; notes the session a
    /// session-opening call opened in ``abandoned``.
    private func watchLateResult(_ race: Race, label: String?, opensSession: Bool) {
        let onLateResult = self.onLateResult
        let sessions = opensSession ? abandoned : nil
        guard onLateResult != nil || sessions != nil else { return }
        let call = naming(label ?? "")
        race.afterWorkEnds { value in
            guard case .json(let result)? = value else { return }
            onLateResult?(result)
            if let sessions, let opened = result["sessionID"]?.stringValue { sessions.noteLateSession(opened, call: call) }
        }
    }

    /// Races other hub work (a read the run's end makes, say) against `timeout` on the clock.
    func work<Value: Sendable>(timeout: Duration, _ work: @escaping @Sendable () async throws -> Value) async -> RaceOutcome<Value> {
        await run(Race(clock: clock) { try await work() }, timeout: timeout) { value in
            if case .other(let other) = value { other as? Value } else { nil }
        }
    }

    /// Sleeps on the clock, unless the run is cancelled first.
    func delay(_ duration: Duration) async -> Bool {
        let clock = self.clock
        let race = Race(clock: clock) {
            try await clock.sleep(for: duration)
            return true
        }
        let outcome: RaceOutcome<Bool> = await run(race, timeout: nil) { _ in true }
        if case .finished = outcome { return true }
        return false
    }
}
