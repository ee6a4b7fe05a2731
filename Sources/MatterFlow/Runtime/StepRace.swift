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

    nonisolated(nonsending) func run<Value: Sendable>(
        timeout: Duration?, _ work: @escaping @Sendable () async throws -> Value
    ) async -> RaceOutcome<Value> {
        let clock = self.clock
        let race = Race(clock: clock)
        clock.beginActivity()
        let task = Task.immediate {
            do {
                let value = try await work()
                race.workEnded(.finished, value: value)
            } catch {
                race.workEnded(.failed(FlowError.from(error)), value: nil)
            }
            clock.endActivity()
        }
        let decision: Race.Decision
        if let early = race.decision {
            decision = early
        } else {
            race.arm(task: task, timeout: timeout, signal: signal)
            decision = await race.decided()
        }
        switch decision {
        case .finished:
            // The work's value is the only one ever stored, so the cast cannot fail.
            guard let value = race.value as? Value else { preconditionFailure("a race finished without its value") }
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

/// One race's state: the outcome once decided, the waiting task, what to stop, and the work's end.
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

    private struct State {
        var decision: Decision?
        /// The work's result when it succeeded, even after losing the race.
        var value: (any Sendable)?
        var waiter: CheckedContinuation<Void, Never>?
        var task: Task<Void, Never>?
        var timer: (any ClockTimer)?
        var signal: CancellationSignal?
        var signalToken = 0
        var workEnded = false
        var windDownWaiter: CheckedContinuation<Void, Never>?
        var windDownTimer: (any ClockTimer)?
    }

    private let state = Mutex(State())
    private let clock: any WorkflowClock

    init(clock: any WorkflowClock) {
        self.clock = clock
    }

    /// How the race was decided, if it is.
    var decision: Decision? { state.withLock { $0.decision } }

    /// The work's result when it succeeded, even after losing the race.
    var value: (any Sendable)? { state.withLock { $0.value } }

    /// Arms the race once the work has suspended: its task, the timeout timer and the cancellation signal are
    /// what decide it now. Whatever arrives after the decision is stopped at once.
    func arm(task: Task<Void, Never>, timeout: Duration?, signal: CancellationSignal?) {
        if state.withLock({ state -> Bool in
            if state.decision == nil { state.task = task }
            return state.decision != nil
        }) {
            task.cancel()
            return
        }
        if let timeout {
            let timer = clock.scheduleTimer(after: timeout) { [self] in offer(.timedOut) }
            if state.withLock({ state -> Bool in
                if state.decision == nil { state.timer = timer }
                return state.decision != nil
            }) {
                timer.cancel()
            }
        }
        if let signal {
            let token = signal.onCancel { [self] in offer(.cancelled) }
            if state.withLock({ state -> Bool in
                if state.decision == nil {
                    state.signal = signal
                    state.signalToken = token
                }
                return state.decision != nil
            }) {
                signal.remove(token)
            }
        }
    }

    /// The work has ended: offer its result and wake a task waiting for it to wind down.
    func workEnded(_ decision: Decision, value: (any Sendable)?) {
        let windDownWaiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.workEnded = true
            if let value { state.value = value }
            defer { state.windDownWaiter = nil }
            return state.windDownWaiter
        }
        offer(decision)
        if let windDownWaiter {
            clock.beginActivity()
            windDownWaiter.resume()
        }
    }

    /// Offers a decision; only the first one counts.
    func offer(_ decision: Decision) {
        let losers = state.withLock { state -> (CheckedContinuation<Void, Never>?, Task<Void, Never>?, (any ClockTimer)?, CancellationSignal?, Int)? in
            guard state.decision == nil else { return nil }
            state.decision = decision
            defer {
                state.waiter = nil
                state.task = nil
                state.timer = nil
                state.signal = nil
            }
            return (state.waiter, state.task, state.timer, state.signal, state.signalToken)
        }
        guard let (waiter, task, timer, signal, token) = losers else { return }
        task?.cancel()
        timer?.cancel()
        signal?.remove(token)
        if let waiter {
            clock.beginActivity()
            waiter.resume()
        }
    }

    /// Waits for the decision.
    nonisolated(nonsending) func decided() async -> Decision {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.decision != nil { return true }
                state.waiter = continuation
                return false
            }
            if ready {
                continuation.resume()
            } else {
                clock.endActivity()
            }
        }
        return decision ?? .cancelled
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
                let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                    defer { state.windDownWaiter = nil }
                    return state.windDownWaiter
                }
                if let waiter {
                    clock.beginActivity()
                    waiter.resume()
                }
            }
            state.withLock { $0.windDownTimer = timer }
            clock.endActivity()
        }
        let leftover = state.withLock { state -> (any ClockTimer)? in
            defer { state.windDownTimer = nil }
            return state.windDownTimer
        }
        leftover?.cancel()
    }
}
