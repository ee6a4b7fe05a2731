import MatterFlow

/// Follows a run's events down its sub-workflows, so each event can be attributed to the workflow file it is
/// about and each state entered can be named as in `visitedStates` (`commission/commission`).
///
/// Events carry workflow names only; the stack knows which file each level runs from the state its parent level
/// is in (the engine runs one state at a time).
struct WorkflowStack: Sendable {
    private var levels: [(workflow: Workflow, state: String?)]

    init(root: Workflow) {
        levels = [(root, nil)]
    }

    /// Moves to the level of an event and returns the workflow it is about (nil if the events are inconsistent
    /// with the workflow, which a validated workflow never causes). A `stateEntered` event also records the
    /// level's current state.
    mutating func locate(_ event: RunEvent) -> Workflow? {
        let depth = event.workflowPath.count
        guard depth >= 1 else { return nil }
        if depth <= levels.count {
            levels.removeLast(levels.count - depth)
        } else if depth == levels.count + 1, let parent = levels.last, let state = parent.state,
            case .workflow(let step)? = parent.workflow.states[state]?.kind,
            let child = parent.workflow.subworkflows[step.path]
        {
            levels.append((child, nil))
        } else {
            return nil
        }
        if case .stateEntered(let state, _) = event.kind { levels[depth - 1].state = state }
        return levels[depth - 1].workflow
    }

    /// The current state, qualified by the states of the levels above (`commission/rememberFailure`).
    var qualifiedState: String {
        levels.compactMap(\.state).joined(separator: "/")
    }
}
