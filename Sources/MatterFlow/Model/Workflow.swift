import MatterFlowJSON

/// A loaded, decoded workflow: an explicit state machine over hub operations.
///
/// Build one with ``WorkflowLoader``; a `Workflow` that the loader returns has passed validation. A workflow is
/// immutable: it is compiled once, when it is made, into the one numbered model (states and a single edge list)
/// that validation, verification, graphs, coverage and runs read. To change one built in code, edit its
/// ``Definition`` and make a new workflow (``with(_:)``).
public struct Workflow: Sendable {
    /// The newest version of the workflow language this engine understands.
    public static let supportedVersion = 1

    /// The compiled model, shared by every copy of this workflow.
    let model: CompiledWorkflow

    /// Compiles a workflow from its definition.
    public init(_ definition: Definition) {
        model = CompiledWorkflow(definition)
    }

    /// A workflow from its parts; a repeated state name keeps the first state with that name.
    public init(
        name: String, version: Int, description: String?, inputs: [InputDeclaration], start: String,
        onCancel: String?, states: [WorkflowState], file: String, subworkflows: [String: Workflow] = [:],
        contract: WorkflowContract = WorkflowContract()
    ) {
        self.init(Definition(
            name: name, version: version, description: description, inputs: inputs, start: start, onCancel: onCancel,
            states: states, file: file, subworkflows: subworkflows, contract: contract))
    }

    /// What the workflow was made from, as a value to edit and make a new workflow from.
    public var definition: Definition { model.definition }

    /// A new workflow: this one's definition with `change` applied, compiled anew.
    public func with(_ change: (inout Definition) throws -> Void) rethrows -> Workflow {
        var definition = model.definition
        try change(&definition)
        return Workflow(definition)
    }

    /// The workflow's name (`workflow`), as results, events and `${run.workflow}` show it.
    public var name: String { model.definition.name }
    /// The language version the workflow is written in (`version`).
    public var version: Int { model.definition.version }
    /// What the workflow does, for people (`description`); the engine does not use it.
    public var description: String? { model.definition.description }
    /// Declared inputs, in document order.
    public var inputs: [InputDeclaration] { model.definition.inputs }
    /// The state a run begins in.
    public var start: String { model.definition.start }
    /// Where a cancelled run goes, so it can release what it holds before it ends.
    public var onCancel: String? { model.definition.onCancel }
    /// States by name.
    public var states: [String: WorkflowState] { model.definition.states }
    /// State names in document order, each state once: the order states are numbered in. (A definition may list
    /// a name twice or leave a state out; its states are then numbered as ``Definition/stateOrder`` says.)
    public var stateOrder: [String] { model.stateNames }
    /// The file the workflow came from, or a label for workflows loaded from data.
    public var file: String { model.definition.file }
    /// Sub-workflows by the path written in their state, resolved and loaded.
    public var subworkflows: [String: Workflow] { model.definition.subworkflows }
    /// SHA-256 (hex) of the workflow's text and its sub-workflows' hashes, set by the loader; empty for a
    /// workflow built in code. Journals record it so recovery can tell whether the workflow has changed.
    ///
    /// The loader keeps what the hash is made of and hashes it on first read (see ``ContentHashSource``).
    public var contentHash: String { model.definition.contentHash }
    /// What ``contentHash`` is computed from; nil for a workflow built in code.
    var contentHashSource: ContentHashSource? { model.definition.contentHashSource }
    /// What the workflow promises about itself (error handling, deadline, session on success), checked by the
    /// validator.
    public var contract: WorkflowContract { model.definition.contract }

    /// Whether this workflow or a sub-workflow has a wait state (and so needs the hub's events).
    public var waitsForEvents: Bool { model.waitsForEvents }

    /// The states by number: each once, in document order.
    var statesInOrder: [WorkflowState] { model.states }

    /// The declared input with a name.
    public func input(named name: String) -> InputDeclaration? {
        model.definition.inputs.first { $0.name == name }
    }

    /// The names of the states a run can reach from the start, following the compiled edges, with or without the
    /// cancel edges.
    public func reachableStates(includingCancel: Bool) -> Set<String> {
        let seen = model.reachable(includingCancel: includingCancel)
        return Set(model.states.indices.filter { seen[$0] }.map(model.name))
    }

    /// Every edge of the state machine, in document order: each state's own, then its cancel edge. A view of
    /// the compiled model's one edge list.
    public var edges: [WorkflowEdge] {
        model.edges.map(model.workflowEdge)
    }
}

/// A declared input of a workflow.
public struct InputDeclaration: Sendable, Hashable {
    /// The types an input may declare.
    public enum InputType: String, Sendable, Hashable, CaseIterable {
        /// A value of that JSON type (`integer` also admits a whole number written with a fraction, as `3.0`); `any`
        /// admits every value.
        case string, integer, number, boolean, array, object, any
        /// A QR code or manual pairing code (a string, always secret), whose non-secret facts templates and
        /// conditions may read (``OnboardingPayloadFacts``).
        case onboardingPayload
        /// A Thread Active Operational Dataset as hex TLVs (a string, always secret: it holds the Network Key and
        /// PSKc), complete and well formed: one a border router can join.
        case operationalDataset

        /// The matching value shape.
        public var shape: ValueShape {
            switch self {
            case .string, .onboardingPayload, .operationalDataset: .string
            case .integer: .integer
            case .number: .number
            case .boolean: .boolean
            case .array: .array(.any)
            case .object, .any: .any
            }
        }

        /// Whether a value has this type.
        public func admits(_ value: JSONValue) -> Bool {
            switch self {
            case .object: value.objectValue != nil
            case .string, .integer, .number, .boolean, .array, .any, .onboardingPayload, .operationalDataset: shape.admits(value)
            }
        }

        /// A value of this type in words, for messages: `an integer`, `a string holding a QR code ...`.
        public var inWords: String {
            switch self {
            case .string: "a string"
            case .integer: "an integer"
            case .number: "a number"
            case .boolean: "true or false"
            case .array: "an array"
            case .object: "an object"
            case .any: "any value"
            case .onboardingPayload: "a string holding a QR code (MT:...) or a manual pairing code"
            case .operationalDataset: "a string holding an Operational Dataset in hex"
            }
        }

        /// What `${input.NAME.member...}` may read: an onboarding payload's facts, anything of an object.
        public var readableShape: ValueShape {
            switch self {
            case .object: .any
            case .onboardingPayload: OnboardingPayloadFacts.shape
            case .string, .integer, .number, .boolean, .array, .any, .operationalDataset: shape
            }
        }
    }

    /// The input's name, as `${input.NAME}` reads it.
    public var name: String
    /// The type a value must have.
    public var type: InputType
    /// A run must supply it (it has no default).
    public var required: Bool
    /// Used when the run does not supply the input. Absent and not required: the input is `null`.
    public var defaultValue: JSONValue?
    /// Redacted in progress lines, traces and journals unless secrets are shown explicitly.
    public var secret: Bool
    /// What the input is, for people (`description`).
    public var description: String?
    /// The values it may take (`enum`), each of its type; nil: any of its type.
    public var allowedValues: [JSONValue]?
    /// The least value of a number or integer input (`minimum`).
    public var minimum: Double?
    /// The greatest value of a number or integer input (`maximum`).
    public var maximum: Double?
    /// The most bytes of UTF-8 a string input's value may take (`maxBytes`), as the device field it fills bounds it.
    public var maxBytes: Int?

    /// A declaration with these members.
    public init(
        name: String, type: InputType, required: Bool, defaultValue: JSONValue? = nil, secret: Bool = false,
        description: String? = nil, allowedValues: [JSONValue]? = nil, minimum: Double? = nil, maximum: Double? = nil,
        maxBytes: Int? = nil
    ) {
        self.maxBytes = maxBytes
        self.allowedValues = allowedValues
        self.minimum = minimum
        self.maximum = maximum
        self.name = name
        self.type = type
        self.required = required
        self.defaultValue = defaultValue
        self.secret = secret
        self.description = description
    }
}

