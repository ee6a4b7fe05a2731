import MatterFlow
import Synchronization

/// Whether a run waits for something outside it (a person's answer, a delay, a hub event, a retry's timer), as its
/// events tell: its last event began such a wait. Such a run does no work until the wait ends, so a worker gives its
/// slot to another run (``WorkerOptions/concurrency``) and its group commit does not hold batches back for it.
///
/// A run whose `map` branches wait and work at once reads as its latest event says: the slot count and the
/// batching may then be off for a moment, never what the run does.
final class RunIdleness: Sendable {
    private let idle = Atomic<Bool>(false)

    /// Whether the run's last event began a wait.
    var isIdle: Bool { idle.load(ordering: .relaxed) }

    /// Follows one event of the run; returns whether the run now waits, when that changed, and nil otherwise.
    func note(_ event: RunEvent) -> Bool? {
        let waits: Bool
        switch event.kind {
        case .waitStarted, .questionAsked, .delayStarted, .retryScheduled:
            waits = true
        case .answerRejected, .warning, .shown:
            // The wait goes on (a rejected answer given in advance), or the event says nothing of one.
            return nil
        case .runStarted, .stateEntered, .guardChecked, .hubCallStarted, .hubCallFinished, .transition, .eventReceived, .answered,
            .cancelRequested, .runFinished:
            waits = false
        }
        return idle.exchange(waits, ordering: .relaxed) == waits ? nil : waits
    }
}
