import Synchronization

/// The time source of runs and simulated hubs: real time, manual time for tests, or virtual time that jumps
/// ahead whenever nothing is left to do (``VirtualClock``).
///
/// Virtual time needs to know when every task of a simulation is waiting. Code that starts a task working on the
/// simulated world calls ``beginActivity()`` before starting it and the task calls ``endActivity()`` when it ends;
/// a task about to wait for something other than this clock calls ``endActivity()``, and whoever wakes it calls
/// ``beginActivity()`` on its behalf before resuming it. Sleeping on the clock needs no calls. Real and manual
/// clocks ignore all of this.
public protocol WorkflowClock: Sendable {
    /// Time elapsed since the clock's origin.
    var now: Duration { get }
    /// Suspends until `duration` has passed on this clock. Throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
    /// A task starts (or is about to be woken) to work in the simulated world.
    func beginActivity()
    /// A task ends, or is about to wait for something other than this clock.
    func endActivity()
}

extension WorkflowClock {
    public func beginActivity() {}
    public func endActivity() {}
}

/// Real time, measured with the system's monotonic clock.
public struct SystemClock: WorkflowClock {
    private let origin = ContinuousClock.now

    public init() {}

    public var now: Duration { ContinuousClock.now - origin }

    public func sleep(for duration: Duration) async throws {
        try await Task.sleep(for: duration)
    }
}

/// A clock that moves only when told to, so tests and fixtures never wait for real time.
///
/// Sleepers wake in deadline order when ``ManualClock/advance(by:)`` passes their deadline. Tests learn that the
/// engine is sleeping with ``ManualClock/waitForSleepers(_:)`` instead of sleeping themselves.
public final class ManualClock: WorkflowClock {
    private struct Sleeper {
        var id: UInt64
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
        var watchers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Duration { state.withLock { $0.now } }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// The earliest deadline of a sleeper, if any.
    public var nextDeadline: Duration? { state.withLock { $0.sleepers.map(\.deadline).min() } }

    public func sleep(for duration: Duration) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, ready) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled { return (true, []) }
                    if duration <= .zero { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: state.now + duration, continuation: continuation))
                    return (false, Self.takeSatisfiedWatchers(&state))
                }
                ready.forEach { $0.resume() }
                if resumeNow {
                    if Task.isCancelled { continuation.resume(throwing: CancellationError()) } else { continuation.resume() }
                }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward, waking every sleeper whose deadline is reached, earliest first.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now += duration
            let due = state.sleepers.filter { $0.deadline <= state.now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= state.now }
            return due
        }
        woken.forEach { $0.continuation.resume() }
    }

    /// Moves time to the earliest sleeper's deadline and wakes it; returns false when nobody sleeps.
    @discardableResult
    public func advanceToNextDeadline() -> Bool {
        guard let deadline = nextDeadline else { return false }
        advance(by: max(.zero, deadline - now))
        return true
    }

    /// Returns once at least `count` tasks are sleeping on this clock.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.watchers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    private static func takeSatisfiedWatchers(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        let ready = state.watchers.filter { $0.count <= count }.map(\.continuation)
        state.watchers.removeAll { $0.count <= count }
        return ready
    }
}
