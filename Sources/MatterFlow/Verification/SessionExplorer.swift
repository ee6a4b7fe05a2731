import MatterFlowJSON

/// Walks every path of a workflow and, inline, of its sub-workflows, as one machine: success, each error route,
/// errors no route takes, choice branches, wait events and timeouts, sub-workflow retries, and a cancel arriving in
/// any state (which runs each level's cancel path, innermost first). Along each path it tracks whether this run
/// holds the commissioning session, which operations the current session has done, and which support checks
/// the run has made: enough to find leaked sessions and out-of-order calls, each with the path that shows it.
///
/// Choice conditions are not evaluated, except `exists` of a variable (and `not`, `and`, `or` of those), which
/// is how cancel paths tell whether their prepare opened a session: those facts are tracked per workflow level.
struct SessionExplorer {
    /// One workflow of the tree: the root, or a sub-workflow run by a state of its parent node.
    ///
    /// A class, so that looking a node up for every move shares it instead of copying a whole workflow and its
    /// error flow.
    final class Node {
        let workflow: Workflow
        let flow: ErrorFlow
        /// The workflow's states by number (frames name states by these numbers).
        let topology: WorkflowTopology
        /// Child nodes by the number of the workflow state that runs them.
        var children: [Int: Int] = [:]
        /// Variables some choice tests with `exists`.
        let tracked: Set<String>
        /// Variables bound to the result of a support-check operation, with that operation.
        let supportResults: [String: String]
        /// Every succeed state outputs a non-null value.
        let outputNonNull: Bool
        /// For each choice state (by number), the support-check operations each branch's condition tests the
        /// result of: found once here instead of from the condition's references at every visit.
        let supportChecks: [Int: [[String]]]
        /// For each workflow state (by number), what its guards and inputs may fail with before the child starts.
        let startErrors: [Int: Set<PossibleError>]

        init(
            workflow: Workflow, flow: ErrorFlow, catalog: OperationCatalog, tracked: Set<String>,
            supportResults: [String: String], outputNonNull: Bool
        ) {
            self.workflow = workflow
            self.flow = flow
            topology = flow.topology
            self.tracked = tracked
            self.supportResults = supportResults
            self.outputNonNull = outputNonNull
            var checks: [Int: [[String]]] = [:]
            var before: [Int: Set<PossibleError>] = [:]
            for (number, state) in flow.topology.states.enumerated() {
                switch state.kind {
                case .choice(let choice):
                    checks[number] = choice.branches.map { branch in
                        branch.condition.templates.flatMap(\.references).compactMap { reference in
                            reference.root == .vars ? reference.head.flatMap { supportResults[$0] } : nil
                        }
                    }
                case .workflow:
                    before[number] = ErrorFlow.stepErrors(state, workflow: workflow, catalog: catalog, childErrors: { _ in [] }) ?? []
                case .action, .assign, .wait, .succeed, .fail:
                    break
                }
            }
            supportChecks = checks
            startErrors = before
        }
    }

    enum Mode: Hashable { case normal, cancelling, pending }

    struct Frame: Hashable {
        var node: Int
        /// The state's number in its node's ``WorkflowTopology``.
        var state: Int
        var mode: Mode
        /// Whether tracked variables exist (absent: unknown).
        var facts: [String: Bool]
    }

    struct Config: Hashable {
        var frames: [Frame]
        var held: Bool
        /// Operations the current session has done; nil while the run is in its caller's session.
        var sessionOps: Set<String>?
        /// Support-check operations whose results a choice has tested.
        var checked: Set<String>

        /// Hashes where each level is and only the sizes of the facts and sets: that tells most configurations
        /// apart, and hashing every member of every set was most of the cost of exploring (`==` still compares
        /// everything).
        func hash(into hasher: inout Hasher) {
            hasher.combine(frames.count)
            for frame in frames {
                hasher.combine(frame.node)
                hasher.combine(frame.state)
                hasher.combine(frame.mode)
                hasher.combine(frame.facts.count)
            }
            hasher.combine(held)
            hasher.combine(sessionOps?.count ?? -1)
            hasher.combine(checked.count)
        }
    }

    /// How a move leaves its state: which transition of the state it takes, or what happens to its level.
    enum StepKind {
        case next, choice(Int), choiceDefault, error(Int), event(Int), eventOtherwise, timeout, start, retry, cancel
    }

    /// A move, as numbers: its label and pointer are spelled out only for the paths a finding shows
    /// (``label(_:)``, ``rootPointer(_:)``).
    struct Step {
        var kind: StepKind
        /// The node and the number of the state the move leaves (the one whose member declares it).
        var node: Int
        var state: Int
        /// Whether the move is one of the root workflow's: only those have a pointer.
        var isRoot: Bool
    }

    enum Ending { case succeeded, failed, unrouted, cancelled }

    struct End {
        var config: Int
        var ending: Ending
        /// The configuration the run ended in (its states name where it ended).
        var final: Config
        /// Whether an error no route takes ended the run.
        var unrouted: Bool
        /// The root workflow's state the run ended in.
        var rootState: Int
        var held: Bool
    }

    struct Violation {
        var config: Int
        var operation: String
        var requirement: OrderRequirement
        var rootPointer: String
    }

    /// Paths stop being explored past this many configurations (a safety net, far above real workflows).
    static let limit = 200_000

    let catalog: OperationCatalog
    private(set) var nodes: [Node] = []
    private(set) var configs: [Config] = []
    private(set) var parents: [(Int, Step)?] = []
    private var index: [Config: Int] = [:]
    /// The ways a run ends holding the commissioning session (what the leak check reports from); ends that
    /// release it or never held it are not kept.
    var ends: [End] = []
    var violations: [Violation] = []

    init(root: Workflow, context: VerificationContext) {
        catalog = context.catalog
        let supportOperations = Set(
            catalog.operations.flatMap(\.requires).filter { $0.scope == .supportCheck }.flatMap(\.operations))
        _ = addNode(root, context: context, supportOperations: supportOperations)
        explore()
    }

    private mutating func addNode(_ workflow: Workflow, context: VerificationContext, supportOperations: Set<String>) -> Int {
        var tracked = Set<String>()
        var nonNull = true
        let flow = context.flow(workflow)
        for (number, state) in flow.topology.states.enumerated() {
            switch state.kind {
            case .choice(let choice):
                for branch in choice.branches { tracked.formUnion(branch.condition.existenceTests) }
            case .succeed(let succeed) where flow.isNormallyReached(number):
                switch succeed.output {
                case nil, .reference?: nonNull = false
                case .literal(let value)?: nonNull = nonNull && !value.isNull
                case .interpolation?, .array?, .object?: break
                }
            default:
                break
            }
        }
        let support = Self.supportVariables(workflow, supportOperations)
        let id = nodes.count
        nodes.append(Node(
            workflow: workflow, flow: flow, catalog: catalog, tracked: tracked, supportResults: support,
            outputNonNull: nonNull))
        for (number, state) in flow.topology.states.enumerated() {
            guard case .workflow(let subworkflow) = state.kind, let child = workflow.subworkflows[subworkflow.path]
            else { continue }
            let childID = addNode(child, context: context, supportOperations: supportOperations)
            nodes[id].children[number] = childID
        }
        return id
    }

    /// Variables holding the result of a support-check operation: bound by an action calling one, or by a
    /// sub-workflow whose output carries one (such as a child that finds a border router and outputs it).
    static func supportVariables(_ workflow: Workflow, _ operations: Set<String>) -> [String: String] {
        var support: [String: String] = [:]
        for state in workflow.statesInOrder {
            switch state.kind {
            case .action(let action):
                if operations.contains(action.operation), let result = action.step.result { support[result] = action.operation }
            case .workflow(let subworkflow):
                if let child = workflow.subworkflows[subworkflow.path], let result = subworkflow.step.result,
                    let operation = supportOutput(child, operations)
                {
                    support[result] = operation
                }
            default:
                break
            }
        }
        return support
    }

    /// The support-check operation whose result a workflow outputs, if any.
    static func supportOutput(_ workflow: Workflow, _ operations: Set<String>) -> String? {
        let support = supportVariables(workflow, operations)
        for state in workflow.statesInOrder {
            guard case .succeed(let succeed) = state.kind, let output = succeed.output else { continue }
            for reference in output.references where reference.root == .vars {
                if let head = reference.head, let operation = support[head] { return operation }
            }
        }
        return nil
    }

    private mutating func explore() {
        // A valid workflow's start is defined (a workflow with findings is not explored).
        guard let start = nodes[0].topology.start else { return }
        let initial = Config(
            frames: [Frame(node: 0, state: start, mode: .normal, facts: [:])], held: false, sessionOps: nil, checked: [])
        configs = [initial]
        parents = [nil]
        index = [initial: 0]
        var next = 0
        var moves: [Move] = []
        while next < configs.count, configs.count < Self.limit {
            moves.removeAll(keepingCapacity: true)
            successors(of: next, into: &moves)
            for (config, step) in moves {
                // One lookup: the configuration's number, given it when it is new.
                let number = configs.count
                var isNew = false
                Self.insert(&index[config, default: -1], number, &isNew)
                guard isNew else { continue }
                configs.append(config)
                parents.append((next, step))
            }
            next += 1
        }
    }

    private static func insert(_ slot: inout Int, _ number: Int, _ isNew: inout Bool) {
        guard slot < 0 else { return }
        slot = number
        isNew = true
    }
}

extension Condition {
    /// Variables tested with `exists` (as `${vars.NAME}`), at any depth.
    var existenceTests: Set<String> {
        switch self {
        case .exists(let template): template.wholeVariable.map { [$0] } ?? []
        case .and(let conditions), .or(let conditions): conditions.reduce(into: []) { $0.formUnion($1.existenceTests) }
        case .not(let condition): condition.existenceTests
        case .compare, .isEmpty, .contains: []
        }
    }
}

extension Template {
    /// The variable name when the template is exactly `${vars.NAME}`.
    var wholeVariable: String? {
        guard case .reference(let reference) = self, reference.root == .vars, reference.path.count == 1 else { return nil }
        return reference.head
    }
}

extension Condition {
    /// The condition's value from what is known of variables' existence; nil when it depends on more.
    func evaluate(_ facts: [String: Bool]) -> Bool? {
        switch self {
        case .exists(let template):
            return template.wholeVariable.flatMap { facts[$0] }
        case .not(let inner):
            return inner.evaluate(facts).map { !$0 }
        case .and(let conditions):
            let values = conditions.map { $0.evaluate(facts) }
            if values.contains(false) { return false }
            return values.allSatisfy { $0 == true } ? true : nil
        case .or(let conditions):
            let values = conditions.map { $0.evaluate(facts) }
            if values.contains(true) { return true }
            return values.allSatisfy { $0 == false } ? false : nil
        case .compare, .isEmpty, .contains:
            return nil
        }
    }
}
