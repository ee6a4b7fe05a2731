/// A picture of a state machine, independent of how it is drawn: nodes, labelled edges and nested clusters,
/// in a stable order. Built from a workflow (``WorkflowGraph``) or from a state machine in code
/// (``TransitionTable``), and rendered as Graphviz DOT or Mermaid.
public struct StateGraph: Sendable, Hashable {
    /// How a node is drawn.
    public enum Shape: String, Sendable, Hashable {
        case action, workflow, choice, assign, wait, ask, delay, succeed, fail
        /// A state of a state machine in code.
        case state
        /// A state of a state machine in code that holds a resource (an open session, an active key).
        case activeState
    }

    /// How an edge is drawn.
    public enum EdgeStyle: String, Sendable, Hashable {
        case normal
        /// An error route.
        case error
        /// A cancel edge.
        case cancel
        /// Entering a sub-workflow, or a transition of a machine's initial pseudo-state.
        case entry
    }

    public struct Node: Sendable, Hashable {
        /// Unique in the graph (a qualified state name for workflows).
        public var id: String
        /// Lines of the label; the first is the name.
        public var lines: [String]
        public var shape: Shape
        public var highlighted = false

        public init(id: String, lines: [String], shape: Shape) {
            self.id = id
            self.lines = lines
            self.shape = shape
        }
    }

    public struct Edge: Sendable, Hashable {
        public var from: String
        public var to: String
        public var label: String
        public var style: EdgeStyle
        /// Draw the edge from (or to) the border of this cluster (DOT `ltail` / `lhead`).
        public var fromCluster: String?
        public var toCluster: String?
        /// The edge's kind, as transitions report it (`next`, `onError[0] *`), for matching traces.
        public var kind: String
        public var highlighted = false

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
        public var id: String
        public var label: String
        public var nodeIDs: [String]
        public var clusters: [Cluster]
        public var highlighted = false
    }

    public var name: String
    /// The nodes a run may start in (drawn with arrows from a start marker).
    public var starts: [String]
    public var nodes: [Node]
    public var edges: [Edge]
    /// Top-level clusters.
    public var clusters: [Cluster]

    public init(name: String, starts: [String], nodes: [Node], edges: [Edge], clusters: [Cluster] = []) {
        self.name = name
        self.starts = starts
        self.nodes = nodes
        self.edges = edges
        self.clusters = clusters
    }

    /// Output formats.
    public enum Format: String, Sendable, CaseIterable {
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
