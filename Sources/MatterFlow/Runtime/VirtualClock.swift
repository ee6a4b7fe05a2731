import Synchronization

/// Virtual time: the clock jumps to the next sleeper's deadline as soon as every tracked task is waiting, so
/// simulated minutes pass in microseconds and runs are repeatable.
///
/// The clock moves whenever every task it knows of waits, so code of yours between two calls that start runs on it
/// (`start`, `submit`) is not something it waits for: the first run may reach its next timer, and time jump, before
/// the second starts. To start several runs at one instant, hold the clock (``ClockHold``) around the starts and
/// release it after.
///
/// The engine and the simulated hub account for their tasks (see ``WorkflowClock``). A run driven on this clock
/// by ``WorkflowEngine`` with a ``Hub`` that only waits on the clock needs nothing more. Sleepers are kept in a
/// heap by deadline, so tens of thousands of concurrent runs (each with a timeout timer per hub call) cost
/// O(log n) per sleep, wake and cancellation.
public final class VirtualClock: WorkflowClock {
    private enum Wake {
        case task(CheckedContinuation<Void, any Error>)
        case action(@Sendable () -> Void)
    }

    private struct Sleeper {
        var deadline: Duration
        var wake: Wake
    }

    private struct State {
        var now: Duration = .zero
        var active = 0
        var nextID: UInt64 = 0
        /// Pending sleepers and timers by ID.
        var sleepers: [UInt64: Sleeper] = [:]
        /// Deadlines of sleepers (entries of woken or cancelled sleepers are skipped when they surface).
        var queue = DeadlineHeap()
    }

    private let state = Mutex(State())

    /// A clock at zero, with no task working and no sleepers.
    public init() {}

    /// Virtual time elapsed since the clock was made.
    public var now: Duration { state.withLock { $0.now } }

    /// How many tracked tasks are working right now (for tests of the accounting).
    public var activeTasks: Int { state.withLock { $0.active } }

    /// How many tasks and timers are waiting on this clock.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Counts one more task as working.
    public func beginActivity() {
        state.withLock { $0.active += 1 }
    }

    /// Counts one task fewer as working; when none is left, moves time to the earliest deadline and wakes what is
    /// due then.
    public func endActivity() {
        settle(state.withLock { state -> [Sleeper] in
            state.active -= 1
            return Self.advanceIfIdle(&state)
        })
    }

    private func nextID() -> UInt64 {
        state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
    }

    /// Suspends until virtual time reaches `duration` from now, the task counting as not working meanwhile; returns
    /// at once for a duration of zero or less, and throws `CancellationError` when the task is cancelled.
    public func sleep(for duration: Duration) async throws {
        guard duration > .zero else {
            try Task.checkCancellation()
            return
        }
        let id = nextID()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (cancelled, woken) = state.withLock { state -> (Bool, [Sleeper]) in
                    if Task.isCancelled { return (true, []) }
                    let deadline = state.now + duration
                    state.sleepers[id] = Sleeper(deadline: deadline, wake: .task(continuation))
                    state.queue.push(deadline: deadline, id: id)
                    state.active -= 1
                    return (false, Self.advanceIfIdle(&state))
                }
                if cancelled { continuation.resume(throwing: CancellationError()) }
                settle(woken)
            }
        } onCancel: {
            let cancelled = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers[id], case .task = sleeper.wake else { return nil }
                state.sleepers[id] = nil
                state.active += 1
                return sleeper
            }
            if case .task(let continuation)? = cancelled?.wake { continuation.resume(throwing: CancellationError()) }
        }
    }

    /// Queues `action` to run when virtual time reaches `duration` from now (a negative duration counts as zero);
    /// cancelling the timer removes it.
    public func scheduleTimer(after duration: Duration, _ action: @escaping @Sendable () -> Void) -> any ClockTimer {
        let id = nextID()
        state.withLock { state in
            let deadline = state.now + max(duration, .zero)
            state.sleepers[id] = Sleeper(deadline: deadline, wake: .action(action))
            state.queue.push(deadline: deadline, id: id)
        }
        return QueuedTimer { [self] in _ = state.withLock { $0.sleepers.removeValue(forKey: id) } }
    }

    /// Wakes a batch, then keeps advancing while timer actions alone leave nothing running.
    private func settle(_ first: [Sleeper]) {
        var batch = first
        while !batch.isEmpty {
            var firedActions = false
            for sleeper in batch {
                switch sleeper.wake {
                case .task(let continuation): continuation.resume()
                case .action(let action):
                    firedActions = true
                    action()
                }
            }
            guard firedActions else { return }
            batch = state.withLock { Self.advanceIfIdle(&$0) }
        }
    }

    /// With no task working, moves time to the earliest pending deadline and takes everyone due then, in the
    /// order they were scheduled. Woken tasks count as working.
    private static func advanceIfIdle(_ state: inout State) -> [Sleeper] {
        guard state.active <= 0 else { return [] }
        var deadline: Duration?
        var due: [(UInt64, Sleeper)] = []
        while let top = state.queue.peek {
            guard state.sleepers[top.id] != nil else {
                _ = state.queue.pop()
                continue
            }
            if let deadline, top.deadline > deadline { break }
            deadline = top.deadline
            _ = state.queue.pop()
            if let sleeper = state.sleepers.removeValue(forKey: top.id) { due.append((top.id, sleeper)) }
        }
        guard let deadline else { return [] }
        state.now = max(state.now, deadline)
        for (_, sleeper) in due {
            if case .task = sleeper.wake { state.active += 1 }
        }
        return due.sorted { $0.0 < $1.0 }.map(\.1)
    }
}

/// A binary min-heap of (deadline, sleeper ID), ordered by deadline then ID.
struct DeadlineHeap {
    private var entries: [(deadline: Duration, id: UInt64)] = []

    var peek: (deadline: Duration, id: UInt64)? { entries.first }

    private static func less(_ lhs: (deadline: Duration, id: UInt64), _ rhs: (deadline: Duration, id: UInt64)) -> Bool {
        lhs.deadline < rhs.deadline || (lhs.deadline == rhs.deadline && lhs.id < rhs.id)
    }

    mutating func push(deadline: Duration, id: UInt64) {
        entries.append((deadline, id))
        var child = entries.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.less(entries[child], entries[parent]) else { break }
            entries.swapAt(child, parent)
            child = parent
        }
    }

    mutating func pop() -> (deadline: Duration, id: UInt64)? {
        guard !entries.isEmpty else { return nil }
        entries.swapAt(0, entries.count - 1)
        let top = entries.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < entries.count, Self.less(entries[left], entries[smallest]) { smallest = left }
            if right < entries.count, Self.less(entries[right], entries[smallest]) { smallest = right }
            guard smallest != parent else { break }
            entries.swapAt(parent, smallest)
            parent = smallest
        }
        return top
    }
}
