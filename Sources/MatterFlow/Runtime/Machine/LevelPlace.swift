import Synchronization

/// Where a workflow level runs in a run's tree of workflows: its ``RunModel`` and the names that place gives it
/// (the workflow path, and its states qualified as `parent/state`, as results and errors report them).
///
/// A top-level place is kept in the workflow's compiled model (``CompiledWorkflow/topPlace(catalog:)``); a child
/// place is made when a run first enters its sub-workflow state and kept in its parent's place, so runs compute
/// no names as they go. Places are made only where runs go: a tree whose files run each other many times has
/// exponentially many places, of which a run enters few.
final class LevelPlace: Sendable {
    let model: RunModel
    /// The workflow names from the top-level run down to this level.
    let path: [String]
    /// The qualification of this level's states (`parent/`), empty at the top.
    let prefix: String
    /// The states' qualified names, by number.
    let qualifiedNames: [String]
    /// The places of the sub-workflow states' children made so far, by state number.
    private let children = Mutex<[Int: LevelPlace]>([:])

    init(model: RunModel, path: [String], prefix: String) {
        self.model = model
        self.path = path
        self.prefix = prefix
        qualifiedNames = model.states.map { prefix + $0.name }
    }

    /// The place of a sub-workflow state's child; nil for other states, or when the sub-workflow was not loaded.
    func child(of state: PlannedState) -> LevelPlace? {
        guard let workflow = state.child else { return nil }
        if let kept = children.withLock({ $0[state.number] }) { return kept }
        let made = LevelPlace(
            model: workflow.model.runModel(catalog: model.catalog), path: path + [workflow.name], prefix: prefix + state.name + "/")
        // Two runs entering at once may both make it; the first kept is the one every run uses.
        return children.withLock { kept in
            if let first = kept[state.number] { return first }
            kept[state.number] = made
            return made
        }
    }
}
