import Dispatch
import MatterFlow
import Synchronization

/// Cancels the worker's runs whose cancel is asked for while the worker holds them (`matterflow cancel`,
/// ``PostgresRunStore/requestCancel(runID:)``): the store announces it (`NOTIFY matterflow_cancels` with the run's ID,
/// heard by the worker's listener: ``announced(_:)``), and the run takes its cancel path (``RunHandle/cancel()``).
///
/// A cancel asked for before the worker claimed the run reaches it in the claim (``ClaimedRun/cancelRequested``).
/// One announced while the worker holds the run (``hold(_:)``) but has no handle for it yet (claimed ahead, or
/// starting) waits until the run is attached, or is taken before it starts (``takePending(_:)``). One announced a
/// moment before the worker knows it holds the run (its claim's reply and the announcement cross) is kept for
/// ``earlyKeptFor``.
final class CancelRelay: Sendable {
    private struct State {
        /// The runs the worker holds (claimed, not ended).
        var held: Set<String> = []
        var handles: [String: RunHandle] = [:]
        /// Runs held without a handle whose cancel was announced.
        var pending: Set<String> = []
        /// Runs not known to be held whose cancel was announced, with when.
        var early: [String: ContinuousClock.Instant] = [:]
        var closed = false
    }

    /// How long a cancel announced for a run the worker does not hold (yet) is kept.
    static let earlyKeptFor: Duration = .seconds(60)

    private let store: PostgresRunStore
    private let log: WorkerLog
    private let state = Mutex(State())
    /// Where the store is asked which cancels were missed, off the listener's thread.
    private let queue = DispatchQueue(label: "matterflow.cancels")

    init(store: PostgresRunStore, log: @escaping WorkerLog) {
        self.store = store
        self.log = log
    }

    /// The worker claimed these runs: a cancel announced for one before it is attached waits for it.
    func hold(_ runIDs: [String]) {
        guard !runIDs.isEmpty else { return }
        state.withLock { state in
            guard !state.closed else { return }
            state.held.formUnion(runIDs)
            for runID in runIDs where state.early.removeValue(forKey: runID) != nil { state.pending.insert(runID) }
        }
    }

    /// The store announced cancels of these runs; nil after the worker's listener reconnected, when announcements
    /// may have been lost: the store is asked which of the attached runs' cancels were asked for.
    func announced(_ runIDs: Set<String>?) {
        guard let runIDs else {
            queue.async { self.lookAgain() }
            return
        }
        for runID in runIDs.sorted() { cancel(runID) }
    }

    /// Lets a cancel asked for now reach the run through `handle`; when one was asked for already, the run takes its
    /// cancel path at once.
    func attach(_ handle: RunHandle, to runID: String) {
        state.withLock { state in
            guard !state.closed else { return }
            if state.pending.remove(runID) != nil || state.early.removeValue(forKey: runID) != nil {
                cancelling(handle, runID)
            } else {
                state.handles[runID] = handle
            }
        }
    }

    /// Cancels nothing more, now or later: once it returns, no run is being cancelled by the relay (cancels are made
    /// holding its lock). A stopping worker closes it before it tells parked runs from others: a cancel ends a run's
    /// park, and a run handed back as parked must not take its cancel path here meanwhile. A cancel asked for later
    /// waits in the store for the worker that claims the run next.
    func close() {
        state.withLock { $0 = State(closed: true) }
    }

    /// Cancels these runs now, for a reason of the worker's own (a stopping worker's runs that no other worker could
    /// resume): each takes its cancel path here and records its end, as a run whose cancel was asked for does.
    func cancelHere(_ runIDs: some Sequence<String>) {
        state.withLock { state in
            guard !state.closed else { return }
            for runID in runIDs {
                state.handles.removeValue(forKey: runID)?.cancel(reason: "the worker stopped, and no other worker could resume the run with the secret it holds")
            }
        }
    }

    /// The run has ended (or is handed back): a cancel asked for now is for whoever holds it next.
    func release(_ runID: String) {
        state.withLock { state in
            state.held.remove(runID)
            state.handles[runID] = nil
            state.pending.remove(runID)
        }
    }

    /// Whether a cancel of the run was announced before it started (and forgets it): the run then ends without
    /// starting.
    func takePending(_ runID: String) -> Bool {
        state.withLock { state in state.pending.remove(runID) != nil || state.early.removeValue(forKey: runID) != nil }
    }

    private func cancel(_ runID: String) {
        state.withLock { state in
            guard !state.closed else { return }
            if let handle = state.handles.removeValue(forKey: runID) {
                cancelling(handle, runID)
            } else if state.held.contains(runID) {
                state.pending.insert(runID)
            } else {
                let now = ContinuousClock.now
                state.early = state.early.filter { now - $0.value < Self.earlyKeptFor }
                state.early[runID] = now
            }
        }
    }

    /// Cancels the run: called holding the lock (``close()`` relies on it). A handle's cancel only signals the run.
    private func cancelling(_ handle: RunHandle, _ runID: String) {
        log(.info, runID, "run \(runID): cancel asked for; taking its cancel path")
        handle.cancel(reason: "cancel asked for through the store (matterflow cancel)")
    }

    /// Asks the store which of the runs held have had their cancel asked for, and cancels them. Called on ``queue``
    /// only.
    private func lookAgain() {
        let held = state.withLock { $0.held.sorted() }
        do throws(StoreError) {
            for runID in try store.cancelsRequested(among: held).sorted() { cancel(runID) }
        } catch {
            log(.warning, nil, "could not look for cancels asked for (\(error.message)); trying again")
            queue.asyncAfter(deadline: .now() + .milliseconds(AnswerRelay.retryMilliseconds)) { self.lookAgain() }
        }
    }
}
