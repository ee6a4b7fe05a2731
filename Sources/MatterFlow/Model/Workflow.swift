import MatterFlowJSON

/// A loaded, decoded workflow: an explicit state machine over hub operations.
///
/// Build one with ``WorkflowLoader``; a `Workflow` that the loader returns has passed validation.
public struct Workflow: Sendable {
    /// The newest version of the workflow language this engine understands.
    public static let supportedVersion = 1

    public var name: String {
        didSet { dropPlan() }
    }
    public var version: Int
    public var description: String?
    /// Declared inputs, in document order.
    public var inputs: [InputDeclaration] {
        didSet { dropPlan() }
    }
    /// The state a run begins in.
    public var start: String {
        didSet { dropPlan() }
    }
    /// Where a cancelled run goes, so it can release what it holds before it ends.
    public var onCancel: String? {
        didSet { dropPlan() }
    }
    /// States by name.
    public var states: [String: WorkflowState] {
        didSet {
            keptOrder = nil
            dropPlan()
        }
    }
    /// State names in document order.
    public var stateOrder: [String] {
        didSet {
            keptOrder = nil
            dropPlan()
        }
    }
    /// The states in `stateOrder`'s order, as `init` was given them with no name twice, until either changes:
    /// the analyses walk states in order without looking each up by name.
    private var keptOrder: [WorkflowState]?
    /// The file the workflow came from, or a label for workflows loaded from data.
    public var file: String
    /// Sub-workflows by the path written in their state, resolved and loaded.
    public var subworkflows: [String: Workflow] {
        didSet {
            updateWaitsForEvents()
            dropPlan()
        }
    }
    /// SHA-256 (hex) of the workflow's text and its sub-workflows' hashes, set by the loader; empty for a
    /// workflow built in code. Journals record it so recovery can tell whether the workflow has changed.
    ///
    /// The loader keeps what the hash is made of and hashes it on first read (see ``ContentHashSource``).
    public var contentHash: String {
        get { contentHashSource?.hash ?? "" }
        set { contentHashSource = ContentHashSource(fixed: newValue) }
    }
    /// What ``contentHash`` is computed from; nil for a workflow built in code.
    var contentHashSource: ContentHashSource?
    /// What the workflow promises about itself (error handling, deadline, session on success), checked by the
    /// validator.
    public var contract = WorkflowContract()

    public init(
        name: String, version: Int, description: String?, inputs: [InputDeclaration], start: String,
        onCancel: String?, states: [WorkflowState], file: String, subworkflows: [String: Workflow] = [:]
    ) {
        self.name = name
        self.version = version
        self.description = description
        self.inputs = inputs
        self.start = start
        self.onCancel = onCancel
        // One hash per state: a repeated name (only in workflows built in code) keeps the first state.
        var byName = [String: WorkflowState](minimumCapacity: states.count)
        var repeated = false
        // By index: a loop variable would copy each state and then release everything it holds.
        for index in states.indices {
            if let first = byName.updateValue(states[index], forKey: states[index].name) {
                byName[states[index].name] = first
                repeated = true
            }
        }
        self.states = byName
        self.stateOrder = states.map(\.name)
        keptOrder = repeated ? nil : states
        self.file = file
        self.subworkflows = subworkflows
        updateWaitsForEvents()
    }

    /// The plan runs follow (``ExecutionPlan``), compiled on first use. Every change to what runs read replaces
    /// it, so copies share a plan only while they are equal.
    private(set) var planCache = PlanCache()

    /// Forgets the compiled plan, after a change.
    mutating func dropPlan() {
        planCache = PlanCache()
    }

    /// Whether this workflow or a sub-workflow has a wait state (and so needs the hub's events).
    public private(set) var waitsForEvents = false

    private mutating func updateWaitsForEvents() {
        // Kinds are read in place (by index), not copied out with every state: a copy retains and releases all
        // that a state holds, which for thousands of states is most of the cost.
        func waits(_ kind: WorkflowState.Kind) -> Bool {
            switch kind {
            case .wait: true
            case .workflow(let step): subworkflows[step.path]?.waitsForEvents == true
            case .action, .choice, .assign, .succeed, .fail: false
            }
        }
        if let keptOrder {
            waitsForEvents = keptOrder.indices.contains { waits(keptOrder[$0].kind) }
        } else {
            waitsForEvents = states.values.contains { waits($0.kind) }
        }
    }

    /// The states in document order: one per entry of `stateOrder` that names a state (so a name listed twice
    /// comes twice).
    var statesInOrder: [WorkflowState] {
        keptOrder ?? stateOrder.compactMap { states[$0] }
    }

    /// Whether ``statesInOrder`` lists every state once.
    var statesAreDistinct: Bool { keptOrder != nil }

    /// The declared input with a name.
    public func input(named name: String) -> InputDeclaration? {
        inputs.first { $0.name == name }
    }

    /// Every edge of the state machine, in document order.
    public var edges: [WorkflowEdge] {
        var all: [WorkflowEdge] = []
        for name in stateOrder {
            guard let state = states[name] else { continue }
            all.append(contentsOf: state.edges)
            if let onCancel, !state.isTerminal {
                all.append(WorkflowEdge(from: name, to: onCancel, kind: .cancel, pointer: "/onCancel"))
            }
        }
        return all
    }
}

/// A declared input of a workflow.
public struct InputDeclaration: Sendable, Hashable {
    /// The types an input may declare.
    public enum InputType: String, Sendable, Hashable, CaseIterable {
        case string, integer, number, boolean, array, object, any
        /// A QR code or manual pairing code (a string, always secret), whose non-secret facts templates and
        /// conditions may read (``OnboardingPayloadFacts``).
        case onboardingPayload

        /// The matching value shape.
        public var shape: ValueShape {
            switch self {
            case .string, .onboardingPayload: .string
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
            case .string, .integer, .number, .boolean, .array, .any, .onboardingPayload: shape.admits(value)
            }
        }

        /// What `${input.NAME.member...}` may read: an onboarding payload's facts, anything of an object.
        public var readableShape: ValueShape {
            switch self {
            case .object: .any
            case .onboardingPayload: OnboardingPayloadFacts.shape
            case .string, .integer, .number, .boolean, .array, .any: shape
            }
        }
    }

    public var name: String
    public var type: InputType
    /// A run must supply it (it has no default).
    public var required: Bool
    /// Used when the run does not supply the input. Absent and not required: the input is `null`.
    public var defaultValue: JSONValue?
    /// Redacted in progress lines, traces and journals unless secrets are shown explicitly.
    public var secret: Bool
    public var description: String?

    public init(
        name: String, type: InputType, required: Bool, defaultValue: JSONValue? = nil, secret: Bool = false,
        description: String? = nil
    ) {
        self.name = name
        self.type = type
        self.required = required
        self.defaultValue = defaultValue
        self.secret = secret
        self.description = description
    }
}

/// A transition of the state machine, as drawn in graphs and counted in coverage.
public struct WorkflowEdge: Sendable, Hashable {
    /// What takes the edge.
    public enum Kind: Sendable, Hashable, CustomStringConvertible {
        /// The state succeeded.
        case next
        /// Choice branch number `n` (0-based) matched.
        case choice(Int)
        /// No choice branch matched.
        case choiceDefault
        /// Error route number `n` (0-based) matched the error.
        case error(Int, [String])
        /// The run was cancelled while in the state.
        case cancel
        /// A wait state received an event with this value.
        case event(String)
        /// A wait state received an event whose value has no branch of its own.
        case eventOtherwise
        /// A wait state's timeout passed.
        case timeout

        public var description: String {
            switch self {
            case .next: "next"
            case .choice(let index): "choice[\(index)]"
            case .choiceDefault: "default"
            case .error(let index, let names): "onError[\(index)] \(names.joined(separator: "|"))"
            case .cancel: "cancel"
            case .event(let value): "event \(value)"
            case .eventOtherwise: "event otherwise"
            case .timeout: "timeout"
            }
        }
    }

    public var from: String
    public var to: String
    public var kind: Kind
    /// JSON pointer of the member that declares the edge.
    public var pointer: String
}
