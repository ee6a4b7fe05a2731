import MatterFlow
import Synchronization

/// When this worker last knew it held each run's lease: the moment it sent the statement (a claim, a heartbeat, a
/// confirmation) whose answer said so, by this machine's monotonic clock.
///
/// A run's call is fenced by its intent's record, which is written only while the run's row names this worker; but a
/// worker paused after that commit (stopped, frozen, swapped out) for longer than the lease may find the run taken
/// over when it wakes, and its heartbeat, paused too, has not said so yet. So before a call, a run whose lease was
/// last known held half a lease ago or more confirms it with the store first
/// (``StoreCommand/confirmLease(runID:renewingFor:)``, which also renews it), and makes no call when it is another
/// worker's. The window left is the time between that look and the call's first byte, not the round trip of the
/// intent's commit and whatever pause follows it. A whole virtual machine paused is not seen: its guest's clocks do
/// not count the pause.
final class LeaseConfirmations: Sendable {
    private let held = Mutex<[String: ContinuousClock.Instant]>([:])
    /// How many confirmations were sent since the worker started.
    private let sent = Atomic(0)
    /// How old a confirmation may be before a call asks the store again: half the lease. Heartbeats renew every
    /// third of a lease, so a worker that is not paused or cut off asks only when a heartbeat was slow.
    let limit: Duration
    /// This machine's monotonic clock (a test moves it, as a pause would).
    let now: @Sendable () -> ContinuousClock.Instant

    init(leaseSeconds: Double, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now }) {
        limit = .seconds(rounding: leaseSeconds / 2)
        self.now = now
    }

    /// The store answered that this worker holds the leases of `runIDs`, to a statement sent at `sent`.
    func confirmed(_ runIDs: some Sequence<String>, sentAt sent: ContinuousClock.Instant) {
        held.withLock { held in
            for runID in runIDs where held[runID].map({ $0 < sent }) ?? true { held[runID] = sent }
        }
    }

    /// Drops the entries too old to spare a confirmation (runs claimed ahead and handed back, which never ran here
    /// to be forgotten): one missing is confirmed as one too old would be. A heartbeat's work, not a claim's.
    func dropStale() {
        let oldest = now() - limit
        held.withLock { held in held = held.filter { $0.value > oldest } }
    }

    /// Whether a call of the run must confirm its lease with the store first.
    func needsConfirming(_ runID: String) -> Bool {
        let oldest = now() - limit
        return held.withLock { held in held[runID].map { $0 <= oldest } ?? true }
    }

    /// A confirmation is being sent.
    func sending() { sent.add(1, ordering: .relaxed) }

    /// The confirmations sent since the worker started: none while heartbeats keep up and the worker is not paused.
    var sentCount: Int { sent.load(ordering: .relaxed) }

    /// The run ended here: nothing of it calls any more.
    func forget(_ runID: String) {
        _ = held.withLock { $0.removeValue(forKey: runID) }
    }
}
