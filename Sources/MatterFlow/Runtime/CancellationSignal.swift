import Synchronization

/// A one-shot cancellation flag that runs registered handlers when it fires.
///
/// The interpreter races every hub call, retry delay and sub-workflow against it, so cancelling a run does not
/// depend on the hub honouring task cancellation.
final class CancellationSignal: Sendable {
    private struct State {
        var cancelled = false
        var nextToken = 0
        var handlers: [Int: @Sendable () -> Void] = [:]
    }

    private let state = Mutex(State())

    init() {}

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    /// Fires the signal; later calls do nothing.
    func cancel() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            guard !state.cancelled else { return [] }
            state.cancelled = true
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
    private let continuation: Mutex<CheckedContinuation<Value, Never>?>
    private let cleanup: Mutex<[@Sendable () -> Void]>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Mutex(continuation)
        self.cleanup = Mutex([])
    }

    /// Adds work to do when the race is decided (cancel the losers).
    func onDecided(_ work: @escaping @Sendable () -> Void) {
        cleanup.withLock { $0.append(work) }
    }

    /// Offers a result; only the first offer wins.
    func offer(_ value: Value) {
        guard let winner = continuation.withLock({ state -> CheckedContinuation<Value, Never>? in
            defer { state = nil }
            return state
        }) else { return }
        let work = cleanup.withLock { state -> [@Sendable () -> Void] in
            defer { state = [] }
            return state
        }
        work.forEach { $0() }
        winner.resume(returning: value)
    }
}
