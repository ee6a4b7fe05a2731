import Synchronization

/// Virtual time's bookkeeping, kept by construction rather than by hand.
///
/// A ``VirtualClock`` jumps ahead only while nothing in the simulated world is working, so it must know, at every
/// moment, which tasks are working. Code does not count that itself: each way a task can start, work, or wait is one
/// of the primitives below, and each keeps the count balanced on every path (return, throw, early wake):
///
/// - ``WorkflowClock/working(_:)-(()throws(E)->T)`` does a piece of work, synchronous or not, during which no time
///   passes (unless the work itself waits on the clock or off it);
/// - ``WorkflowClock/task(_:)`` starts a task that works from its creation to its end;
/// - ``WorkflowClock/waitOffClock(_:)`` suspends a task until something other than the clock wakes it, through a
///   ``ClockWaker``, which counts the woken task as working before it resumes, so no time passes between the wake
///   and the task running;
/// - ``WorkflowClock/addTask(to:_:)`` and ``WorkflowClock/next(in:)`` do the same for the children of a task
///   group that the group's owner waits for;
/// - ``ClockHold`` keeps virtual time still for as long as a value is held: a line on its way to a receiver, a
///   finished fixture whose home is being read.
///
/// Sleeping on the clock needs none of them. On real and manual clocks they all do nothing more than run, start,
/// wait or hold.
///
/// Two exceptions, for speed: ``Race``, on every hub call, counts by hand (its documentation says what the
/// primitives cost there), and ``WorkflowEngine/run(_:inputs:on:options:)`` writes ``working(_:)-(()async throws(E)->T)``
/// out, with `defer`.
extension WorkflowClock {
    /// Does `body` as work of the simulated world.
    public func working<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        beginActivity()
        defer { endActivity() }
        return try body()
    }

    /// Does `body` as work of the simulated world; it may wait on the clock, or off it through the primitives.
    public func working<T, E: Error>(_ body: () async throws(E) -> T) async throws(E) -> T {
        beginActivity()
        defer { endActivity() }
        return try await body()
    }

    /// Starts a task that works in the simulated world from now until it ends.
    @discardableResult
    public func task<T: Sendable>(_ body: sending @escaping () async -> T) -> Task<T, Never> {
        beginActivity()
        return Task {
            defer { endActivity() }
            return await body()
        }
    }

    /// Starts a task that works in the simulated world from now until it ends, detached from the calling task: it
    /// takes none of its task-locals (a hub call's ``HubCallContext``) or its priority. For work started on behalf of
    /// someone other than the caller, such as a pool's run woken by an event another run's hub call published.
    func detachedTask(_ body: sending @escaping () async -> Void) {
        beginActivity()
        Task.detached {
            defer { endActivity() }
            await body()
        }
    }

    /// Suspends the calling task, which does not hold virtual time meanwhile, until the waker handed to `start` wakes
    /// it (from another task, a timer's action, a callback; or at once, from `start` itself).
    public func waitOffClock<T>(_ start: (ClockWaker<T>) -> Void) async -> T {
        await Optional<any WorkflowClock>.some(self).waitOffClock(start)
    }

    /// Starts a task that works in the simulated world from now until it ends; when it ends, its activity passes to
    /// a caller waiting for it through `handover` (``ClockHandover/wait(for:)``) instead of ending.
    public func task<T: Sendable>(
        handingOverTo handover: ClockHandover, _ body: sending @escaping () async -> T
    ) -> Task<T, Never> {
        beginActivity()
        return Task {
            let value = await body()
            handover.taskEnded(on: self)
            return value
        }
    }

    /// Adds a child task to `group` that works from now until it ends; when it ends, its activity passes to the
    /// group's owner, who waits for it with ``next(in:)``.
    public func addTask<T: Sendable>(to group: inout TaskGroup<T>, _ body: sending @escaping () async -> T) {
        beginActivity()
        group.addTask { await body() }
    }

    /// Waits for the next child of `group` started with ``addTask(to:_:)``, not holding virtual time meanwhile; the
    /// child's activity becomes the caller's when it ends. Nil when the group has no child left.
    public func next<T: Sendable>(in group: inout TaskGroup<T>) async -> T? {
        endActivity()
        guard let child = await group.next() else {
            beginActivity()
            return nil
        }
        return child
    }
}

/// The activity of a task started with ``WorkflowClock/task(handingOverTo:_:)``, passed on when it ends to the
/// caller waiting for it: the caller does not hold virtual time while it waits (time may pass for the task's own
/// waits), and no time passes between the task's end and the caller going on.
public final class ClockHandover: Sendable {
    private enum State {
        case running
        case awaited
        case ended
    }

    /// How a caller of ``wait(on:for:)`` waits.
    private enum Waiting {
        case handedOver
        case alongside
        case ended
    }

    private let state = Mutex(State.running)

    /// A handover to pass to ``WorkflowClock/task(handingOverTo:_:)``, before the task starts.
    public init() {}

    /// Called by the task as it ends: its activity ends, unless a caller waits for it, to whom it passes.
    func taskEnded(on clock: any WorkflowClock) {
        let awaited = state.withLock { state -> Bool in
            defer { state = .ended }
            switch state {
            case .awaited: return true
            case .running, .ended: return false
            }
        }
        if !awaited { clock.endActivity() }
    }

    /// Awaits `value`, the task's result, from a task working on `clock`, which stops holding virtual time while it
    /// waits and works again, with the ended task's activity, when it resumes. A second caller waiting at the same
    /// time takes its own activity back instead (time may pass between the task's end and its going on).
    public func wait<T>(on clock: any WorkflowClock, for value: () async -> T) async -> T {
        let waiting = state.withLock { state -> Waiting in
            switch state {
            case .running:
                state = .awaited
                return .handedOver
            case .awaited: return .alongside
            case .ended: return .ended
            }
        }
        switch waiting {
        case .ended:
            return await value()
        case .handedOver:
            clock.endActivity()
            return await value()
        case .alongside:
            clock.endActivity()
            defer { clock.beginActivity() }
            return await value()
        }
    }
}

/// Wakes a task suspended by ``WorkflowClock/waitOffClock(_:)``: the task counts as working on the clock from the
/// wake on. Wake it exactly once.
public struct ClockWaker<T>: Sendable {
    private let continuation: CheckedContinuation<T, Never>
    private let clock: (any WorkflowClock)?

    /// A waker of `continuation` that counts the woken task on `clock`, or on no clock.
    init(_ continuation: CheckedContinuation<T, Never>, clock: (any WorkflowClock)?) {
        self.continuation = continuation
        self.clock = clock
    }

    /// Resumes the waiting task with `value`.
    public func wake(_ value: sending T) {
        clock?.beginActivity()
        continuation.resume(returning: value)
    }
}

/// Keeps virtual time still from its making until ``release()``: work of the simulated world that is not a task,
/// such as a message on its way to its receiver. Releasing it again does nothing.
public final class ClockHold: Sendable {
    private let clock: any WorkflowClock
    private let held = Atomic<Bool>(true)

    /// Holds `clock` from now on.
    public init(_ clock: any WorkflowClock) {
        self.clock = clock
        clock.beginActivity()
    }

    /// Lets virtual time move again, as far as this hold is concerned.
    public func release() {
        if held.exchange(false, ordering: .acquiringAndReleasing) { clock.endActivity() }
    }
}

/// The primitives for code that may or may not share a clock with the simulated world (an in-process hub
/// connection shares the run's; a process's connection shares none): without a clock they only start, wait or run.
extension Optional where Wrapped == any WorkflowClock {
    /// ``WorkflowClock/task(_:)`` on the clock, if any.
    @discardableResult
    public func task<T: Sendable>(_ body: sending @escaping () async -> T) -> Task<T, Never> {
        switch self {
        case .some(let clock): clock.task(body)
        case .none: Task { await body() }
        }
    }

    /// ``WorkflowClock/waitOffClock(_:)`` on the clock, if any.
    public func waitOffClock<T>(_ start: (ClockWaker<T>) -> Void) async -> T {
        await withCheckedContinuation { (continuation: CheckedContinuation<T, Never>) in
            start(ClockWaker(continuation, clock: self))
            self?.endActivity()
        }
    }
}
