extension Workflow {
    /// Whether the workflow, or a sub-workflow at any depth, calls an operation that opens, uses or releases the
    /// structure's commissioning session, by `catalog`'s descriptors. An operation the catalog lacks counts as one:
    /// nothing says it leaves the session alone.
    ///
    /// A fleet runs such workflows one at a time per structure: a second one started while the first holds the
    /// session could only fail with `sessionBusy`.
    public func worksInSession(catalog: OperationCatalog = .standard) -> Bool {
        var visited: Set<String> = []
        return Self.worksInSession(self, catalog: catalog, visited: &visited)
    }

    private static func worksInSession(_ workflow: Workflow, catalog: OperationCatalog, visited: inout Set<String>) -> Bool {
        // A file that names itself again adds no operation.
        guard visited.insert(workflow.file).inserted else { return false }
        for state in workflow.statesInOrder {
            switch state.kind {
            case .action(let action):
                guard let operation = catalog[action.operation] else { return true }
                if operation.acquiresSession || operation.usesSession { return true }
            case .workflow(let subworkflow):
                // A sub-workflow that was not loaded is not known to leave the session alone.
                guard let child = workflow.subworkflows[subworkflow.path] else { return true }
                if worksInSession(child, catalog: catalog, visited: &visited) { return true }
            case .choice, .assign, .wait, .ask, .delay, .succeed, .fail:
                continue
            }
        }
        return false
    }
}
