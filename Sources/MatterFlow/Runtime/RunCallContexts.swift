import MatterFlowJSON
import Synchronization

/// The ``HubCallContext`` each of a run's hub calls carries: the run's ID, a key numbering the run's calls, and
/// for a call made inside the commissioning session the ID of the session the run's own prepare opened.
///
/// One per run, shared by its sub-workflows, so a session opened at any level is known at every level. When an
/// outer layer already sets ``HubCallContext/current`` around the run (a journaled run sets it around each call,
/// with its own numbering), the run adds none and leaves that context as it is.
final class RunCallContexts: Sendable {
    private struct State {
        /// How many calls the run has given a context so far.
        var calls = 0
        /// The session the run's last successful prepare opened.
        var sessionID: String?
    }

    let runID: String
    private let state = Mutex(State())

    init(runID: String) {
        self.runID = runID
    }

    /// The context for the run's next call of `call`; nil when one is already set by an outer layer.
    func next(for call: PlannedCall) -> HubCallContext? {
        guard HubCallContext.current == nil else { return nil }
        let (number, sessionID) = state.withLock { state -> (Int, String?) in
            state.calls += 1
            return (state.calls, state.sessionID)
        }
        return HubCallContext(
            runID: runID, idempotencyKey: "\(runID)/\(number)", expectedSessionID: call.usesSession ? sessionID : nil)
    }

    /// Notes the session a call opened: its result when it finished, or its late result when the run was
    /// cancelled while it ran (the cancel path then releases that session, inside it).
    func ended(_ call: PlannedCall, _ outcome: RaceOutcome<JSONValue>) {
        guard call.acquiresSession else { return }
        let value: JSONValue?
        switch outcome {
        case .finished(let finished): value = finished
        case .cancelled(let late): value = late
        case .failed, .timedOut: value = nil
        }
        guard let opened = value?["sessionID"]?.stringValue else { return }
        state.withLock { $0.sessionID = opened }
    }
}
