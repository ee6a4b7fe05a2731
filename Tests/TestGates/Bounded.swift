import Synchronization

/// `wait`'s value, or nil when it has not come within `limit` of real time.
///
/// For tests of waits that never end when the code under test is broken (a continuation nobody resumes ignores
/// cancellation, so a suite's time limit cannot end it): the test then fails once `limit` has passed instead of
/// holding the run.
/// `wait` runs on a task of its own, left suspended if it never ends. When the value comes in time the timer is
/// cancelled, so a passing test does not wait for it.
public func bounded<Value: Sendable>(
    within limit: Duration = .seconds(30), _ wait: @escaping @Sendable () async -> Value
) async -> Value? {
    let first = FirstResult<Value>()
    return await withCheckedContinuation { (continuation: CheckedContinuation<Value?, Never>) in
        first.keep(continuation)
        let timer = Task {
            try? await Task.sleep(for: limit)
            first.offer(nil)
        }
        Task {
            first.offer(await wait())
            timer.cancel()
        }
    }
}

/// Hands the first of several offered results to a waiting continuation; later ones are dropped.
private final class FirstResult<Value: Sendable>: Sendable {
    private let state = Mutex<(waiter: CheckedContinuation<Value?, Never>?, done: Bool)>((nil, false))

    func keep(_ continuation: CheckedContinuation<Value?, Never>) {
        state.withLock { $0.waiter = continuation }
    }

    func offer(_ value: Value?) {
        let waiter = state.withLock { state -> CheckedContinuation<Value?, Never>? in
            guard !state.done else { return nil }
            state.done = true
            return state.waiter.take()
        }
        waiter?.resume(returning: value)
    }
}
