/// Analyses shared by the checks of one workflow and its sub-workflows, each computed once.
///
/// One load shares one context: files are keyed by path and a load reads each file once, so a sub-workflow's
/// analyses, made when it was verified, serve again when its parent is.
final class VerificationContext {
    /// The operations the load's workflows may call: the error table's.
    var catalog: OperationCatalog { errors.catalog }
    /// What the session proofs of the load's files have walked, shared so that each file is walked once per way
    /// it is entered.
    let sessionGraph = SessionGraph()
    /// The possible errors of the catalog's causes, operations and guards, made once.
    let errors: PossibleErrorTable
    /// Whether a check that a quick look proves can report nothing is left out (``SessionExplorer/mayFind(from:)``,
    /// ``BudgetCheck/mayFind(_:)``); tests turn it off to compare the findings with every check run.
    var skipsChecksThatCannotFind = true
    /// The operations some order requirement of the catalog names as a support check, found once per load.
    private(set) lazy var supportOperations = Set(
        catalog.operations.flatMap(\.requires).filter { $0.scope == .supportCheck }.flatMap(\.operations))
    private var flows: [String: ErrorFlow] = [:]
    private var budgets: [String: BudgetGraph] = [:]
    /// What ``firstState(in:where:)`` found, by probe and file.
    private var found: [StateProbe: [String: FoundState?]] = [:]

    init(catalog: OperationCatalog) {
        errors = PossibleErrorTable(catalog: catalog)
    }

    /// The error flow of a workflow (keyed by its file: one load reads each file once).
    func flow(_ workflow: Workflow) -> ErrorFlow {
        if let known = flows[workflow.file] { return known }
        let flow = ErrorFlow(workflow: workflow, table: errors) { path in
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
    func childErrors(of workflow: Workflow) -> (String) -> ErrorSet? {
        { path in workflow.subworkflows[path].map { self.flow($0).workflowErrors } }
    }

    /// What the sub-workflow a state of `workflow` names calls first as a non-idempotent write, if anything.
    func childWrite(of workflow: Workflow) -> (String) -> String? {
        { path in workflow.subworkflows[path].flatMap { self.nonIdempotentWrite($0) } }
    }

    /// The first non-idempotent write a workflow or a sub-workflow (at any depth) calls, if any.
    func nonIdempotentWrite(_ workflow: Workflow) -> String? {
        firstState(in: workflow, where: .nonIdempotentWrite)?.operation
    }

    /// Whether some action of a workflow, or of a sub-workflow at any depth, opens a commissioning session.
    func opensSession(_ workflow: Workflow) -> Bool {
        firstState(in: workflow, where: .opensSession) != nil
    }

    /// The first operation a workflow, or a sub-workflow at any depth, calls that works in the structure's
    /// commissioning session (opens, uses or releases it), if any.
    func sessionOperation(_ workflow: Workflow) -> String? {
        firstState(in: workflow, where: .worksInSession)?.operation
    }

    /// The first state, in state order, of a workflow or of a sub-workflow at any depth, that `probe` matches; a
    /// sub-workflow state stands for its tree at its place in the order. Found once per file and probe, so that
    /// files a tree names many times are read once.
    func firstState(in workflow: Workflow, where probe: StateProbe) -> FoundState? {
        if let known = found[probe]?[workflow.file] { return known }
        // A file that names itself again adds no state; the state that starts the cycle decides.
        found[probe, default: [:]][workflow.file] = .some(nil)
        var first: FoundState?
        for state in workflow.statesInOrder {
            if matches(state, probe) {
                first = FoundState(state: state, within: [])
            } else if case .workflow(let subworkflow) = state.kind, let child = workflow.subworkflows[subworkflow.path],
                let inner = firstState(in: child, where: probe)
            {
                first = FoundState(state: inner.state, within: [subworkflow.path] + inner.within)
            }
            if first != nil { break }
        }
        found[probe, default: [:]][workflow.file] = .some(first)
        return first
    }

    private func matches(_ state: WorkflowState, _ probe: StateProbe) -> Bool {
        switch probe {
        case .nonIdempotentWrite:
            guard case .action(let action) = state.kind else { return false }
            return catalog[action.operation]?.effect == .nonIdempotentWrite
        case .opensSession:
            guard case .action(let action) = state.kind else { return false }
            return catalog[action.operation]?.acquiresSession == true
        case .worksInSession:
            guard case .action(let action) = state.kind, let operation = catalog[action.operation] else { return false }
            return operation.acquiresSession || operation.usesSession
        case .mayWorkInSession:
            guard case .action(let action) = state.kind else { return false }
            // An operation the catalog does not describe is not known to leave the session alone.
            guard let operation = catalog[action.operation] else { return true }
            return operation.acquiresSession || operation.usesSession
        case .question:
            guard case .ask = state.kind else { return false }
            return true
        case .eventWait:
            guard case .wait = state.kind else { return false }
            return true
        case .concurrentMap:
            guard case .workflow(let subworkflow) = state.kind else { return false }
            return subworkflow.map?.isConcurrent == true
        }
    }
}

/// What ``VerificationContext/firstState(in:where:)`` looks for.
enum StateProbe: Hashable {
    /// An action calling a non-idempotent write.
    case nonIdempotentWrite
    /// An action opening a commissioning session.
    case opensSession
    /// An action opening, working in or releasing the structure's commissioning session.
    case worksInSession
    /// ``worksInSession``, or an action calling an operation the catalog does not describe.
    case mayWorkInSession
    /// An ask state.
    case question
    /// A wait state (waiting for a hub event).
    case eventWait
    /// A map state running several elements at once.
    case concurrentMap
}

/// A state ``VerificationContext/firstState(in:where:)`` found.
struct FoundState {
    let state: WorkflowState
    /// The sub-workflow paths leading to the state from the workflow searched, outermost first.
    let within: [String]

    /// The operation the state calls, for an action.
    var operation: String? {
        guard case .action(let action) = state.kind else { return nil }
        return action.operation
    }

    /// The state as a person finds it: the sub-workflow paths leading to it, then its name (`name-it.json: name`).
    var description: String { (within + [state.name]).joined(separator: ": ") }
}
