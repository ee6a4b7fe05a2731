import Synchronization

/// The time source of runs and simulated hubs: real time, manual time for tests, or virtual time that jumps
/// ahead whenever nothing is left to do (``VirtualClock``).
///
/// Virtual time needs to know when every task of a simulation is waiting: a clock counts the tasks working in the
/// simulated world through ``beginActivity()`` and ``endActivity()``. Code does not call them itself: it starts,
/// runs and suspends its tasks through the primitives that keep the count balanced by construction (``working(_:)-(()throws(E)->T)``,
/// ``task(_:)``, ``waitOffClock(_:)``, ``ClockHold``: see ClockActivity.swift). Sleeping on the clock needs none of
/// them. Real and manual clocks ignore all of this.
public protocol WorkflowClock: Sendable {
    /// Time elapsed since the clock's origin.
    var now: Duration { get }
    /// Suspends until `duration` has passed on this clock. Throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
    /// One more task works in the simulated world (called by the primitives of ClockActivity.swift).
    func beginActivity()
    /// One task fewer works in the simulated world (called by the primitives of ClockActivity.swift).
    func endActivity()
    /// Calls `action` once `duration` has passed on this clock, unless the timer is cancelled first.
    ///
    /// The default starts a task that sleeps; manual and virtual clocks keep the action in their queue instead, so
    /// a timer per hub call costs no task.
    func scheduleTimer(after duration: Duration, _ action: @escaping @Sendable () -> Void) -> any ClockTimer
}

/// A timer from ``WorkflowClock/scheduleTimer(after:_:)``.
public protocol ClockTimer: Sendable {
    /// Stops the timer; its action will not run (harmless once it has).
    func cancel()
}

extension WorkflowClock {
    /// Does nothing, for clocks that do not count the tasks at work.
    public func beginActivity() {}
    /// Does nothing, for clocks that do not count the tasks at work.
    public func endActivity() {}

    /// Starts a task that sleeps for `duration` on this clock, then calls `action`; cancelling the timer cancels the
    /// task.
    public func scheduleTimer(after duration: Duration, _ action: @escaping @Sendable () -> Void) -> any ClockTimer {
        TaskTimer(task: task {
            if (try? await sleep(for: duration)) != nil { action() }
        })
    }
}

/// A timer backed by a sleeping task.
struct TaskTimer: ClockTimer {
    let task: Task<Void, Never>

    func cancel() { task.cancel() }
}

/// A timer kept in a clock's own queue, cancelled by removing it.
struct QueuedTimer: ClockTimer {
    let remove: @Sendable () -> Void

    func cancel() { remove() }
}

/// Real time, measured with the system's monotonic clock.
public struct SystemClock: WorkflowClock {
    private let origin = ContinuousClock.now

    /// A clock whose origin is the moment it is made.
    public init() {}

    /// Real time elapsed since the clock was made.
    public var now: Duration { ContinuousClock.now - origin }

    /// Sleeps for `duration` of real time; throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

/// A clock that moves only when told to, so tests and fixtures never wait for real time.
///
/// Sleepers (and timers) wake in deadline order when ``ManualClock/advance(by:)`` passes their deadline. Tests
/// learn that the engine is sleeping with ``ManualClock/waitForSleepers(_:)`` instead of sleeping themselves;
/// timers count as sleepers.
public final class ManualClock: WorkflowClock {
    private enum Wake {
        case task(CheckedContinuation<Void, any Error>)
        case action(@Sendable () -> Void)
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: Duration
        var wake: Wake
    }

    private struct State {
        var now: Duration = .zero
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var watchers: [(count: Int, id: UInt64, continuation: CheckedContinuation<Void, Never>)] = []
        var nextWatcher: UInt64 = 0
    }

    private let state = Mutex(State())

    /// A clock at zero, with no sleepers.
    public init() {}

    /// The time the clock has been advanced to, from zero.
    public var now: Duration { state.withLock { $0.now } }

    /// How many tasks (and timers) are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline of a sleeper, if any.
    public var nextDeadline: Duration? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    private func add(_ wake: Wake, after duration: Duration, id: UInt64) -> [CheckedContinuation<Void, Never>] {
        state.withLock { state in
            state.sleepers.append(Sleeper(id: id, deadline: state.now + duration, wake: wake))
            return Self.takeSatisfiedWatchers(&state)
        }
    }

    private func nextID() -> UInt64 {
        state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
    }

    private func remove(_ id: UInt64) -> Sleeper? {
        state.withLock { state -> Sleeper? in
            guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
            return state.sleepers.remove(at: index)
        }
    }

    /// Suspends until an advance reaches `duration` from now; returns at once for a duration of zero or less, and
    /// throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        let id = nextID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                if Task.isCancelled {
                    continuation.resume(throwing: CancellationError())
                } else if duration <= .zero {
                    continuation.resume()
                } else {
                    add(.task(continuation), after: duration, id: id).forEach { $0.resume() }
                }
            }
        } onCancel: {
            if case .task(let continuation)? = remove(id)?.wake { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Queues `action` to run when an advance reaches `duration` from now; the timer counts as a sleeper until then.
    public func scheduleTimer(after duration: Duration, _ action: @escaping @Sendable () -> Void) -> any ClockTimer {
        let id = nextID()
        add(.action(action), after: duration, id: id).forEach { $0.resume() }
        return QueuedTimer { [self] in _ = remove(id) }
    }

    /// Moves time forward, waking every sleeper whose deadline is reached, earliest first.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now += duration
            let due = state.sleepers.filter { $0.deadline <= state.now }.sorted { ($0.deadline, $0.id) < ($1.deadline, $1.id) }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return due
        }
        for sleeper in woken {
            switch sleeper.wake {
            case .task(let continuation): continuation.resume()
            case .action(let action): action()
            }
        }
    }

    /// Moves time to the earliest sleeper's deadline and wakes it; returns false when nobody sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        guard let deadline = nextDeadline else { return false }
        advance(by: max(.zero, deadline - now))
        return true
    }

    /// Returns once at least `count` tasks (or timers) are sleeping on this clock, or once the waiting task is
    /// cancelled (a test's time limit, say), whichever comes first.
    public func waitForSleepers(_ count: Int = 1) async {
        let id = state.withLock { state -> UInt64 in
            state.nextWatcher += 1
            return state.nextWatcher
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                // Checked under the lock the cancel handler takes: a cancel before this finds no watcher, and is seen here.
                let ready = state.withLock { state -> Bool in
                    if state.sleepers.count >= count || Task.isCancelled { return true }
                    state.watchers.append((count, id, continuation))
                    return false
                }
                if ready { continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> CheckedContinuation<Void, Never>? in
                guard let index = state.watchers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.watchers.remove(at: index).continuation
            }
            cancelled?.resume()
        }
    }

    private static func takeSatisfiedWatchers(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        let ready = state.watchers.filter { $0.count <= count }.map(\.continuation)
        state.watchers.removeAll { $0.count <= count }
        return ready
    }
}
