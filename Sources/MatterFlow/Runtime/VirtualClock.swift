import Synchronization

/// Virtual time: the clock jumps to the next sleeper's deadline as soon as every tracked task is waiting, so
/// simulated minutes pass in microseconds and runs are repeatable.
///
/// The engine and the simulated hub account for their tasks (see ``WorkflowClock``). A run driven on this clock
/// by ``WorkflowEngine`` with a ``Hub`` that only waits on the clock needs nothing more.
public final class VirtualClock: WorkflowClock {
    private struct Sleeper {
        var id: UInt64
        var deadline: Duration
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Duration = .zero
        var active = 0
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
    }

    private let state = Mutex(State())

    public init() {}

    public var now: Duration { state.withLock { $0.now } }

    /// How many tracked tasks are working right now (for tests of the accounting).
    public var activeTasks: Int { state.withLock { $0.active } }

    public func beginActivity() {
        state.withLock { $0.active += 1 }
    }

    public func endActivity() {
        let woken = state.withLock { state -> [Sleeper] in
            state.active -= 1
            return Self.advanceIfIdle(&state)
        }
        woken.forEach { $0.continuation.resume() }
    }

    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else {
            try Task.checkCancellation()
            return
        }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (cancelled, woken) = state.withLock { state -> (Bool, [Sleeper]) in
                    if Task.isCancelled { return (true, []) }
                    state.sleepers.append(Sleeper(id: id, deadline: state.now + duration, continuation: continuation))
                    state.active -= 1
                    return (false, Self.advanceIfIdle(&state))
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
                woken.forEach { $0.continuation.resume() }
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                state.active += 1
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    /// With no task working, moves time to the earliest deadline and wakes everyone due then.
    private static func advanceIfIdle(_ state: inout State) -> [Sleeper] {
        guard state.active <= 0, let deadline = state.sleepers.map(\.deadline).min() else { return [] }
        state.now = max(state.now, deadline)
        let due = state.sleepers.filter { $0.deadline <= deadline }.sorted { $0.id < $1.id }
        state.sleepers.removeAll { $0.deadline <= deadline }
        state.active += due.count
        return due
    }
}
