import Foundation
import MatterFlowJSON

/// A path to draw over a graph: the states a run entered (read from its `--trace jsonl` output) or a path the
/// validator printed, as qualified state names (`commission/rememberFailure`) in order.
public struct GraphHighlight: Sendable, Hashable {
    /// The states of the path in order, as qualified names (`commission/rememberFailure`).
    public var states: [String]
    /// The top-level workflow a trace is of; nil for a path written out.
    public var workflow: String?
    /// Where the path came from (a trace file, or the option), as errors about it name it.
    public var source: String
    /// What was skipped while reading a trace: a torn last line.
    public var warnings: [Diagnostic]
    /// Whether errors may quote the states that do not fit: not for a list read from a file, which may be any
    /// file (a key, a dataset) given by mistake.
    public var quotesStates = true

    /// A path through `states`; `workflow` is the workflow a trace is of (nil for a path written out), `source` names
    /// the path in errors.
    public init(states: [String], workflow: String? = nil, source: String = "--highlight-path", warnings: [Diagnostic] = []) {
        self.states = states
        self.workflow = workflow
        self.source = source
        self.warnings = warnings
    }

    /// The states a run entered, from its `--trace jsonl` lines, each qualified by the sub-workflow states above it.
    ///
    /// A last line that is the start of a JSON text but not all of it, as a run killed while writing it leaves, is
    /// skipped with a warning (in ``warnings``); so are lines that do not start with `{` (what the command wrote
    /// beside its trace, such as a warning), counted in one warning, unless no line is an event; any other line that
    /// is not a JSON object is an error.
    /// - Throws: ``DiagnosticsError`` naming the first such line, as `file:line:column`.
    public static func trace(jsonl text: String, file: String = "<trace>") throws(DiagnosticsError) -> GraphHighlight {
        var stack: [String] = []
        var states: [String] = []
        var top: String?
        var warnings: [Diagnostic] = []
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        // Each line without the JSON whitespace that ends it: where a torn line's text stops.
        let ends = lines.map { line in line.unicodeScalars.count - line.unicodeScalars.reversed().prefix { " \t\r".unicodeScalars.contains($0) }.count }
        let lastLine = ends.lastIndex { $0 > 0 }
        // Lines that do not start a JSON object are what the command wrote beside its trace on the same stream (a
        // warning about its home file, a note): passed over, and counted in one warning.
        var besides = 0
        for (offset, line) in lines.enumerated() {
            guard ends[offset] > 0 else { continue }
            guard line.drop(while: { $0 == " " || $0 == "\t" }).first == "{" else {
                besides += 1
                continue
            }
            let value: JSONValue
            do {
                value = try JSONDocument.parse(String(line), file: file).value
            } catch {
                // A torn line is the start of a JSON text: json-c reads it to its end and wants more.
                let torn = error.diagnostics.allSatisfy {
                    $0.code == DiagnosticCode.syntaxError && $0.location == SourceLocation(line: 1, column: ends[offset] + 1)
                }
                // Locations within the line become locations within the file.
                let located = error.diagnostics.map { diagnostic in
                    var diagnostic = diagnostic
                    diagnostic.location = SourceLocation(line: offset + 1, column: diagnostic.location?.column ?? 1)
                    return diagnostic
                }
                guard offset == lastLine, torn else {
                    throw DiagnosticsError(located)
                }
                warnings += located.map { diagnostic in
                    var diagnostic = diagnostic
                    diagnostic.severity = .warning
                    diagnostic.message = "the last line is not complete JSON (\(diagnostic.message)), as a run killed while writing it leaves; it is ignored"
                    return diagnostic
                }
                continue
            }
            guard value.objectValue != nil else {
                throw DiagnosticsError([Diagnostic(
                    severity: .error, code: DiagnosticCode.wrongType,
                    message: "line \(offset + 1) is not a trace event (a JSON object); use `matterflow run --trace jsonl`",
                    file: file)])
            }
            entered(value, stack: &stack, states: &states, top: &top)
        }
        if besides > 0 {
            guard besides < lines.indices.count(where: { ends[$0] > 0 }) else {
                throw DiagnosticsError([
                    Diagnostic(
                        severity: .error, code: DiagnosticCode.syntaxError,
                        message: "no line is a trace event (a JSON object); use the standard error of `matterflow run --trace jsonl`",
                        file: file)
                ])
            }
            warnings.append(
                Diagnostic(
                    severity: .warning, code: DiagnosticCode.syntaxError,
                    message: "\(besides) line\(besides == 1 ? "" : "s") that \(besides == 1 ? "is" : "are") no trace event (not a JSON object: what the command wrote beside its trace, such as a warning) passed over",
                    file: file))
        }
        return GraphHighlight(states: states, workflow: top, source: file, warnings: warnings)
    }

    /// The states a run entered, from its journal records (`stateEntered` records, as `history --json` lists them
    /// under `records` and `watch --json` prints them), each qualified by the sub-workflow states above it.
    public static func records(_ records: [JSONValue], file: String) -> GraphHighlight {
        var stack: [String] = []
        var states: [String] = []
        var top: String?
        for record in records { entered(record, stack: &stack, states: &states, top: &top) }
        return GraphHighlight(states: states, workflow: top, source: file)
    }

    /// The path in one JSON document of `lines` lines read from `file`: `history --json` output (its `records`) or a
    /// `test --json` report (``testReport(_:file:drawing:)``); nil for a document of one line that is neither, which
    /// is a trace of one event.
    /// - Throws: ``DiagnosticsError`` (`highlightMismatch`) for a fixture (which is no run), a report that holds no
    ///   single run of the workflow drawn, or another document of several lines.
    public static func document(_ document: JSONValue, lines: Int, file: String, drawing: String?) throws(DiagnosticsError) -> GraphHighlight? {
        if let entries = document["records"]?.arrayValue { return records(entries, file: file) }
        if let results = document["results"]?.arrayValue { return try testReport(results, file: file, drawing: drawing) }
        let highlight = GraphHighlight(states: [], source: file)
        if document["fixture"] != nil, document["expect"] != nil {
            throw highlight.mismatch(
                "this is a fixture, not the path of a run; run it and draw its report: `matterflow test \(file) --json > report.json`, then `--highlight-path report.json`")
        }
        guard lines <= 1 else {
            throw highlight.mismatch(
                "this JSON document is neither `history --json` output (it has no \"records\") nor a `test --json` report (no \"results\"); give one of them, a `--trace jsonl` file (an event per line), a journal file, or states as a, b, c")
        }
        return nil
    }

    /// The path of a fixture's run, from a `matterflow test --json` report (its `results`, each with the run's
    /// `path` of qualified states and the `workflow` file it ran). A report of one fixture's run is drawn; of several,
    /// the one whose workflow is `drawing` (an absolute path) when exactly one is.
    /// - Throws: ``DiagnosticsError`` (`highlightMismatch`) when the report holds no run of the workflow drawn, or
    ///   several: which fixtures it holds, and how to report one alone.
    public static func testReport(_ results: [JSONValue], file: String, drawing: String?) throws(DiagnosticsError) -> GraphHighlight {
        let runs = results.filter { $0["path"]?.arrayValue != nil }
        // One file by two paths (a symbolic link on the way) is one workflow.
        let resolved = drawing.map(Self.resolvingLinks)
        let ranDrawn: (JSONValue) -> Bool = { run in run["workflow"]?.stringValue.map(Self.resolvingLinks) == resolved }
        let chosen = runs.count == 1 ? runs : runs.filter(ranDrawn)
        var highlight = GraphHighlight(states: [], source: file)
        guard chosen.count == 1, let run = chosen.first, let states = run["path"]?.arrayValue else {
            let names = runs.compactMap { $0["fixture"]?.stringValue }
            let held = runs.isEmpty
                ? "holds no fixture's run (the fixtures it reports were invalid or their workflows did not load)"
                : "holds the runs of \(runs.count) fixtures, \(chosen.isEmpty ? "none" : "\(chosen.count)") of the workflow drawn (\(names.prefix(5).map { "\"\($0)\"" }.joined(separator: ", "))\(names.count > 5 ? ", ..." : ""))"
            throw highlight.mismatch(
                "this `matterflow test --json` report \(held); report the fixture to draw alone: `matterflow test FIXTURE.fixture.json --json > report.json`")
        }
        if runs.count == 1, let drawing, let ran = run["workflow"]?.stringValue, !ranDrawn(run) {
            throw highlight.mismatch(
                "this report's fixture ran \(ran), but the graph draws \(drawing); draw the fixture's workflow, or report a fixture of this one")
        }
        highlight.states = states.compactMap(\.stringValue)
        return highlight
    }

    /// `path` with its symbolic links followed.
    private static func resolvingLinks(_ path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().path
    }

    /// Takes a `stateEntered` trace event (`"event"`) or journal record (`"type"`) into the path; other values are
    /// passed over.
    private static func entered(_ value: JSONValue, stack: inout [String], states: inout [String], top: inout String?) {
        guard (value["event"] ?? value["type"])?.stringValue == "stateEntered", let state = value["state"]?.stringValue,
            let workflow = value["workflow"]?.stringValue
        else { return }
        let depth = workflow.split(separator: "/").count - 1
        if depth == 0, top == nil { top = workflow }
        stack = Array(stack.prefix(max(0, depth))) + [state]
        states.append(stack.joined(separator: "/"))
    }

    /// States written as a list: separated by commas, arrows or lines (`a, b, c`, `a -> b`, `a → b`), or a path as the
    /// validator prints it (`a -[next]-> b -[onError[0] *]-> c`, with or without the `Path:` before it) or as a `test`
    /// mismatch prints it (`actual (3):   a → b → c`). A list read from `file` is named by it in errors, which do not
    /// quote its text.
    public static func path(_ text: String, file: String? = nil) -> GraphHighlight {
        var highlight = path(text)
        if let file {
            highlight.source = file
            highlight.quotesStates = false
        }
        return highlight
    }

    private static func path(_ text: String) -> GraphHighlight {
        var normalized = ""
        var rest = Substring(text.trimmingCharacters(in: .whitespacesAndNewlines))
        // Copied with the label the validator's message puts before it, or a `test` mismatch's (`actual (13):`).
        for label in ["Path:", "expected in order:", "actual:"] where rest.hasPrefix(label) { rest = rest.dropFirst(label.count) }
        if let colon = rest.firstIndex(of: ":"), rest[..<colon].wholeMatch(of: /(expected|actual) \(\d+\)/) != nil {
            rest = rest[rest.index(after: colon)...]
        }
        while let open = rest.range(of: "-[") {
            normalized += rest[..<open.lowerBound] + ","
            guard let close = rest[open.upperBound...].range(of: "]->") else {
                rest = rest[open.upperBound...]
                continue
            }
            rest = rest[close.upperBound...]
        }
        normalized += rest
        // Lines separate states too: a file may list one per line, and ends with a newline.
        // `matterflow test` writes paths with arrows (`a → b`).
        let states = normalized.replacingOccurrences(of: "->", with: ",").replacingOccurrences(of: "→", with: ",").split(whereSeparator: { $0 == "," || $0.isNewline })
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && $0 != "(end)" }
        return GraphHighlight(states: states)
    }
}

extension StateGraph {
    /// The graph with a path drawn over it: its states, and the edges between consecutive ones. A qualified state
    /// is drawn as the nearest node the graph has (`commission/commission` is `commission` when sub-workflows
    /// are not expanded; a sub-workflow's state, when expanded, is its cluster and the child's start).
    /// - Throws: ``DiagnosticsError`` (`highlightMismatch`) when the path names no state, names states the graph
    ///   does not have, or is a trace of another workflow: nothing of it would be drawn right.
    public func highlighting(_ highlight: GraphHighlight) throws(DiagnosticsError) -> StateGraph {
        if let traced = highlight.workflow, traced != name {
            throw highlight.mismatch(
                "this is a trace of workflow \"\(traced)\", but the graph draws \"\(name)\"; pass the trace of a run of this workflow (`matterflow run WORKFLOW --trace jsonl 2> trace.jsonl`)")
        }
        guard !highlight.states.isEmpty else {
            throw highlight.mismatch(
                "the path names no state; give states as `a, b, c`, a path `matterflow validate` printed, or a `matterflow run --trace jsonl` file")
        }
        var graph = self
        let nodeIDs = Set(nodes.map(\.id))
        let clusterIDs = Set(allClusters.map(\.id))
        var sequence: [String] = []
        var clustersHit = Set<String>()
        var unknown: [String] = []
        for state in highlight.states {
            var components = state.split(separator: "/").map(String.init)
            var resolved: String?
            while !components.isEmpty, resolved == nil {
                let candidate = components.joined(separator: "/")
                if nodeIDs.contains(candidate) {
                    resolved = candidate
                } else if clusterIDs.contains("cluster_" + candidate) {
                    clustersHit.insert("cluster_" + candidate)
                    resolved = edges.first { $0.toCluster == "cluster_" + candidate }?.to
                        ?? starts.first { $0.hasPrefix(candidate + "/") }
                } else {
                    components.removeLast()
                }
            }
            guard let resolved else {
                if !unknown.contains(state) { unknown.append(state) }
                continue
            }
            if sequence.last != resolved { sequence.append(resolved) }
        }
        if let first = unknown.first {
            let topLevel = nodes.map(\.id).filter { !$0.contains("/") }
            let remedy = "give this workflow's own states (\(topLevel.prefix(8).joined(separator: ", "))\(topLevel.count > 8 ? ", ..." : "")), or the trace or path of a run of it"
            guard highlight.quotesStates else {
                throw highlight.mismatch(
                    "the file is neither a `--trace jsonl` file nor a list of states of workflow \"\(name)\" (\(unknown.count) of its \(highlight.states.count) entries are no state; what it holds is not shown); \(remedy)")
            }
            // A pairing code given where states were meant is a secret, also one digit off: named, never quoted.
            let shown = unknown.prefix(5).map { entry in
                entry.uppercased().hasPrefix("MT:") || entry.count(where: \.isNumber) >= 8 || OnboardingPayloadFacts.facts(of: entry) != nil
                    ? "(a pairing code, not shown)" : "\"\(entry)\""
            }.joined(separator: ", ") + (unknown.count > 5 ? " and \(unknown.count - 5) more" : "")
            throw highlight.mismatch(
                "\(shown) \(unknown.count == 1 ? "is not a state" : "are not states") of workflow \"\(name)\"\(SpellingSuggestion.hint(for: first, among: nodes.map(\.id))); \(remedy)")
        }
        let visited = Set(sequence)
        let pairs = Set(zip(sequence, sequence.dropFirst()).map { "\($0)\u{1}\($1)" })
        for index in graph.nodes.indices where visited.contains(graph.nodes[index].id) {
            graph.nodes[index].highlighted = true
        }
        for index in graph.edges.indices where pairs.contains("\(graph.edges[index].from)\u{1}\(graph.edges[index].to)") {
            graph.edges[index].highlighted = true
        }
        func mark(_ clusters: inout [Cluster]) {
            for index in clusters.indices {
                if clustersHit.contains(clusters[index].id) || clusters[index].nodeIDs.contains(where: visited.contains) {
                    clusters[index].highlighted = true
                }
                mark(&clusters[index].clusters)
            }
        }
        mark(&graph.clusters)
        return graph
    }
}

extension GraphHighlight {
    /// The error for a path that does not fit the graph.
    func mismatch(_ message: String) -> DiagnosticsError {
        DiagnosticsError([Diagnostic(severity: .error, code: GraphDiagnosticCode.highlightMismatch, message: message, file: source)])
    }
}
