import MatterFlow

extension Workflow {
    /// Every state a run can visit, qualified by the sub-workflow states above it (`commission/commission`), in
    /// document order, depth first.
    var qualifiedStateNames: [String] {
        var names: [String] = []
        func collect(_ workflow: Workflow, prefix: String) {
            for name in workflow.stateOrder {
                names.append(prefix + name)
                if let state = workflow.states[name], case .workflow(let step) = state.kind,
                    let child = workflow.subworkflows[step.path]
                {
                    collect(child, prefix: prefix + name + "/")
                }
            }
        }
        collect(self, prefix: "")
        return names
    }
}
