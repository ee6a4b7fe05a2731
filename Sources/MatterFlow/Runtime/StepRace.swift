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

    func run<Value: Sendable>(
        timeout: Duration?, _ work: @escaping @Sendable () async throws -> Value
    ) async -> RaceOutcome<Value> {
        let clock = self.clock
        let race = Race<Value>(clock: clock)
        clock.beginActivity()
        let task = Task.immediate {
            do {
                race.workEnded(.finished(try await work()))
            } catch {
                race.workEnded(.failed(FlowError.from(error)))
            }
            clock.endActivity()
        }
        if let outcome = race.decided { return outcome }

        race.attach(task)
        if let timeout {
            race.attach(clock.scheduleTimer(after: timeout) { race.offer(.timedOut) })
        }
        if let signal {
            let token = signal.onCancel { race.offer(.cancelled(late: nil)) }
            race.onDecided { signal.remove(token) }
        }
        let outcome = await race.outcome()
        switch outcome {
        case .finished, .failed:
            return outcome
        case .timedOut:
            await race.windDown(atMost: Self.gracePeriod)
            return outcome
        case .cancelled:
            await race.windDown(atMost: Self.gracePeriod)
            return .cancelled(late: race.lateValue)
        }
    }

    /// Sleeps on the clock, unless the run is cancelled first.
    func delay(_ duration: Duration) async -> Bool {
        let clock = self.clock
        let outcome: RaceOutcome<Bool> = await run(timeout: nil) {
            try await clock.sleep(for: duration)
            return true
        }
        if case .finished = outcome { return true }
        return false
    }

}

/// One race's state: the outcome once decided, the waiting task, the tasks to stop, and the work's end.
final class Race<Value: Sendable>: Sendable {
    private struct State {
        var outcome: RaceOutcome<Value>?
        var waiter: CheckedContinuation<RaceOutcome<Value>, Never>?
        var losers: [Task<Void, Never>] = []
        var timers: [any ClockTimer] = []
        var cleanup: [@Sendable () -> Void] = []
        var workEnded = false
        var late: Value?
        var windDownWaiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())
    private let clock: any WorkflowClock

    init(clock: any WorkflowClock) {
        self.clock = clock
    }

    /// The outcome, if the race is already decided.
    var decided: RaceOutcome<Value>? { state.withLock { $0.outcome } }

    /// The work's result when it succeeded, even after losing the race.
    var lateValue: Value? { state.withLock { $0.late } }

    /// A task to cancel once the race is decided (at once if it already is).
    func attach(_ task: Task<Void, Never>) {
        let decided = state.withLock { state -> Bool in
            if state.outcome == nil { state.losers.append(task) }
            return state.outcome != nil
        }
        if decided { task.cancel() }
    }

    /// A timer to cancel once the race is decided (at once if it already is).
    func attach(_ timer: any ClockTimer) {
        let decided = state.withLock { state -> Bool in
            if state.outcome == nil { state.timers.append(timer) }
            return state.outcome != nil
        }
        if decided { timer.cancel() }
    }

    /// Work to do once the race is decided (at once if it already is).
    func onDecided(_ work: @escaping @Sendable () -> Void) {
        let decided = state.withLock { state -> Bool in
            if state.outcome == nil { state.cleanup.append(work) }
            return state.outcome != nil
        }
        if decided { work() }
    }

    /// The work has ended: offer its result and wake a task waiting for it to wind down.
    func workEnded(_ outcome: RaceOutcome<Value>) {
        let windDownWaiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            state.workEnded = true
            if case .finished(let value) = outcome { state.late = value }
            defer { state.windDownWaiter = nil }
            return state.windDownWaiter
        }
        offer(outcome)
        if let windDownWaiter {
            clock.beginActivity()
            windDownWaiter.resume()
        }
    }

    /// Offers an outcome; only the first one counts.
    func offer(_ outcome: RaceOutcome<Value>) {
        let decision = state.withLock { state -> (CheckedContinuation<RaceOutcome<Value>, Never>?, [Task<Void, Never>], [any ClockTimer], [@Sendable () -> Void])? in
            guard state.outcome == nil else { return nil }
            state.outcome = outcome
            defer {
                state.waiter = nil
                state.losers = []
                state.timers = []
                state.cleanup = []
            }
            return (state.waiter, state.losers, state.timers, state.cleanup)
        }
        guard let (waiter, losers, timers, cleanup) = decision else { return }
        losers.forEach { $0.cancel() }
        timers.forEach { $0.cancel() }
        cleanup.forEach { $0() }
        if let waiter {
            clock.beginActivity()
            waiter.resume(returning: outcome)
        }
    }

    /// Waits for the outcome.
    func outcome() async -> RaceOutcome<Value> {
        await withCheckedContinuation { (continuation: CheckedContinuation<RaceOutcome<Value>, Never>) in
            let ready = state.withLock { state -> RaceOutcome<Value>? in
                if let outcome = state.outcome { return outcome }
                state.waiter = continuation
                return nil
            }
            if let ready {
                continuation.resume(returning: ready)
            } else {
                clock.endActivity()
            }
        }
    }

    /// Waits until the work has ended, but at most `limit` on the clock.
    func windDown(atMost limit: Duration) async {
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
            state.withLock { $0.timers.append(timer) }
            clock.endActivity()
        }
        let leftover = state.withLock { state -> [any ClockTimer] in
            defer { state.timers = [] }
            return state.timers
        }
        leftover.forEach { $0.cancel() }
    }
}
