import Synchronization

/// A one-shot cancellation flag that runs registered handlers when it fires.
///
/// The interpreter races every hub call, retry delay and sub-workflow against it, so cancelling a run does not
/// depend on the hub honouring task cancellation.
final class CancellationSignal: Sendable {
    private struct State {
        var cancelled = false
        var reason: String?
        var nextToken = 0
        var handlers: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())
    /// `state.cancelled`, readable without the lock: a run reads it on entering every state. Set (once, never
    /// cleared) while the lock is held, so a reader that sees it sees a signal whose handlers are being run.
    private let fired = Atomic<Bool>(false)

    init() {}

    var isCancelled: Bool { fired.load(ordering: .acquiring) }

    /// Why the signal fired, when whoever fired it said (the first cancel's reason).
    var reason: String? { state.withLock { $0.reason } }

    /// Fires the signal, saying why if `reason` is given; later calls do nothing.
    func cancel(reason: String? = nil) {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.cancelled else { return [] }
            state.cancelled = true
            state.reason = reason
            fired.store(true, ordering: .releasing)
            defer { state.handlers = [:] }
            return Array(state.handlers.values)
        }
        handlers.forEach { $0() }
    }

    /// Registers a handler; it runs at once if the signal has fired. Returns a token for ``remove(_:)``.
    @discardableResult
    func onCancel(_ handler: @escaping @Sendable () -> Void) -> Int {
        let token = state.withLock { state -> Int? in
            guard !state.cancelled else { return nil }
            state.nextToken += 1
            state.handlers[state.nextToken] = handler
            return state.nextToken
        }
        guard let token else {
            handler()
            return -1
        }
        return token
    }

    func remove(_ token: Int) {
        _ = state.withLock { $0.handlers.removeValue(forKey: token) }
    }
}

/// Resumes a continuation exactly once, whichever racer finishes first.
final class FirstResult<Value: Sendable>: Sendable {
    private struct State {
        var waker: ClockWaker<Value>?
        var cleanup: [@Sendable () -> Void] = []
    }

    private let state: Mutex<State>

    /// A race whose winner wakes the task waiting with `waker`.
    init(_ waker: ClockWaker<Value>) {
        state = Mutex(State(waker: waker))
    }

    /// Adds work to do when the race is decided (cancel the losers); runs it at once if the race is already decided.
    func onDecided(_ work: @escaping @Sendable () -> Void) {
        let decided = state.withLock { state -> Bool in
            guard state.waker != nil else { return true }
            state.cleanup.append(work)
            return false
        }
        if decided { work() }
    }

    /// Offers a result; only the first offer wins. Returns whether this one did.
    @discardableResult
    func offer(_ value: Value) -> Bool {
        let decision = state.withLock { state -> (ClockWaker<Value>, [@Sendable () -> Void])? in
            guard let waker = state.waker else { return nil }
            defer {
                state.waker = nil
                state.cleanup = []
            }
            return (waker, state.cleanup)
        }
        guard let (winner, cleanup) = decision else { return false }
        cleanup.forEach { $0() }
        winner.wake(value)
        return true
    }
}
