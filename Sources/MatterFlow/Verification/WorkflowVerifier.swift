import MatterFlowJSON

/// The static verification of a workflow that has passed the other checks: error handling against what each
/// operation can raise, retry safety, the session-release proof and the protocol order (over every path,
/// sub-workflows included), and time bounds. Findings go to the workflow's diagnostics.
struct WorkflowVerifier {
    let workflow: Workflow
    let collector: DiagnosticCollector
    /// The analyses of the files loaded with this one: a sub-workflow's were made when it was verified.
    let context: VerificationContext
    /// Whether this is the load's top-level file, verified last: no later walk can reuse what its session walk
    /// would leave in the load's ``SessionGraph``, so the walk may be left out when it cannot report anything.
    let isTopLevel: Bool

    private var catalog: OperationCatalog { context.catalog }

    func verify() {
        // Later passes assume a well-formed machine: known operations, defined states, loaded sub-workflows.
        guard !collector.hasErrors else { return }
        let flow = context.flow(workflow)
        ErrorHandlingCheck(workflow: workflow, flow: flow, catalog: catalog, collector: collector).check()
        RetrySafetyCheck(
            workflow: workflow, flow: flow, catalog: catalog, collector: collector,
            childErrors: context.childErrors(of: workflow), childWrite: context.childWrite(of: workflow)
        ).check()
        MapConcurrencyCheck(workflow: workflow, context: context, collector: collector).check()
        // A sub-workflow's walk is kept for its parents' walks, which reuse it in the order it was made, so their
        // findings' paths read the same: only the top level's may be left out.
        let skips = context.skipsChecksThatCannotFind
        if !skips || !isTopLevel || SessionExplorer.mayFind(in: workflow, context: context) {
            let explorer = SessionExplorer(root: workflow, context: context)
            SessionCheck(workflow: workflow, explorer: explorer, collector: collector).check()
        }
        // Whether or not the walk was needed: a branch reading what a support result lacks is a mistake either way.
        if let node = SessionExplorer.node(of: workflow, context: context) {
            SupportFieldCheck(node: node, collector: collector).check()
        }
        // A duration analysis left out here is made when a parent's needs it.
        if !skips || BudgetCheck.mayFind(workflow) {
            BudgetCheck(workflow: workflow, graph: context.budgetGraph(workflow), collector: collector).check()
        }
    }
}
