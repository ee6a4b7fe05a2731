import MatterFlowJSON
import Synchronization

/// A workflow level compiled for running, once, instead of on every run: its states as shared nodes, each action's
/// operation looked up in the catalog, each sub-workflow compiled for its place in the run, and the names a run
/// reports (qualified state names, workflow paths) built ahead.
///
/// Runs share a plan and never copy the workflow's structs: a level holds one reference. The plan of a top-level
/// workflow is cached in the ``Workflow`` (see ``Workflow/plan(catalog:)``) until the workflow or the catalog
/// changes.
final class ExecutionPlan: Sendable {
    /// The workflow, without its plan cache (a plan kept in the workflow it holds would never be freed).
    let workflow: Workflow
    /// The workflow names from the top-level run down to this level.
    let path: [String]
    /// The qualification of this level's states (`parent/`), empty at the top.
    let prefix: String
    /// The catalog the plan was compiled with.
    let catalog: OperationCatalog.Identity
    private let states: [String: PlannedState]

    init(_ workflow: Workflow, path: [String], prefix: String, catalog: OperationCatalog) {
        var workflow = workflow
        workflow.dropPlan()
        self.workflow = workflow
        self.path = path
        self.prefix = prefix
        self.catalog = catalog.identity
        var states: [String: PlannedState] = [:]
        for (name, state) in workflow.states {
            states[name] = PlannedState(state, in: workflow, path: path, prefix: prefix, catalog: catalog)
        }
        self.states = states
    }

    /// The workflow's inputs resolved for a run of this level (see ``Workflow/resolveInputs(_:source:)``), without
    /// copying the workflow.
    func resolveInputs(_ given: JSONObject, source: String) throws(DiagnosticsError) -> JSONObject {
        try workflow.resolveInputs(given, source: source)
    }

    /// The state with a name, or nil when the workflow has none (it was not validated).
    @inline(never)
    func state(named name: String) -> PlannedState? {
        states[name]
    }
}

/// A state of an ``ExecutionPlan``, with what running it needs resolved.
final class PlannedState: Sendable {
    let state: WorkflowState
    /// `prefix/name`, as results and errors report it.
    let qualifiedName: String
    /// An action's operation; nil for other states, or when the catalog lacks it.
    let operation: OperationDescriptor?
    /// A sub-workflow state's child plan; nil for other states, or when the sub-workflow was not loaded.
    let child: ExecutionPlan?
    /// The behaviour of an action or sub-workflow state (guards, retries, result, routes); nil for other states.
    let step: StepBehavior?
    /// The guards of an action or sub-workflow state.
    var guards: [Guard] { step?.guards ?? [] }

    init(_ state: WorkflowState, in workflow: Workflow, path: [String], prefix: String, catalog: OperationCatalog) {
        self.state = state
        qualifiedName = prefix + state.name
        switch state.kind {
        case .action(let action):
            operation = catalog[action.operation]
            child = nil
            step = action.step
        case .workflow(let subworkflow):
            operation = nil
            step = subworkflow.step
            child = workflow.subworkflows[subworkflow.path].map { child in
                ExecutionPlan(child, path: path + [child.name], prefix: prefix + state.name + "/", catalog: catalog)
            }
        case .choice, .assign, .wait, .succeed, .fail:
            operation = nil
            child = nil
            step = nil
        }
    }

    var name: String { state.name }

    var isSubworkflow: Bool {
        if case .workflow = state.kind { return true }
        return false
    }

    /// Calls the action's operation; the run checks that the catalog has it before it gets here.
    @inline(never)
    nonisolated(nonsending) func callOperation(hub: any Hub, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
        guard let operation else { throw FlowError(.hubFailure, "\(name) has no operation") }
        return try await operation.call(hub: hub, structure: structure, arguments: arguments)
    }
}

/// The plan a workflow keeps for its runs; replaced whenever the workflow changes, so copies of a workflow share
/// it only while they are equal.
final class PlanCache: Sendable {
    private let plan = Mutex<ExecutionPlan?>(nil)

    init() {}

    /// The cached plan, compiled first when there is none for this catalog.
    func plan(for workflow: Workflow, catalog: OperationCatalog) -> ExecutionPlan {
        if let cached = plan.withLock({ $0 }), cached.catalog === catalog.identity { return cached }
        let compiled = ExecutionPlan(workflow, path: [workflow.name], prefix: "", catalog: catalog)
        plan.withLock { $0 = compiled }
        return compiled
    }
}

extension Workflow {
    /// The plan runs of this workflow follow, compiled on first use and kept until the workflow or the catalog
    /// changes.
    func plan(catalog: OperationCatalog) -> ExecutionPlan {
        planCache.plan(for: self, catalog: catalog)
    }
}
