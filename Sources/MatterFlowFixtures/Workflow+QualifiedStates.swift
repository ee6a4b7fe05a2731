import MatterFlow

extension Workflow {
    /// Whether a run can visit a state with this qualified name (`commission/commission`, as in
    /// `visitedStates`): each name but the last is a sub-workflow state of the level above. Found by walking the
    /// names, so a tree with exponentially many qualified states answers as fast as a small one.
    func hasQualifiedState(_ qualified: String) -> Bool {
        qualifiedState(qualified) != nil
    }

    /// The state a qualified name names, found by walking the names; nil when no run can visit one by that name.
    private func qualifiedState(_ qualified: String) -> WorkflowState? {
        let names = qualified.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var workflow = self
        for (position, name) in names.enumerated() {
            guard let state = workflow.states[name] else { return nil }
            if position == names.count - 1 { return state }
            guard case .workflow(let step) = state.kind, let child = workflow.subworkflows[step.path] else { return nil }
            workflow = child
        }
        return nil
    }

    /// Whether a qualified name names a map state that runs elements at once: the only states whose calls carry an
    /// element name (``HubCallContext/element``).
    func isConcurrentMapState(_ qualified: String) -> Bool {
        guard let state = qualifiedState(qualified), case .workflow(let step) = state.kind else { return false }
        return step.map?.isConcurrent == true
    }

    /// Qualified names a mistyped one may have meant: at the first level where the name stops matching, each of
    /// that level's states in place of the name written there, the rest kept (`commision/commission` →
    /// `commission/commission`, `prepare/prepaired` → `prepare/prepared`).
    func qualifiedStateCandidates(for qualified: String) -> [String] {
        let names = qualified.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var workflow = self
        for (position, name) in names.enumerated() {
            let prefix = names[..<position].map { $0 + "/" }.joined()
            let rest = names[(position + 1)...].map { "/" + $0 }.joined()
            guard let state = workflow.states[name], position < names.count - 1,
                case .workflow(let step) = state.kind, let child = workflow.subworkflows[step.path]
            else {
                return workflow.stateOrder.map { prefix + $0 + rest }
            }
            workflow = child
        }
        return []
    }
}
