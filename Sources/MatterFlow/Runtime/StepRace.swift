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
/// The work runs in its own task. When the timeout or the cancellation wins, the work's task is cancelled and
/// the race waits for it to wind down, but never longer than a grace period, so a hub that ignores
/// cancellation cannot keep a run (or its cancel path) stuck. Every task it starts is accounted on the clock,
/// so the race works in virtual time too.
struct StepRace {
    let clock: any WorkflowClock
    /// Nil while the run is on its cancel path: that path is shielded from further cancellation.
    let signal: CancellationSignal?

    /// How long a losing hub call may take to wind down before the run moves on without it.
    static let gracePeriod: Duration = .seconds(5)

    func run<Value: Sendable>(
        timeout: Duration?, _ work: @escaping @Sendable () async throws -> Value
    ) async -> RaceOutcome<Value> {
        let clock = self.clock
        let signal = self.signal
        let completion = Completion()
        let lateResult = ResultSlot<Value>()
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<RaceOutcome<Value>, Never>) in
            let race = FirstResult(continuation, waker: clock.beginActivity)
            clock.beginActivity()
            let task = Task {
                do {
                    let value = try await work()
                    lateResult.store(value)
                    race.offer(.finished(value))
                } catch {
                    race.offer(.failed(FlowError.from(error)))
                }
                completion.finish(clock: clock)
                clock.endActivity()
            }
            if let timeout {
                let timer = Self.timer(clock: clock, after: timeout) { race.offer(.timedOut) }
                race.onDecided { timer.cancel() }
            }
            if let signal {
                let token = signal.onCancel { race.offer(.cancelled(late: nil)) }
                race.onDecided { signal.remove(token) }
            }
            race.onDecided { task.cancel() }
            clock.endActivity()
        }
        switch outcome {
        case .finished, .failed:
            return outcome
        case .timedOut:
            await completion.wait(clock: clock, atMost: Self.gracePeriod)
            return outcome
        case .cancelled:
            await completion.wait(clock: clock, atMost: Self.gracePeriod)
            return .cancelled(late: lateResult.value)
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

    /// A task that calls `fire` after `duration` on the clock, unless cancelled first.
    static func timer(clock: any WorkflowClock, after duration: Duration, _ fire: @escaping @Sendable () -> Void) -> Task<Void, Never> {
        clock.beginActivity()
        return Task {
            if (try? await clock.sleep(for: duration)) != nil { fire() }
            clock.endActivity()
        }
    }
}

/// Tells a waiting task that a piece of work has ended.
final class Completion: Sendable {
    private struct State {
        var finished = false
        var waiters: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    /// Marks the work finished and wakes whoever waits.
    func finish(clock: any WorkflowClock) {
        let waiters = state.withLock { state -> [@Sendable () -> Void] in
            state.finished = true
            defer { state.waiters = [] }
            return state.waiters
        }
        waiters.forEach { $0() }
    }

    /// Waits until the work has finished, but at most `limit` on the clock.
    func wait(clock: any WorkflowClock, atMost limit: Duration) async {
        _ = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let race = FirstResult(continuation, waker: clock.beginActivity)
            let alreadyFinished = state.withLock { state -> Bool in
                if !state.finished { state.waiters.append { race.offer(true) } }
                return state.finished
            }
            if alreadyFinished {
                race.offer(true)
            } else {
                let timer = StepRace.timer(clock: clock, after: limit) { race.offer(false) }
                race.onDecided { timer.cancel() }
            }
            clock.endActivity()
        }
    }
}

/// A value one task stores and another reads later.
final class ResultSlot<Value: Sendable>: Sendable {
    private let slot = Mutex<Value?>(nil)

    func store(_ value: Value) { slot.withLock { $0 = value } }

    var value: Value? { slot.withLock { $0 } }
}
