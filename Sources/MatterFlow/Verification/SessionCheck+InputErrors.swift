import MatterFlowJSON

extension SessionCheck {
    /// Why a leaking path's error may not be the child's: when it leaves a workflow or map state by an error raised
    /// before the child runs (evaluating its inputs, or a map's `items`), while the session is held, the child never
    /// gets to release the session as it would when it fails itself. Says so, with what may fail; nil when the
    /// path's error does not come from such a state, or its inputs cannot fail.
    func inputCause(of end: SessionExplorer.End) -> String? {
        guard let source = errorSource(of: end) else { return nil }
        let config = explorer.graph.configs[source]
        let node = explorer.node(of: config)
        guard config.held, case .workflow(let subworkflow) = node.model.states[config.state].kind else { return nil }
        let reasons: [String]
        let what: String
        if let map = subworkflow.map {
            // An element's inputs fail that element alone, recorded in the map's result.
            reasons = map.items.references.first { $0.root == .vars || $0.root == .error }
                .map { ["\"items\" reads ${\($0)}, which may not resolve"] } ?? []
            what = "list"
        } else {
            guard let child = node.workflow.subworkflows[subworkflow.path] else { return nil }
            let failures = ErrorFlow.inputFailures(subworkflow.inputs, of: child, in: node.workflow)
            // One clause per input, its ways of failing joined.
            var inputs: [String] = []
            for failure in failures where !inputs.contains(failure.input) { inputs.append(failure.input) }
            reasons = inputs.map { input in
                "\"\(input)\" " + failures.filter { $0.input == input }.map(\.reason).joined(separator: ", or ")
            }
            what = "inputs"
        }
        guard !reasons.isEmpty else { return nil }
        return "the error can come from evaluating the \(what) of \"\(explorer.name(source))\" before \(subworkflow.path) runs, while the session is held: \(reasons.joined(separator: "; ")) (\(subworkflow.path) then never runs, so it cannot release the session itself)"
    }

    /// The configuration of the state whose own error (not its child's) the path to `end` leaves by: for an error
    /// no route takes, the end's state; otherwise the state the path's last error route leaves.
    private func errorSource(of end: SessionExplorer.End) -> Int? {
        if end.unrouted { return end.point.via == nil ? end.point.config : nil }
        var current = end.point.config
        while let (from, step) = explorer.parents[current] {
            if case .edge(let number) = step.kind, case .error = explorer.graph.nodes[step.node].model.edges[number].kind {
                // An error a child ended with comes through the child's end.
                return from.via == nil ? from.config : nil
            }
            current = from.config
        }
        return nil
    }
}
