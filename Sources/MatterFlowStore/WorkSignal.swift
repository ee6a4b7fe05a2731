import Synchronization

/// Wakes an idle worker: the store announced work (`NOTIFY matterflow_queue`), a run of its own ended and freed a
/// slot, or it was asked to stop. The worker's loop awaits ``wait(atMost:)`` without holding a thread.
///
/// A signal raised while nobody waits is kept, so the next wait returns at once: nothing announced between two
/// waits is missed.
final class WorkSignal: Sendable {
    private struct State {
        var raised = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Wakes the waiting loop, or the next wait.
    func raise() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let waiter = state.waiter else {
                state.raised = true
                return nil
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when raised, or after `timeout` at the latest. One loop waits at a time.
    func wait(atMost timeout: Duration) async {
        let timer = Task { [self] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { raise() }
        }
        defer { timer.cancel() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.raised {
                    state.raised = false
                    return true
                }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
