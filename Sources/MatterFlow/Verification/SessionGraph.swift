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
}
