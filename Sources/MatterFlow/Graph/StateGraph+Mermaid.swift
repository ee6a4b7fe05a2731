extension StateGraph {
    /// The graph as a Mermaid flowchart (renders on GitHub and in Markdown viewers that support Mermaid).
    /// Node IDs are `s1`, `s2`, ... in node order; highlighted nodes and edges are drawn red and thick.
    public var mermaid: String {
        var ids: [String: String] = [:]
        for (position, node) in nodes.enumerated() { ids[node.id] = "s\(position + 1)" }
        var clusterIDs: [String: String] = [:]
        for (position, cluster) in allClusters.enumerated() { clusterIDs[cluster.id] = "c\(position + 1)" }
        // A comment runs to the end of its line: a name's line breaks would end it, the rest read as Mermaid.
        var lines = ["%% \(String(name.map { $0.isNewline ? " " : $0 }))", "flowchart TD"]
        var edgeCount = 0
        var highlightedEdges: [Int] = []
        var errorEdges: [Int] = []
        if !starts.isEmpty {
            lines.append("  s0((\"start\"))")
            for start in starts {
                lines.append("  s0 --> \(ids[start] ?? start)")
                edgeCount += 1
            }
        }
        let clustered = Set(allClusters.flatMap(\.nodeIDs))
        for node in nodes where !clustered.contains(node.id) {
            lines.append("  " + Self.mermaidNode(node, id: ids[node.id] ?? node.id))
        }
        func addCluster(_ cluster: Cluster, indent: String) {
            lines.append("\(indent)subgraph \(clusterIDs[cluster.id] ?? cluster.id)[\"\(Self.mermaidText(cluster.label))\"]")
            for id in cluster.nodeIDs {
                if let node = nodes.first(where: { $0.id == id }) {
                    lines.append(indent + "  " + Self.mermaidNode(node, id: ids[id] ?? id))
                }
            }
            for nested in cluster.clusters { addCluster(nested, indent: indent + "  ") }
            lines.append("\(indent)end")
        }
        for cluster in clusters { addCluster(cluster, indent: "  ") }
        for edge in edges {
            let from = edge.fromCluster.flatMap { clusterIDs[$0] } ?? ids[edge.from] ?? edge.from
            let to = edge.toCluster.flatMap { clusterIDs[$0] } ?? ids[edge.to] ?? edge.to
            let arrow = edge.style == .cancel ? "-.->" : edge.style == .entry ? "==>" : "-->"
            lines.append("  \(from) \(arrow)|\"\(Self.mermaidText(edge.label))\"| \(to)")
            if edge.highlighted { highlightedEdges.append(edgeCount) }
            if edge.style == .error { errorEdges.append(edgeCount) }
            edgeCount += 1
        }
        let styled: [(Shape, String)] = [(.succeed, "stroke:#2e7d32"), (.fail, "stroke:#c62828"), (.activeState, "fill:#e3ecff")]
        for (shape, style) in styled {
            let members = nodes.filter { $0.shape == shape }.compactMap { ids[$0.id] }
            guard !members.isEmpty else { continue }
            lines.append("  classDef \(shape.rawValue) \(style)")
            lines.append("  class \(members.joined(separator: ",")) \(shape.rawValue)")
        }
        let highlighted = nodes.filter(\.highlighted).compactMap { ids[$0.id] }
            + allClusters.filter(\.highlighted).compactMap { clusterIDs[$0.id] }
        if !highlighted.isEmpty {
            lines.append("  classDef highlighted stroke:#d00000,stroke-width:3px,color:#d00000")
            lines.append("  class \(highlighted.joined(separator: ",")) highlighted")
        }
        if !errorEdges.isEmpty {
            lines.append("  linkStyle \(errorEdges.map(String.init).joined(separator: ",")) stroke:#b35900,color:#b35900")
        }
        if !highlightedEdges.isEmpty {
            lines.append("  linkStyle \(highlightedEdges.map(String.init).joined(separator: ",")) stroke:#d00000,stroke-width:3px")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func mermaidNode(_ node: Node, id: String) -> String {
        let text = "\"" + mermaidText(node.lines.joined(separator: "\n")) + "\""
        switch node.shape {
        case .action, .state, .activeState: return "\(id)(\(text))"
        case .workflow: return "\(id)[[\(text)]]"
        case .map: return "\(id)[(\(text))]"
        case .repeat: return "\(id)>\(text)]"
        case .choice: return "\(id){\(text)}"
        case .assign: return "\(id)[/\(text)/]"
        case .wait: return "\(id)([\(text)])"
        case .ask: return "\(id)>\(text)]"
        case .delay: return "\(id)[(\(text))]"
        case .succeed: return "\(id)(((\(text))))"
        case .fail: return "\(id){{\(text)}}"
        }
    }

    /// Text inside a quoted Mermaid label: quotes and angle brackets as entities, line breaks as `<br/>`.
    static func mermaidText(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\"": escaped += "#quot;"
            case "<": escaped += "#lt;"
            case ">": escaped += "#gt;"
            // "\r\n" is one Character, and "\r" a line break to Mermaid too.
            case _ where character.isNewline: escaped += "<br/>"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
