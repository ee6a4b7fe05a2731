import MatterFlowJSON

/// Walks every path of a workflow and of its sub-workflows: success, each error route, errors no route takes,
/// choice branches, wait events and timeouts, sub-workflow retries, and a cancel arriving in any state (which runs
/// each level's cancel path, innermost first). Along each path it tracks whether this run holds the commissioning
/// session, which operations the current session has done, and which support checks the run has made: enough to
/// find leaked sessions and out-of-order calls, each with the path that shows it.
///
/// Each sub-workflow is explored once per way it can be entered (an *instance*: the file, the session facts it
/// starts with, and whether a cancel is already under way), and its ways of ending (its *exits*) are applied at
/// every state that runs it. Of the caller's session facts, an entry keeps only those the file can tell apart
/// (the operations its calls, or its sub-workflows' calls, require earlier): a release path run after each of
/// many steps is one instance, and each exit gets the rest of the caller's facts back where it resumes. A tree whose files run each other many times (a level running the next twice, down
/// many levels) costs what its distinct files and entries cost, not what its paths do. Instances are kept in the
/// load's ``SessionGraph``: a file verified on its own is not walked again when its parent is. A finding's path
/// is still spelled out state by state across files, the way one run would take it, along the first call chain
/// from this explorer's root that reaches it (``witnesses``).
///
/// Choice conditions are not evaluated, except `exists` of a variable (and `not`, `and`, `or` of those), which
/// is how cancel paths tell whether their prepare opened a session: those facts are tracked per workflow level.
struct SessionExplorer {
    /// Whether a level runs normally or its cancel path (after which no further cancel can arrive).
    enum Mode: Hashable { case normal, cancelling }

    /// What the run has done when it enters a level: the facts that cross between workflow files.
    struct Session: Hashable {
        var held: Bool
        /// Operations the current session has done; nil while the run is in its caller's session.
        var sessionOps: OperationSet?
        /// Support-check operations whose results a choice has tested.
        var checked: OperationSet
        /// A session was opened or released since the level was entered, so `sessionOps` holds only what this
        /// level did (otherwise it adds to what the level was entered with).
        var renewed = false
    }

    /// A way into a workflow file: explored once, however many states run it this way.
    struct Entry: Hashable {
        var node: Int
        var session: Session
        /// A cancel is under way in some caller, so none can arrive in this level.
        var shielded: Bool
    }

    /// An explored entry of a file, with its ways of ending, what it found, and the states that wait on it.
    struct Instance {
        var entry: Entry
        /// The run's own entry into a top-level workflow: its ends are a run's ends (``ends``).
        var isRootEntry: Bool
        var exits: [Exit] = []
        var exitKeys: Set<ExitKey> = []
        /// The configurations (of the parent instances) that run this instance.
        var callers: [Int] = []
        /// The instances this one runs, from which of its configurations.
        var calls: [(config: Int, callee: Int)] = []
        /// The ways a run entered here ends holding the session (kept for root entries only).
        var ends: [End] = []
        var violations: [Violation] = []
        /// Map states of this instance whose body can end with the session held differently than it began.
        var unbalancedMaps: [UnbalancedMap] = []
        /// A walk stopped at its limit while exploring this instance: its exits may be incomplete.
        var truncated = false
    }

    /// Where a level is: one workflow file's state, with what is known at that point.
    struct Config: Hashable {
        var instance: Int
        /// The state's number in its node's ``CompiledWorkflow``.
        var state: Int
        var mode: Mode
        /// The sub-workflow state is running its child again after a retry (no cancel or guard comes first).
        var retrying: Bool
        /// Whether the node's tracked variables exist.
        var facts: VariableFacts
        var session: Session

        var held: Bool { session.held }
    }

    /// A point on a path: a configuration, or the way a sub-workflow run from it ended (`via`: the instance and
    /// the number of its exit).
    struct Point {
        var config: Int
        var via: (instance: Int, exit: Int)?
    }

    /// How a level ends, as the state that runs it sees it.
    enum ExitKind: Hashable {
        case succeeded
        /// With the errors it may fail with, numbered by the load's ``PossibleErrorTable``.
        case failed(ErrorSet)
        case cancelled
    }

    struct ExitKey: Hashable {
        var kind: ExitKind
        var session: Session
    }

    /// A way an instance ends, with the point of its own path where it does.
    struct Exit {
        var kind: ExitKind
        var session: Session
        var point: Point
    }

    /// How a move leaves its state: which transition of the state it takes, or what happens to its level.
    enum StepKind {
        /// Along an edge of the node's compiled workflow (its number in ``CompiledWorkflow/edges``).
        case edge(Int)
        /// Into a sub-workflow's start.
        case start
        /// A retry of the state.
        case retry
        /// A cancel reaching the level, to its cancel path.
        case cancel
        /// A map or repeat state runs its body again (the next element, or the next iteration).
        case again
    }

    /// A move, as numbers: its label and pointer are spelled out only for the paths a finding shows
    /// (``label(_:)``, ``rootPointer(_:)``).
    struct Step {
        var kind: StepKind
        /// The node and the number of the state the move leaves (the one whose member declares it).
        var node: Int
        var state: Int
        /// Whether the move is one of the root workflow's (only those have a pointer): set where a path is
        /// spelled out for a finding, since an instance may be a root for one explorer and a child for another.
        var isRoot = false
    }

    enum Ending { case succeeded, failed, unrouted, cancelled }

    struct End {
        /// Where the run was when it ended.
        var point: Point
        var ending: Ending
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
    }

    /// A map or repeat state's body ended holding the session when it began without it (`opened`), or the reverse.
    struct UnbalancedMap {
        /// The map or repeat state's configuration, in the caller's instance.
        var config: Int
        /// Where the body ended, as seen from the map state.
        var point: Point
        var opened: Bool
    }

    /// Exploring stops past this many configurations, and the proof is reported as unfinished (a safety net,
    /// far above real workflows: each file is explored once per distinct way it is entered).
    static let limit = 200_000

    let catalog: OperationCatalog
    /// The load's possible errors, which number the error sets of exits and routes.
    let errors: PossibleErrorTable
    /// The nodes, instances and configurations of every file of the load, shared by the explorers of its files.
    let graph: SessionGraph
    /// The instance this explorer proves: the run's entry into the root workflow.
    private(set) var root = 0
    /// For each instance this root's runs reach (but the root), the configuration that first runs it: the call
    /// chain a finding's path and qualified names follow.
    private(set) var witnesses: [Int: Int] = [:]
    /// The instances reached, in the order they were: the root first.
    private(set) var reached: [Int] = []
    /// The configurations explored before the walk stops (``limit`` unless a test asks for fewer).
    let configurationLimit: Int
    /// Whether every configuration was explored (false when a limit stopped this walk, or one this root reuses).
    private(set) var finished = true

    var nodes: [Node] { graph.nodes }
    var instances: [Instance] { graph.instances }
    var configs: [Config] { graph.configs }
    var parents: [(Point, Step)?] { graph.parents }
    /// The ways a run ends holding the commissioning session (what the leak check reports from); ends that
    /// release it or never held it are not kept.
    var ends: [End] { graph.instances[root].ends }
    /// Calls made out of the protocol's order, in every instance the root's runs reach.
    var violations: [Violation] { reached.flatMap { graph.instances[$0].violations } }
    /// Map states whose body is not balanced, in every instance the root's runs reach.
    var unbalancedMaps: [UnbalancedMap] { reached.flatMap { graph.instances[$0].unbalancedMaps } }

    init(root workflow: Workflow, context: VerificationContext, limit: Int = SessionExplorer.limit) {
        catalog = context.catalog
        errors = context.errors
        graph = context.sessionGraph
        configurationLimit = limit
        addNodes(workflow, context: context, supportOperations: context.supportOperations)
        explore(workflow)
    }

    /// An explorer that has only made the nodes of `workflow`'s tree, to decide without a walk whether one could
    /// find anything (``mayFind(in:context:limit:)``).
    private init(nodesOf workflow: Workflow, context: VerificationContext, limit: Int) {
        catalog = context.catalog
        errors = context.errors
        graph = context.sessionGraph
        configurationLimit = limit
        addNodes(workflow, context: context, supportOperations: context.supportOperations)
    }

    /// Whether a walk from `workflow`'s start might report something (a leak, a call out of order, an unbalanced
    /// map body, or a proof cut short), decided from its tree's nodes without walking; false only when it is
    /// certain to report nothing (``mayFind(from:)``).
    static func mayFind(in workflow: Workflow, context: VerificationContext, limit: Int = SessionExplorer.limit) -> Bool {
        SessionExplorer(nodesOf: workflow, context: context, limit: limit).mayFind(from: workflow)
    }

    /// The node of `workflow`, made with those of its tree unless a walk of the load already made it (nil only
    /// if none could be).
    static func node(of workflow: Workflow, context: VerificationContext) -> Node? {
        let explorer = SessionExplorer(nodesOf: workflow, context: context, limit: limit)
        return explorer.graph.nodeIDs[workflow.file].map { explorer.nodes[$0] }
    }

    /// ``configurationBound(from:)`` of `workflow`'s tree, made without walking (for tests of the bound).
    static func configurationBound(in workflow: Workflow, context: VerificationContext) -> Int? {
        SessionExplorer(nodesOf: workflow, context: context, limit: limit).configurationBound(from: workflow)
    }

    private mutating func explore(_ workflow: Workflow) {
        // A valid workflow's start is defined (a workflow with findings is not explored).
        guard let rootNode = graph.nodeIDs[workflow.file], nodes[rootNode].model.start != nil else { return }
        // Most states are met in a few configurations (normal, cancelling, with or without the session).
        graph.reserveConfigurations(4 * nodes[rootNode].model.count)
        let firstConfig = graph.configs.count
        let firstInstance = graph.instances.count
        let session = Session(held: false, sessionOps: nil, checked: OperationSet())
        var moves: [Move] = []
        root = instance(Entry(node: rootNode, session: session, shielded: false), moves: &moves)
        reach(root, from: nil)
        for move in moves { add(move.config, parent: nil) }
        var next = firstConfig
        while next < graph.configs.count {
            guard graph.configs.count - firstConfig < configurationLimit else {
                finished = false
                for instance in firstInstance..<graph.instances.count { graph.instances[instance].truncated = true }
                return
            }
            moves.removeAll(keepingCapacity: true)
            successors(of: next, into: &moves)
            for move in moves { add(move.config, parent: move.step.map { (move.from, $0) }) }
            next += 1
        }
    }

    /// Numbers a configuration the first time it is found; nil when it was known.
    @discardableResult
    func add(_ config: Config, parent: (Point, Step)?) -> Int? {
        let number = graph.configs.count
        var isNew = false
        Self.insert(&graph.index[config, default: -1], number, &isNew)
        guard isNew else { return nil }
        graph.configs.append(config)
        graph.parents.append(parent)
        return number
    }

    private static func insert(_ slot: inout Int, _ number: Int, _ isNew: inout Bool) {
        guard slot < 0 else { return }
        slot = number
        isNew = true
    }

    /// The instance for an entry, created (with a move to its first configuration) the first time.
    func instance(_ entry: Entry, moves: inout [Move]) -> Int {
        if let known = graph.instanceIndex[entry] { return known }
        let id = graph.instances.count
        let isRootEntry = !entry.shielded && entry.session == Session(held: false, sessionOps: nil, checked: OperationSet())
        graph.instances.append(Instance(entry: entry, isRootEntry: isRootEntry))
        graph.instanceIndex[entry] = id
        // A workflow with findings is not explored, so its start is defined.
        if let start = nodes[entry.node].model.start {
            let first = Config(instance: id, state: start, mode: .normal, retrying: false, facts: VariableFacts(), session: entry.session)
            moves.append(Move(config: first, from: Point(config: 0, via: nil), step: nil))
        }
        return id
    }

    /// Records that this root's runs reach an instance, first from configuration `caller`, and with it every
    /// instance an earlier walk found it runs.
    mutating func reach(_ instance: Int, from caller: Int?) {
        var pending = [(instance, caller)]
        while let (current, from) = pending.popLast() {
            if current == root {
                // The root is reached once, first.
                guard reached.isEmpty else { continue }
            } else {
                guard witnesses[current] == nil, let from else { continue }
                witnesses[current] = from
            }
            reached.append(current)
            if graph.instances[current].truncated { finished = false }
            for (config, callee) in graph.instances[current].calls { pending.append((callee, config)) }
        }
    }
}
