import MatterFlowJSON
import Synchronization

/// What a resumed run has not used yet of its ``ResumePoint``: each level takes its checkpoint as it starts, and
/// the innermost one takes the result of a step that had already finished.
final class ResumeCursor: Sendable {
    private struct State {
        var levels: ArraySlice<RunCheckpoint>
        var completedStep: JSONValue?
    }

    private let state: Mutex<State>

    init(_ point: ResumePoint) {
        state = Mutex(State(levels: point.levels[...], completedStep: point.completedStep))
    }

    /// Whether the next level to restore runs at this workflow path: the state that starts it is entered again
    /// without re-checking its guards, since they passed before the run stopped.
    func expects(path: [String]) -> Bool {
        state.withLock { $0.levels.first?.workflowPath == path }
    }

    /// The checkpoint of a level starting at this workflow path, when resuming reaches it.
    func take(path: [String]) -> RunCheckpoint? {
        state.withLock { state in
            guard state.levels.first?.workflowPath == path else { return nil }
            return state.levels.popFirst()
        }
    }

    /// Whether a deeper level is still to be restored (the current one must descend before doing anything else).
    var descending: Bool {
        state.withLock { !$0.levels.isEmpty }
    }

    /// The innermost state's finished result, once every level is restored; given out once.
    func takeCompletedStep() -> JSONValue? {
        state.withLock { state in
            guard state.levels.isEmpty else { return nil }
            defer { state.completedStep = nil }
            return state.completedStep
        }
    }
}
