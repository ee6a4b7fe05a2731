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

/// One tag of an element name after the map state's qualified name: an element's index (`[2]`) or a repeat
/// state's iteration from the second (`#2`).
enum ElementNameTag: Equatable {
    case index(Int)
    case iteration(Int)

    var text: String {
        switch self {
        case .index(let index): "[\(index)]"
        case .iteration(let iteration): "#\(iteration)"
        }
    }
}

extension Workflow {
    /// Why no run names an element of the concurrent map state `qualified` with `tags`, or nil when one can. From the
    /// outermost level in, each map state around it adds the index of its element (`[i]`, below its `maxItems`), each
    /// repeat state around it its iteration from the second (`#n`, up to its `maxIterations`), and the map state
    /// itself the element's index.
    func elementTagProblem(_ qualified: String, tags: [ElementNameTag]) -> String? {
        let names = qualified.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        var workflow = self
        var rest = tags[...]
        for (position, name) in names.enumerated() {
            guard let state = workflow.states[name], case .workflow(let step) = state.kind else { return nil }
            let here = names[...position].joined(separator: "/")
            if let map = step.map {
                guard case .index(let index)? = rest.first else {
                    let found = rest.first.map { "finds \($0.text)" } ?? "finds none"
                    return "map state \(here) needs the index of its element (\"[0]\" to \"[\(map.maxItems - 1)]\") there, and \(found)"
                }
                guard index < map.maxItems else {
                    return "map state \(here) runs at most \(map.maxItems) elements (its maxItems), so no element has index \(index)"
                }
                rest = rest.dropFirst()
            } else if let repeating = step.repeating, case .iteration(let iteration)? = rest.first {
                guard iteration <= repeating.maxIterations else {
                    return "repeat state \(here) runs its body at most \(repeating.maxIterations) times (its maxIterations), so it has no iteration \(iteration)"
                }
                rest = rest.dropFirst()
            }
            guard position < names.count - 1 else { break }
            guard let child = workflow.subworkflows[step.path] else { return nil }
            workflow = child
        }
        guard let extra = rest.first else { return nil }
        switch extra {
        case .iteration:
            return "\(extra.text) names the iteration of a repeat state, and no repeat state that could stand there surrounds \(qualified)"
        case .index:
            return "\(extra.text) is one index too many: only the map states around \(qualified) and \(qualified) itself add one"
        }
    }
}
