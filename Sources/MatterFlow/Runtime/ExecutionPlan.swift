import MatterFlowJSON
import Synchronization

/// A workflow level prepared for running, once, instead of on every run: a view over the workflow's compiled model
/// (``CompiledWorkflow``: its numbered states and their numbers by name) that adds what depends on the catalog and
/// on the level's place in the run: each action's operation looked up in the catalog, each sub-workflow's plan for
/// its place, and the names a run reports (qualified state names, workflow paths).
///
/// Runs share a plan and never copy the workflow's structs: a level holds one reference. The plan of a top-level
/// workflow is cached in the ``Workflow`` (see ``Workflow/plan(catalog:)``) until the catalog changes.
final class ExecutionPlan: Sendable {
    /// The workflow, without its plan cache (a plan kept in the workflow it holds would never be freed).
    let workflow: Workflow
    /// The workflow names from the top-level run down to this level.
    let path: [String]
    /// The qualification of this level's states (`parent/`), empty at the top.
    let prefix: String
    /// The catalog the plan was compiled with.
    let catalog: OperationCatalog.Identity
    /// The workflow's name, start state and cancel path, read without copying the workflow.
    let name: String
    let start: String
    let onCancel: String?
    /// The compiled model's state numbers by name, for a workflow with many; nil when there are few (see
    /// ``state(named:)``).
    private let numbers: [String: Int]?
    /// The states, numbered as in the compiled model (document order, where runs mostly move forward).
    private let states: [PlannedState]

    /// Up to how many states a level looks its states up by comparing names rather than hashing them.
    static let scannedStates = 16

    init(_ workflow: Workflow, path: [String], prefix: String, catalog: OperationCatalog) {
        var workflow = workflow
        workflow.dropPlan()
        self.workflow = workflow
        self.path = path
        self.prefix = prefix
        self.catalog = catalog.identity
        name = workflow.name
        start = workflow.start
        onCancel = workflow.onCancel
        let model = workflow.model
        states = model.states.map { state in
            PlannedState(state, in: workflow, path: path, prefix: prefix, catalog: catalog)
        }
        numbers = states.count > Self.scannedStates ? model.numbers : nil
    }

    /// The workflow's inputs resolved for a run of this level (see ``Workflow/resolveInputs(_:source:)``), without
    /// copying the workflow.
    func resolveInputs(_ given: JSONObject, source: String) throws(DiagnosticsError) -> JSONObject {
        try workflow.resolveInputs(given, source: source)
    }

    /// The state with a name, or nil when the workflow has none (it was not validated).
    ///
    /// Most levels have a few states: comparing the name with theirs (which mostly stops at a length or the first
    /// bytes) costs less than hashing it; a workflow with many states is looked up by hash.
    @inline(never)
    func state(named name: String) -> PlannedState? {
        if let numbers { return numbers[name].map { states[$0] } }
        for state in states where state.name == name { return state }
        return nil
    }
}

/// A state of an ``ExecutionPlan``, with what running it needs resolved.
///
/// What a run reads on every entry is kept in fields of its own (or in shared boxes), so that reading it takes a
/// reference rather than copying the state's structs.
final class PlannedState: Sendable {
    let state: WorkflowState
    let name: String
    /// `prefix/name`, as results and errors report it.
    let qualifiedName: String
    /// The state's type, as events report it.
    let typeName: String
    let isTerminal: Bool
    /// An action's call; nil for other states, or when the catalog lacks the operation.
    let call: PlannedCall?
    /// A sub-workflow state's child plan; nil for other states, or when the sub-workflow was not loaded.
    ///
    /// Compiled when a run first enters the state, not with its parent: a tree whose files run each other many
    /// times has exponentially many places, of which a run enters few.
    var child: ExecutionPlan? {
        guard let childSource else { return nil }
        if let compiled = compiledChild.withLock({ $0 }) { return compiled }
        let compiled = ExecutionPlan(
            childSource.workflow, path: childSource.path, prefix: childSource.prefix, catalog: childSource.catalog)
        // Two runs entering at once may both compile it; the first kept is the one every run uses.
        return compiledChild.withLock { kept in
            if let kept { return kept }
            kept = compiled
            return compiled
        }
    }
    /// What a sub-workflow state's child plan is compiled from; nil for other states, or when the sub-workflow
    /// was not loaded.
    private let childSource: (workflow: Workflow, path: [String], prefix: String, catalog: OperationCatalog)?
    private let compiledChild = Mutex<ExecutionPlan?>(nil)
    /// A sub-workflow state's input templates, by name in document order; empty for other states.
    let childInputs: [(name: String, value: Template)]
    /// A sub-workflow state's path as written; empty for other states.
    let childPath: String
    /// The behaviour of an action or sub-workflow state (guards, retries, result, routes); nil for other states.
    let step: PlannedStep?
    let isSubworkflow: Bool
    /// The guards of an action or sub-workflow state.
    var guards: [Guard] { step?.guards ?? [] }
    /// How many guards the state has (read on every attempt, without retaining the guards).
    let guardCount: Int

    init(_ state: WorkflowState, in workflow: Workflow, path: [String], prefix: String, catalog: OperationCatalog) {
        self.state = state
        name = state.name
        qualifiedName = prefix + state.name
        typeName = state.kind.typeName
        isTerminal = state.isTerminal
        guardCount = state.kind.step?.guards.count ?? 0
        switch state.kind {
        case .action(let action):
            call = catalog[action.operation].map { PlannedCall($0, action: action) }
            childSource = nil
            childInputs = []
            childPath = ""
            step = PlannedStep(action.step)
            isSubworkflow = false
        case .workflow(let subworkflow):
            call = nil
            step = PlannedStep(subworkflow.step)
            childInputs = subworkflow.inputs
            childPath = subworkflow.path
            childSource = workflow.subworkflows[subworkflow.path].map { child in
                (child, path + [child.name], prefix + state.name + "/", catalog)
            }
            isSubworkflow = true
        case .choice, .assign, .wait, .ask, .delay, .succeed, .fail:
            call = nil
            childSource = nil
            childInputs = []
            childPath = ""
            step = nil
            isSubworkflow = false
        }
    }
}

/// An action or sub-workflow state's behaviour, shared by the runs that read it.
final class PlannedStep: Sendable {
    let behavior: StepBehavior
    let guards: [Guard]
    /// The variable the result is bound to on success.
    let result: String?
    let retry: [Retrier]
    let next: String
    let onError: [ErrorRoute]

    init(_ behavior: StepBehavior) {
        self.behavior = behavior
        guards = behavior.guards
        result = behavior.result
        retry = behavior.retry
        next = behavior.next
        onError = behavior.onError
    }
}

/// An action's hub call, resolved against the catalog once.
final class PlannedCall: Sendable {
    let operation: OperationDescriptor
    /// The operation's name.
    let name: String
    /// Argument templates by name, in document order.
    let arguments: [(name: String, value: Template)]
    /// The state's timeout, or the operation's default.
    let timeoutSeconds: Double
    /// The operation's secret arguments.
    let secretArguments: [String]
    let secretResultFields: Set<String>
    /// The operation's warnings about a call's arguments.
    let argumentWarnings: (@Sendable (JSONObject) -> [String])?
    /// The operation opens the commissioning session (``OperationDescriptor/acquiresSession``).
    let acquiresSession: Bool
    /// The operation works inside the commissioning session (``OperationDescriptor/usesSession``).
    let usesSession: Bool

    init(_ operation: OperationDescriptor, action: ActionState) {
        self.operation = operation
        name = operation.name
        arguments = action.arguments
        timeoutSeconds = action.timeoutSeconds ?? operation.defaultTimeoutSeconds
        secretArguments = operation.arguments.filter(\.secret).map(\.name)
        secretResultFields = operation.secretResultFields
        argumentWarnings = operation.argumentWarnings
        acquiresSession = operation.acquiresSession
        usesSession = operation.usesSession
        invoke = operation.invoke
        argumentShapes = operation.arguments
    }

    /// The operation's hub call (the race's task awaits it directly), read once so that a
    /// call does not copy the descriptor to reach it.
    let invoke: OperationDescriptor.Invocation
    /// The operation's arguments, which a call's are checked against.
    let argumentShapes: [OperationDescriptor.Argument]

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
