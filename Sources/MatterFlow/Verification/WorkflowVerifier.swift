import MatterFlowJSON

/// The static verification of a workflow that has passed the other checks: error handling against what each
/// operation can raise, retry safety, the session-release proof and the protocol order (over every path,
/// sub-workflows included), and time bounds. Findings go to the workflow's diagnostics.
struct WorkflowVerifier {
    let workflow: Workflow
    let collector: DiagnosticCollector
    /// The analyses of the files loaded with this one: a sub-workflow's were made when it was verified.
    let context: VerificationContext

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
        let explorer = SessionExplorer(root: workflow, context: context)
        SessionCheck(workflow: workflow, explorer: explorer, collector: collector).check()
        BudgetCheck(workflow: workflow, graph: context.budgetGraph(workflow), collector: collector).check()
    }
}
