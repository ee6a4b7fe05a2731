import MatterFlowJSON
import Synchronization

/// What runs of a compiled workflow read, resolved against one operation catalog: each state by its number with
/// its operation looked up in the catalog, its guards and retriers, and its transitions as numbered edges of the
/// ``CompiledWorkflow``.
///
/// Built once per (workflow, catalog) and kept in the compiled model (``CompiledWorkflow/runModel(catalog:)``):
/// every run of the workflow, at every place of a workflow tree, shares it, and a level holds one reference
/// rather than copying the workflow's structs.
final class RunModel: Sendable {
    /// The catalog the operations were looked up in.
    let catalog: OperationCatalog
    let name: String
    /// The names of the secret inputs.
    let secretInputs: [String]
    /// The states by number, as in the compiled model (document order, where runs mostly move forward).
    let states: [PlannedState]
    /// The compiled model's edges: the transitions of state `n` start at `states[n].firstEdge`.
    let edges: [CompiledWorkflow.Edge]
    /// The start state's number, and the cancel path's first state's, when they are defined.
    let start: Int?
    let onCancel: Int?
    /// The start state's name, as written.
    let startName: String
    /// The state numbers by name, for what arrives by name (a checkpoint being resumed).
    private let numbers: [String: Int]

    init(_ model: CompiledWorkflow, catalog: OperationCatalog) {
        self.catalog = catalog
        let definition = model.definition
        name = definition.name
        secretInputs = definition.inputs.filter(\.secret).map(\.name)
        states = model.states.indices.map { number in
            let edges = model.leaving[number]
            let last = edges.last.flatMap { model.edges[$0].kind.isCancel ? $0 : nil }
            return PlannedState(
                model.states[number], number: number, firstEdge: edges.lowerBound, cancelEdge: last, in: definition, catalog: catalog)
        }
        edges = model.edges
        start = model.start
        startName = definition.start
        onCancel = model.onCancel
        numbers = model.numbers
    }

    /// The number of the state with a name, or nil when the workflow has none.
    func number(of name: String) -> Int? {
        numbers[name]
    }

    /// The inputs with secret values replaced by `"<redacted>"` (as ``Workflow/redacting(_:)``).
    func redacting(_ inputs: JSONObject) -> JSONObject {
        var copy = inputs
        for name in secretInputs where copy[name].map({ !$0.isNull }) == true {
            copy[name] = .string(RunOptions.redacted)
        }
        return copy
    }
}

extension CompiledWorkflow {
    /// The run model for a catalog, built on first use and kept until a run asks for another catalog.
    func runModel(catalog: OperationCatalog) -> RunModel {
        topPlace(catalog: catalog).model
    }

    /// The place of a top-level run of this workflow (see ``LevelPlace``), with its run model, built on first use
    /// for a catalog and kept until a run asks for another catalog.
    func topPlace(catalog: OperationCatalog) -> LevelPlace {
        if let kept = runPlace.withLock({ $0 }), kept.model.catalog.identity === catalog.identity { return kept }
        let built = LevelPlace(model: RunModel(self, catalog: catalog), path: [definition.name], prefix: "")
        // Two runs starting at once may both build one; the first kept is the one every run uses.
        return runPlace.withLock { kept in
            if let kept, kept.model.catalog.identity === catalog.identity { return kept }
            kept = built
            return built
        }
    }
}

/// A state of a ``RunModel``, with what running it needs resolved.
///
/// What a run reads on every entry is kept in fields of its own (or in shared boxes), so that reading it takes a
/// reference rather than copying the state's structs.
final class PlannedState: Sendable {
    let state: WorkflowState
    let name: String
    /// The state's number in the compiled model.
    let number: Int
    /// The number of the state's first edge in ``RunModel/edges``: an action or sub-workflow state's `next` edge,
    /// then its error routes; a choice's branches, then its default; a wait's branches, then `otherwise`, then its
    /// timeout; an assign's `next`.
    let firstEdge: Int
    /// The number of the state's cancel edge, to the workflow's cancel path; nil when it has none (a terminal
    /// state, or a workflow without a cancel path).
    let cancelEdge: Int?
    /// The state's type, as events report it.
    let typeName: String
    let isTerminal: Bool
    /// An action's call; nil for other states, or when the catalog lacks the operation.
    let call: PlannedCall?
    /// A sub-workflow state's child workflow; nil for other states, or when the sub-workflow was not loaded.
    let child: Workflow?
    /// A sub-workflow state's input templates, by name in document order; empty for other states.
    let childInputs: [(name: String, value: Template)]
    /// A sub-workflow state's path as written; empty for other states.
    let childPath: String
    /// The behaviour of an action or sub-workflow state (guards, retries, result, routes); nil for other states.
    let step: PlannedStep?
    let isSubworkflow: Bool
    /// A map state's iteration (its body is the sub-workflow); nil for other states.
    let map: MapIteration?
    /// A repeat state's iteration (its body is the sub-workflow); nil for other states.
    let repeating: RepeatIteration?
    /// The guards, resolved against the catalog (``PlannedGuard``).
    let plannedGuards: [PlannedGuard]

    init(
        _ state: WorkflowState, number: Int, firstEdge: Int, cancelEdge: Int?, in workflow: Workflow.Definition,
        catalog: OperationCatalog
    ) {
        self.state = state
        name = state.name
        self.number = number
        self.firstEdge = firstEdge
        self.cancelEdge = cancelEdge
        typeName = state.kind.typeName
        isTerminal = state.isTerminal
        plannedGuards = (state.kind.step?.guards ?? []).map { PlannedGuard($0, catalog: catalog) }
        switch state.kind {
        case .action(let action):
            call = catalog[action.operation].map { PlannedCall($0, action: action) }
            child = nil
            childInputs = []
            childPath = ""
            step = PlannedStep(action.step)
            isSubworkflow = false
            map = nil
            repeating = nil
        case .workflow(let subworkflow):
            call = nil
            step = PlannedStep(subworkflow.step)
            childInputs = subworkflow.inputs
            childPath = subworkflow.path
            child = workflow.subworkflows[subworkflow.path]
            isSubworkflow = true
            map = subworkflow.map
            repeating = subworkflow.repeating
        case .choice, .assign, .wait, .ask, .delay, .succeed, .fail:
            call = nil
            child = nil
            childInputs = []
            childPath = ""
            step = nil
            isSubworkflow = false
            map = nil
            repeating = nil
        }
    }
}

/// An action or sub-workflow state's behaviour, shared by the runs that read it.
final class PlannedStep: Sendable {
    let behavior: StepBehavior
    /// The variable the result is bound to on success.
    let result: String?
    let retry: [Retrier]
    let onError: [ErrorRoute]

    init(_ behavior: StepBehavior) {
        self.behavior = behavior
        result = behavior.result
        retry = behavior.retry
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
    /// ``timeoutSeconds`` as a duration, as each call is given it.
    let timeout: Duration
    /// The operation's secret arguments.
    let secretArguments: [String]
    let secretResultFields: Set<String>
    /// The operation's warnings about a call's arguments.
    let argumentWarnings: (@Sendable (JSONObject) -> [String])?
    /// The arguments that are onboarding payloads (``OperationDescriptor/Argument/onboardingPayload``).
    let payloadArguments: [String]
    /// The operation opens the commissioning session (``OperationDescriptor/acquiresSession``).
    let acquiresSession: Bool
    /// The operation works inside the commissioning session (``OperationDescriptor/usesSession``).
    let usesSession: Bool
    /// The operation releases the commissioning session (``OperationDescriptor/releasesSession``).
    let releasesSession: Bool
    /// A failed release still ends the run's hold (``OperationDescriptor/releaseAttemptSuffices``).
    let releaseAttemptSuffices: Bool
    /// The operation ends the session by completing it (`completeCommissioning`: the devices are committed), which
    /// no cancel path undoes; a release whose attempt suffices (`cancelCommissioning`) does not.
    var completesSession: Bool { releasesSession && !releaseAttemptSuffices }

    convenience init(_ operation: OperationDescriptor, action: ActionState) {
        self.init(operation, arguments: action.arguments, timeoutSeconds: action.timeoutSeconds ?? operation.defaultTimeoutSeconds)
    }

    init(_ operation: OperationDescriptor, arguments: [(name: String, value: Template)], timeoutSeconds: Double) {
        self.operation = operation
        name = operation.name
        self.arguments = arguments
        self.timeoutSeconds = timeoutSeconds
        timeout = .seconds(rounding: timeoutSeconds)
        secretArguments = operation.arguments.filter(\.secret).map(\.name)
        secretResultFields = operation.secretResultFields
        argumentWarnings = operation.argumentWarnings
        payloadArguments = operation.arguments.filter(\.onboardingPayload).map(\.name)
        acquiresSession = operation.acquiresSession
        usesSession = operation.usesSession
        releasesSession = operation.releasesSession
        releaseAttemptSuffices = operation.releaseAttemptSuffices
        invoke = operation.invoke
        argumentShapes = operation.arguments
    }

    /// The operation's hub call (the race's task awaits it directly), read once so that a
    /// call does not copy the descriptor to reach it.
    let invoke: OperationDescriptor.Invocation
    /// The operation's arguments, which a call's are checked against.
    let argumentShapes: [OperationDescriptor.Argument]

}
