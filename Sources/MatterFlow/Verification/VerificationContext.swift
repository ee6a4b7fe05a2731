/// Analyses shared by the checks of one workflow and its sub-workflows, each computed once.
///
/// One load shares one context: files are keyed by path and a load reads each file once, so a sub-workflow's
/// analyses, made when it was verified, serve again when its parent is.
final class VerificationContext {
    let catalog: OperationCatalog
    /// What the session proofs of the load's files have walked, shared so that each file is walked once per way
    /// it is entered.
    let sessionGraph = SessionGraph()
    private var flows: [String: ErrorFlow] = [:]
    private var budgets: [String: BudgetGraph] = [:]
    private var writes: [String: String?] = [:]
    private var sessionOpeners: [String: Bool] = [:]
    private var sessionUsers: [String: String?] = [:]

    init(catalog: OperationCatalog) {
        self.catalog = catalog
    }

    /// The error flow of a workflow (keyed by its file: one load reads each file once).
    func flow(_ workflow: Workflow) -> ErrorFlow {
        if let known = flows[workflow.file] { return known }
        let flow = ErrorFlow(workflow: workflow, catalog: catalog) { path in
            workflow.subworkflows[path].map { self.flow($0).workflowErrors }
        }
        flows[workflow.file] = flow
        return flow
    }

    /// The duration analysis of a workflow, computed once per file.
    func budgetGraph(_ workflow: Workflow) -> BudgetGraph {
        if let known = budgets[workflow.file] { return known }
        let graph = BudgetGraph(workflow: workflow, context: self)
        budgets[workflow.file] = graph
        return graph
    }

    /// What the sub-workflow a state of `workflow` names can end with.
    func childErrors(of workflow: Workflow) -> (String) -> Set<PossibleError>? {
        { path in workflow.subworkflows[path].map { self.flow($0).workflowErrors } }
    }

    /// What the sub-workflow a state of `workflow` names calls first as a non-idempotent write, if anything.
    func childWrite(of workflow: Workflow) -> (String) -> String? {
        { path in workflow.subworkflows[path].flatMap { self.nonIdempotentWrite($0) } }
    }

    /// The first non-idempotent write a workflow or a sub-workflow (at any depth) calls, if any: found once per
    /// file, so that files a tree names many times are read once.
    func nonIdempotentWrite(_ workflow: Workflow) -> String? {
        if let known = writes[workflow.file] { return known }
        var found: String?
        for state in workflow.statesInOrder {
            switch state.kind {
            case .action(let action):
                if catalog[action.operation]?.effect == .nonIdempotentWrite { found = action.operation }
            case .workflow(let subworkflow):
                found = workflow.subworkflows[subworkflow.path].flatMap { nonIdempotentWrite($0) }
            case .choice, .assign, .wait, .ask, .delay, .succeed, .fail:
                break
            }
            if found != nil { break }
        }
        writes[workflow.file] = .some(found)
        return found
    }

    /// Whether some action of a workflow, or of a sub-workflow at any depth, opens a commissioning session:
    /// found once per file.
    func opensSession(_ workflow: Workflow) -> Bool {
        if let known = sessionOpeners[workflow.file] { return known }
        let opens = workflow.states.values.contains { state in
            switch state.kind {
            case .action(let action): catalog[action.operation]?.acquiresSession == true
            case .workflow(let subworkflow): workflow.subworkflows[subworkflow.path].map { opensSession($0) } == true
            case .choice, .assign, .wait, .ask, .delay, .succeed, .fail: false
            }
        }
        sessionOpeners[workflow.file] = opens
        return opens
    }

    /// The first operation a workflow, or a sub-workflow at any depth, calls that works in the structure's
    /// commissioning session (opens, uses or releases it), if any: found once per file.
    func sessionOperation(_ workflow: Workflow) -> String? {
        if let known = sessionUsers[workflow.file] { return known }
        // A file that names itself again is not one more session user; the state that starts the cycle decides.
        sessionUsers[workflow.file] = .some(nil)
        var found: String?
        for state in workflow.statesInOrder {
            switch state.kind {
            case .action(let action):
                if let operation = catalog[action.operation], operation.acquiresSession || operation.usesSession {
                    found = action.operation
                }
            case .workflow(let subworkflow):
                found = workflow.subworkflows[subworkflow.path].flatMap { sessionOperation($0) }
            case .choice, .assign, .wait, .ask, .delay, .succeed, .fail:
                break
            }
            if found != nil { break }
        }
        sessionUsers[workflow.file] = .some(found)
        return found
    }
}
