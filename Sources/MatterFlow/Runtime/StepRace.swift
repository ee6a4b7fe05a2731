import MatterFlowJSON
import Synchronization

/// How a raced piece of work ended.
enum RaceOutcome<Value: Sendable>: Sendable {
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
/// stuck. Every task it starts is accounted on the clock, so the race works in virtual time too.
struct StepRace {
    let clock: any WorkflowClock
    /// Nil while the run is on its cancel path: that path is shielded from further cancellation.
    let signal: CancellationSignal?

    /// How long a losing hub call may take to wind down before the run moves on without it.
    static let gracePeriod: Duration = .seconds(5)

    /// How long a guard's status check may take (the time budget assumes the same).
    static let guardTimeout: Duration = .seconds(rounding: TimeBudget.guardTimeoutSeconds)

    /// Work a race runs: nonsending, so the call starts without a hop; its value travels type-erased.
    typealias Work = nonisolated(nonsending) @Sendable () async throws -> any Sendable

    /// Races an operation's call, its arguments checked first (as ``OperationDescriptor/call(hub:structure:arguments:)``).
    /// Calls and status checks are not wrapped in closures: the race's task awaits the hub itself, where each async
    /// function in between would cost a hop back to the executor once it returned, and a closure context per call.
    @inline(never)
    nonisolated(nonsending) func call(
        _ call: PlannedCall, hub: any Hub, structure: StructureID, arguments: JSONObject, timeout: Duration
    ) async -> RaceOutcome<JSONValue> {
        await run(Race(clock: clock, call: call, hub: hub, structure: structure, arguments: arguments), timeout: timeout)
    }

    /// Races the hub's status check, for a guard.
    @inline(never)
    nonisolated(nonsending) func status(hub: any Hub, structure: StructureID) async -> RaceOutcome<HubStatus> {
        await run(Race(clock: clock, hub: hub, structure: structure), timeout: Self.guardTimeout)
    }

    @inline(never)
    nonisolated(nonsending) func run<Value: Sendable>(timeout: Duration?, _ work: @escaping Work) async -> RaceOutcome<Value> {
        await run(Race(clock: clock, work: work), timeout: timeout)
    }

    @inline(__always)
    private nonisolated(nonsending) func run<Value: Sendable>(_ race: Race, timeout: Duration?) async -> RaceOutcome<Value> {
        clock.beginActivity()
        // The task's closure captures only the race, so it needs no context of its own.
        let task = Task.immediate { await race.perform() }
        let decision: Race.Decision
        let value: (any Sendable)?
        if let (early, earlyValue) = race.settled() {
            (decision, value) = (early, earlyValue)
        } else {
            race.arm(task: task, timeout: timeout, signal: signal)
            decision = await race.decided()
            value = race.value
        }
        switch decision {
        case .finished:
            // The work's value is the only one ever stored, and `work` produced it for this `Value`.
            guard let value = value as? Value else { preconditionFailure("a race finished without its value") }
            return .finished(value)
        case .failed(let error):
            return .failed(error)
        case .timedOut:
            await race.windDown(atMost: Self.gracePeriod)
            return .timedOut
        case .cancelled:
            await race.windDown(atMost: Self.gracePeriod)
            return .cancelled(late: race.value as? Value)
        }
    }

    /// Sleeps on the clock, unless the run is cancelled first.
    @inline(never)
    nonisolated(nonsending) func delay(_ duration: Duration) async -> Bool {
        let clock = self.clock
        let outcome: RaceOutcome<Bool> = await run(timeout: nil) {
            try await clock.sleep(for: duration)
            return true
        }
        if case .finished = outcome { return true }
        return false
    }
}

/// One race's state: the work, the outcome once decided, the waiting task, what to stop, and the work's end.
///
/// Not generic: a generic class's deinit runs unspecialised and looks up its metadata on every release, which
/// cost more than the rest of a synchronous hub call. The work's value travels as `any Sendable` instead
/// (inline for the values hub calls return, so no allocation) and ``StepRace`` casts it back.
final class Race: Sendable {
    /// How the race was decided, without the work's value (kept in `State.value`).
    enum Decision: Sendable {
        case finished
        case failed(FlowError)
        case timedOut
        case cancelled
    }

    /// What the race stops once it is decided; set only when the work suspended.
    private struct Armed {
        var task: Task<Void, Never>?
        var timer: (any ClockTimer)?
        var signal: CancellationSignal?
        var signalToken = 0
        var waiter: CheckedContinuation<Void, Never>?
    }

    private struct State {
        var decision: Decision?
        /// The work's result when it succeeded, even after losing the race.
        var value: (any Sendable)?
        var workEnded = false
        var armed: Armed?
        var windDownWaiter: CheckedContinuation<Void, Never>?
        var windDownTimer: (any ClockTimer)?
    }

    private let state = Mutex(State())
    private let clock: any WorkflowClock
    // The job, in fields of its own: the task reads them in place, where switching over a stored enum would copy
    // its payload (and retain each of its references) on every call.
    private let call: PlannedCall?
    private let hub: (any Hub)?
    private let structure: StructureID
    private let arguments: JSONObject
    private let work: StepRace.Work?

    /// A race of `work`, or else of an operation's call, or else of the hub's status check.
    init(
        clock: any WorkflowClock, call: PlannedCall? = nil, hub: (any Hub)? = nil, structure: StructureID = "",
        arguments: JSONObject = [:], work: StepRace.Work? = nil
    ) {
        self.clock = clock
        self.call = call
        self.hub = hub
        self.structure = structure
        self.arguments = arguments
        self.work = work
    }

    /// Runs the work, as the body of its task, and reports its end. Inlined into the task's closure: awaited as a
    /// function of its own, it would cost the task a hop back to its executor once it returned.
    @inline(__always)
    nonisolated(nonsending) func perform() async {
        do {
            let value: any Sendable
            if let work {
                value = try await work()
            } else if let call, let hub {
                try OperationDescriptor.check(arguments, against: call.argumentShapes, operation: call.name)
                value = try await call.invoke(hub, structure, arguments)
            } else if let hub {
                value = try await hub.status(structure: structure)
            } else {
                preconditionFailure("a race without a job")
            }
            workEnded(.finished, value: value)
        } catch {
            workEnded(.failed(FlowError.from(error)), value: nil)
        }
        clock.endActivity()
    }

    /// The decision and the work's value, if the race is already decided.
    func settled() -> (Decision, (any Sendable)?)? {
        state.withLock { state in state.decision.map { ($0, state.value) } }
    }

    /// The work's result when it succeeded, even after losing the race.
    var value: (any Sendable)? { state.withLock { $0.value } }

    /// Arms the race once the work has suspended: its task, the timeout timer and the cancellation signal are
    /// what decide it now. Whatever arrives after the decision is stopped at once.
    func arm(task: Task<Void, Never>, timeout: Duration?, signal: CancellationSignal?) {
        if state.withLock({ state -> Bool in
            if state.decision == nil { state.armed = Armed(task: task) }
            return state.decision != nil
        }) {
            task.cancel()
            return
        }
        if let timeout {
            let timer = clock.scheduleTimer(after: timeout) { [self] in offer(.timedOut) }
            if state.withLock({ state -> Bool in
                if state.decision == nil { state.armed?.timer = timer }
                return state.decision != nil
            }) {
                timer.cancel()
            }
        }
        if let signal {
            let token = signal.onCancel { [self] in offer(.cancelled) }
            if state.withLock({ state -> Bool in
                if state.decision == nil {
                    state.armed?.signal = signal
                    state.armed?.signalToken = token
                }
                return state.decision != nil
            }) {
                signal.remove(token)
            }
        }
    }

    /// The work has ended: offer its result and wake a task waiting for it to wind down.
    private func workEnded(_ decision: Decision, value: (any Sendable)?) {
        let (armed, windDownWaiter) = state.withLock { state -> (Armed?, CheckedContinuation<Void, Never>?) in
            state.workEnded = true
            if let value { state.value = value }
            let windDownWaiter = state.windDownWaiter.take()
            guard state.decision == nil else { return (nil, windDownWaiter) }
            state.decision = decision
            return (state.armed.take(), windDownWaiter)
        }
        if let armed { stop(armed) }
        if let windDownWaiter {
            clock.beginActivity()
            windDownWaiter.resume()
        }
    }

    /// Offers a decision; only the first one counts.
    func offer(_ decision: Decision) {
        let armed = state.withLock { state -> Armed? in
            guard state.decision == nil else { return nil }
            state.decision = decision
            return state.armed.take()
        }
        if let armed { stop(armed) }
    }

    /// Stops the losers of a decided race and wakes the task waiting for the decision.
    private func stop(_ armed: Armed) {
        armed.task?.cancel()
        armed.timer?.cancel()
        armed.signal?.remove(armed.signalToken)
        if let waiter = armed.waiter {
            clock.beginActivity()
            waiter.resume()
        }
    }

    /// Waits for the decision.
    nonisolated(nonsending) func decided() async -> Decision {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.decision != nil { return true }
                state.armed?.waiter = continuation
                return false
            }
            if ready {
                continuation.resume()
            } else {
                clock.endActivity()
            }
        }
        return state.withLock { $0.decision } ?? .cancelled
    }

    /// Waits until the work has ended, but at most `limit` on the clock.
    nonisolated(nonsending) func windDown(atMost limit: Duration) async {
        let clock = self.clock
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state -> Bool in
                if state.workEnded { return false }
                state.windDownWaiter = continuation
                return true
            }
            guard waiting else {
                continuation.resume()
                return
            }
            let timer = clock.scheduleTimer(after: limit) { [self] in
                let waiter = state.withLock { $0.windDownWaiter.take() }
                if let waiter {
                    clock.beginActivity()
                    waiter.resume()
                }
            }
            state.withLock { $0.windDownTimer = timer }
            clock.endActivity()
        }
        let leftover = state.withLock { $0.windDownTimer.take() }
        leftover?.cancel()
    }
}
