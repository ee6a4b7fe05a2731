/// A picture of a state machine, independent of how it is drawn: nodes, labelled edges and nested clusters,
/// in a stable order. Built from a workflow (``WorkflowGraph``) or from a state machine in code
/// (``TransitionTable``), and rendered as Graphviz DOT or Mermaid.
public struct StateGraph: Sendable, Hashable {
    /// How a node is drawn.
    public enum Shape: String, Sendable, Hashable {
        /// A workflow state of the type with this name.
        case action, workflow, choice, assign, wait, ask, delay, succeed, fail
        /// A map state: a sub-workflow run once per element of a list.
        case map
        /// A repeat state: a sub-workflow run until a condition holds, a bounded number of times.
        case `repeat`
        /// A state of a state machine in code.
        case state
        /// A state of a state machine in code that holds a resource (an open session, an active key).
        case activeState
    }

    /// How an edge is drawn.
    public enum EdgeStyle: String, Sendable, Hashable {
        /// A plain transition: any that is not an error route, a cancel edge or an entry.
        case normal
        /// An error route.
        case error
        /// A cancel edge.
        case cancel
        /// Entering a sub-workflow, or a transition of a machine's initial pseudo-state.
        case entry
    }

    /// A node: one state.
    public struct Node: Sendable, Hashable {
        /// Unique in the graph (a qualified state name for workflows).
        public var id: String
        /// Lines of the label; the first is the name.
        public var lines: [String]
        /// How the node is drawn.
        public var shape: Shape
        /// Whether the node is drawn highlighted (red), as a state of a path drawn over the graph.
        public var highlighted = false

        /// A node, not highlighted.
        public init(id: String, lines: [String], shape: Shape) {
            self.id = id
            self.lines = lines
            self.shape = shape
        }
    }

    /// A labelled transition from one node to another.
    public struct Edge: Sendable, Hashable {
        /// The ID of the node the edge leaves.
        public var from: String
        /// The ID of the node the edge enters.
        public var to: String
        /// The text drawn on the edge.
        public var label: String
        /// How the edge is drawn.
        public var style: EdgeStyle
        /// Draw the edge from (or to) the border of this cluster (DOT `ltail` / `lhead`).
        public var fromCluster: String?
        /// Draw the edge to the border of this cluster (DOT `lhead`).
        public var toCluster: String?
        /// The edge's kind, as transitions report it (`next`, `onError[0] *`), for matching traces.
        public var kind: String
        /// Whether the edge is drawn highlighted (red), as a step of a path drawn over the graph.
        public var highlighted = false

        /// An edge, not highlighted; its ``kind`` is its label unless given.
        public init(
            from: String, to: String, label: String, style: EdgeStyle = .normal, kind: String? = nil,
            fromCluster: String? = nil, toCluster: String? = nil
        ) {
            self.from = from
            self.to = to
            self.label = label
            self.style = style
            self.kind = kind ?? label
            self.fromCluster = fromCluster
            self.toCluster = toCluster
        }
    }

    /// A group of nodes drawn in a box (a sub-workflow), possibly nested.
    public struct Cluster: Sendable, Hashable {
        /// Unique in the graph; for a workflow, `cluster_` followed by the sub-workflow state's qualified name.
        public var id: String
        /// The text drawn on the box.
        public var label: String
        /// The IDs of the nodes drawn in the box itself, not in a nested cluster.
        public var nodeIDs: [String]
        /// The clusters nested in this one.
        public var clusters: [Cluster]
        /// Whether the box is drawn highlighted (red), as holding a state of a path drawn over the graph.
        public var highlighted = false
    }

    /// The graph's name (the workflow's or the machine's): the DOT graph's name, the Mermaid chart's first comment.
    public var name: String
    /// The nodes a run may start in (drawn with arrows from a start marker).
    public var starts: [String]
    /// Every node, clustered or not.
    public var nodes: [Node]
    /// Every edge.
    public var edges: [Edge]
    /// Top-level clusters.
    public var clusters: [Cluster]

    /// A graph of these parts.
    public init(name: String, starts: [String], nodes: [Node], edges: [Edge], clusters: [Cluster] = []) {
        self.name = name
        self.starts = starts
        self.nodes = nodes
        self.edges = edges
        self.clusters = clusters
    }

    /// Output formats.
    public enum Format: String, Sendable, CaseIterable {
        /// Graphviz DOT (``StateGraph/dot``) or a Mermaid flowchart (``StateGraph/mermaid``).
        case dot, mermaid
    }

    /// The graph in a format.
    public func rendered(as format: Format) -> String {
        switch format {
        case .dot: dot
        case .mermaid: mermaid
        }
    }

    /// Every cluster, nested ones included, in drawing order.
    var allClusters: [Cluster] {
        func flatten(_ clusters: [Cluster]) -> [Cluster] { clusters.flatMap { [$0] + flatten($0.clusters) } }
        return flatten(clusters)
    }
}
