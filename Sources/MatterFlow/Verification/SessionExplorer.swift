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
        /// Child nodes by the name of the workflow state that runs them.
        var children: [String: Int] = [:]
        /// Variables some choice tests with `exists`.
        let tracked: Set<String>
        /// Variables bound to the result of a support-check operation, with that operation.
        let supportResults: [String: String]
        /// Every succeed state outputs a non-null value.
        let outputNonNull: Bool

        init(workflow: Workflow, flow: ErrorFlow, tracked: Set<String>, supportResults: [String: String], outputNonNull: Bool) {
            self.workflow = workflow
            self.flow = flow
            self.tracked = tracked
            self.supportResults = supportResults
            self.outputNonNull = outputNonNull
        }
    }

    enum Mode: Hashable { case normal, cancelling, pending }

    struct Frame: Hashable {
        var node: Int
        var state: String
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

    struct Step {
        var label: String
        /// The pointer of the edge when it is one of the root workflow's.
        var rootPointer: String?
    }

    enum Ending { case succeeded, failed, unrouted, cancelled }

    struct End {
        var config: Int
        var ending: Ending
        var state: String
        var label: String?
        var rootPointer: String?
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
        for name in workflow.stateOrder {
            switch workflow.states[name]?.kind {
            case .choice(let choice)?:
                for branch in choice.branches { tracked.formUnion(branch.condition.existenceTests) }
            case .succeed(let succeed)? where flow.normallyReachable.contains(name):
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
        nodes.append(Node(workflow: workflow, flow: flow, tracked: tracked, supportResults: support, outputNonNull: nonNull))
        for name in workflow.stateOrder {
            guard case .workflow(let subworkflow)? = workflow.states[name]?.kind,
                let child = workflow.subworkflows[subworkflow.path]
            else { continue }
            let childID = addNode(child, context: context, supportOperations: supportOperations)
            nodes[id].children[name] = childID
        }
        return id
    }

    /// Variables holding the result of a support-check operation: bound by an action calling one, or by a
    /// sub-workflow whose output carries one (such as a child that finds a border router and outputs it).
    static func supportVariables(_ workflow: Workflow, _ operations: Set<String>) -> [String: String] {
        var support: [String: String] = [:]
        for name in workflow.stateOrder {
            switch workflow.states[name]?.kind {
            case .action(let action)?:
                if operations.contains(action.operation), let result = action.step.result { support[result] = action.operation }
            case .workflow(let subworkflow)?:
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
        for name in workflow.stateOrder {
            guard case .succeed(let succeed)? = workflow.states[name]?.kind, let output = succeed.output else { continue }
            for reference in output.references where reference.root == .vars {
                if let head = reference.head, let operation = support[head] { return operation }
            }
        }
        return nil
    }

    private mutating func explore() {
        let initial = Config(
            frames: [Frame(node: 0, state: nodes[0].workflow.start, mode: .normal, facts: [:])], held: false,
            sessionOps: nil, checked: [])
        configs = [initial]
        parents = [nil]
        index = [initial: 0]
        var next = 0
        while next < configs.count, configs.count < Self.limit {
            for (config, step) in successors(of: next) where index[config] == nil {
                index[config] = configs.count
                configs.append(config)
                parents.append((next, step))
            }
            next += 1
        }
    }

    /// The qualified name of a configuration's current state (`commission/rememberFailure`).
    func name(_ config: Config) -> String {
        config.frames.map(\.state).joined(separator: "/")
    }

    /// The configurations from the start to `config`, with the step taken out of each but the last.
    func path(to config: Int) -> [(config: Int, step: Step?)] {
        // Walked from the end back, then reversed: inserting at the front would make long paths quadratic.
        var chain: [(Int, Step?)] = [(config, nil)]
        var current = config
        while let (previous, step) = parents[current] {
            chain.append((previous, step))
            current = previous
        }
        return Array(chain.reversed())
    }

    /// The path as text, state by state: `a -[next]-> b -[onError[0] *]-> c`, then `final` if given.
    func pathText(to config: Int, final: String? = nil) -> String {
        var text = ""
        for (position, element) in path(to: config).enumerated() {
            if position > 0 { text += " " }
            text += name(configs[element.config])
            if let step = element.step { text += " -[\(step.label)]->" }
        }
        if let final { text += " -[\(final)]-> (end)" }
        return text
    }

    /// The last root-workflow edge on the path to `config`.
    func lastRootPointer(to config: Int) -> String? {
        path(to: config).compactMap(\.step?.rootPointer).last
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
