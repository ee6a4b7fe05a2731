extension StateGraph {
    /// The graph as Graphviz DOT (`dot -Tsvg` renders it). Highlighted nodes and edges are drawn red and bold.
    public var dot: String {
        var lines = ["digraph \(Self.quoted(name)) {"]
        lines.append("  compound=true;")
        lines.append("  rankdir=TB;")
        lines.append("  node [fontname=\"Helvetica\", fontsize=11];")
        lines.append("  edge [fontname=\"Helvetica\", fontsize=9];")
        if !starts.isEmpty {
            // The start point's ID is one no node has: a state may be named "__start".
            var startID = "__start"
            let nodeIDs = Set(nodes.map(\.id))
            while nodeIDs.contains(startID) { startID += "_" }
            lines.append("  \(Self.quoted(startID)) [shape=point, width=0.15, label=\"\"];")
            for start in starts { lines.append("  \(Self.quoted(startID)) -> \(Self.quoted(start));") }
        }
        let clustered = Set(allClusters.flatMap(\.nodeIDs))
        for node in nodes where !clustered.contains(node.id) { lines.append("  " + Self.dotNode(node)) }
        for cluster in clusters { lines += dotCluster(cluster, indent: "  ") }
        for edge in edges {
            var attributes = ["label=\(Self.quoted(edge.label))"]
            switch edge.style {
            case .normal: break
            case .error: attributes.append("color=\"#b35900\", fontcolor=\"#b35900\"")
            case .cancel: attributes.append("style=dashed, color=\"#777777\", fontcolor=\"#777777\"")
            case .entry: attributes.append("style=bold")
            }
            if let cluster = edge.fromCluster { attributes.append("ltail=\(Self.quoted(cluster))") }
            if let cluster = edge.toCluster { attributes.append("lhead=\(Self.quoted(cluster))") }
            if edge.highlighted { attributes.append("color=\"#d00000\", fontcolor=\"#d00000\", penwidth=2.5") }
            lines.append("  \(Self.quoted(edge.from)) -> \(Self.quoted(edge.to)) [\(attributes.joined(separator: ", "))];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    private func dotCluster(_ cluster: Cluster, indent: String) -> [String] {
        var lines = ["\(indent)subgraph \(Self.quoted(cluster.id)) {"]
        lines.append("\(indent)  label=\(Self.quoted(cluster.label));")
        lines.append("\(indent)  style=rounded;")
        lines.append("\(indent)  color=\(cluster.highlighted ? "\"#d00000\"" : "\"#6677aa\"");")
        for id in cluster.nodeIDs {
            if let node = nodes.first(where: { $0.id == id }) { lines.append(indent + "  " + Self.dotNode(node)) }
        }
        for nested in cluster.clusters { lines += dotCluster(nested, indent: indent + "  ") }
        lines.append("\(indent)}")
        return lines
    }

    private static func dotNode(_ node: Node) -> String {
        var attributes = ["label=\(quoted(node.lines.joined(separator: "\n")))"]
        switch node.shape {
        case .action: attributes.append("shape=box, style=rounded")
        case .workflow: attributes.append("shape=box, peripheries=2")
        case .map: attributes.append("shape=box3d")
        case .repeat: attributes.append("shape=component")
        case .choice: attributes.append("shape=diamond")
        case .assign: attributes.append("shape=parallelogram")
        case .wait: attributes.append("shape=box, style=\"rounded,dashed\"")
        case .ask: attributes.append("shape=note, style=dashed")
        case .delay: attributes.append("shape=box, style=\"dotted\"")
        case .succeed: attributes.append("shape=doublecircle, color=\"#2e7d32\"")
        case .fail: attributes.append("shape=doubleoctagon, color=\"#c62828\"")
        case .state: attributes.append("shape=ellipse")
        case .activeState: attributes.append("shape=ellipse, style=filled, fillcolor=\"#e3ecff\"")
        }
        if node.highlighted { attributes.append("color=\"#d00000\", penwidth=2.5, fontcolor=\"#d00000\"") }
        return "\(quoted(node.id)) [\(attributes.joined(separator: ", "))];"
    }

    /// A DOT string literal.
    static func quoted(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return "\"\(escaped)\""
    }
}
