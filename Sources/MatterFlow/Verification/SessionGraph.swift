/// What ``SessionExplorer`` walks of one load, kept for every file of it: the files' nodes, and each instance (a
/// file entered one way) with its configurations, the moves that first reached them, its ways of ending and what
/// it found. The explorer of a parent reuses what the explorers of its sub-workflows walked.
///
/// A class owned by the load's ``VerificationContext``, which verifies one file at a time.
final class SessionGraph {
    var nodes: [SessionExplorer.Node] = []
    var nodeIDs: [String: Int] = [:]
    var instances: [SessionExplorer.Instance] = []
    var instanceIndex: [SessionExplorer.Entry: Int] = [:]
    var configs: [SessionExplorer.Config] = []
    /// How each configuration was first reached: from a point, by a step (nil for an instance's first state).
    var parents: [(SessionExplorer.Point, SessionExplorer.Step)?] = []
    var index: [SessionExplorer.Config: Int] = [:]
    /// Whether sub-workflows are entered with only the session facts they can tell apart (see
    /// ``SessionExplorer/entrySession(_:into:)``).
    var narrowsEntries = true
    /// The number of each operation the walks have met (``OperationSet`` holds these).
    private var operationNumbers: [String: Int] = [:]
    /// The order requirements of each operation, with their operations as a set, by operation name.
    private var requirementSets: [String: [(requirement: OrderRequirement, operations: OperationSet)]] = [:]

    /// Makes room for `count` more configurations at once, so that the index is not rehashed again and again as
    /// a walk grows it; room is only ever added by doubling, so many small walks cost no more than one large one.
    func reserveConfigurations(_ count: Int) {
        let needed = configs.count + count
        guard index.capacity < needed else { return }
        let capacity = Swift.max(needed, 2 * index.capacity)
        index.reserveCapacity(capacity)
        configs.reserveCapacity(capacity)
        parents.reserveCapacity(capacity)
    }

    /// The number of an operation, given the first time its name is met.
    func number(of operation: String) -> Int {
        if let known = operationNumbers[operation] { return known }
        let number = operationNumbers.count
        operationNumbers[operation] = number
        return number
    }

    /// Operations by name, as a set of numbers.
    func operations(_ names: some Sequence<String>) -> OperationSet {
        var set = OperationSet()
        for name in names { set.insert(number(of: name)) }
        return set
    }

    /// The order requirements of an operation, each with its operations as a set: found once per operation.
    func requirements(of operation: OperationDescriptor) -> [(requirement: OrderRequirement, operations: OperationSet)] {
        if let known = requirementSets[operation.name] { return known }
        let sets = operation.requires.map { ($0, operations($0.operations)) }
        requirementSets[operation.name] = sets
        return sets
    }
}
