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
/// cancellation cannot keep a run (or its cancel path) stuck.
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
        var workTask: Task<Void, Never>?
        let lateResult = ResultSlot<Value>()
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<RaceOutcome<Value>, Never>) in
            let race = FirstResult(continuation)
            let task = Task {
                do {
                    let value = try await work()
                    lateResult.store(value)
                    race.offer(.finished(value))
                } catch {
                    race.offer(.failed(FlowError.from(error)))
                }
            }
            workTask = task
            if let timeout {
                let timer = Task {
                    do {
                        try await clock.sleep(for: timeout)
                        race.offer(.timedOut)
                    } catch {}
                }
                race.onDecided { timer.cancel() }
            }
            if let signal {
                let token = signal.onCancel { race.offer(.cancelled(late: nil)) }
                race.onDecided { signal.remove(token) }
            }
            race.onDecided { task.cancel() }
        }
        switch outcome {
        case .finished, .failed:
            return outcome
        case .timedOut:
            if let workTask { await Self.windDown(workTask, clock: clock) }
            return outcome
        case .cancelled:
            if let workTask { await Self.windDown(workTask, clock: clock) }
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

    private static func windDown(_ task: Task<Void, Never>, clock: any WorkflowClock) async {
        _ = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let race = FirstResult(continuation)
            let waiter = Task {
                await task.value
                race.offer(true)
            }
            let timer = Task {
                do {
                    try await clock.sleep(for: gracePeriod)
                    race.offer(false)
                } catch {}
            }
            race.onDecided {
                timer.cancel()
                waiter.cancel()
            }
        }
    }
}

/// A value one task stores and another reads later.
final class ResultSlot<Value: Sendable>: Sendable {
    private let slot = Mutex<Value?>(nil)

    func store(_ value: Value) { slot.withLock { $0 = value } }

    var value: Value? { slot.withLock { $0 } }
}
