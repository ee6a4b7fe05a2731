import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal

/// `matterflow graph WORKFLOW` and `matterflow graph --machine NAME`: a workflow, or a state machine in code, as
/// Graphviz DOT or Mermaid on standard output, optionally with a run's trace or a validator path drawn over it.
struct GraphCommand {
    static let spec = CommandSpec(
        name: "graph",
        abstract: "Draw a workflow (or a state machine in code) as Graphviz DOT or Mermaid.",
        arguments: [("[<workflow>]", "The workflow file to draw (omit with --machine).", false)],
        options: [
            .init(name: "format", valueName: "dot|mermaid", help: "Output format (default: dot)."),
            .init(name: "expand", valueName: nil, help: "Draw sub-workflows inside their states, as clusters."),
            .init(
                name: "highlight-path", valueName: "FILE|STATES",
                help: "Draw a run's path over the graph: its journal file, `history --json` or `watch --json` output, a `run --trace jsonl` file, a fixture's `test --json` report, or states (a, b, c or a path printed by validate or test)."),
            .init(
                name: "machine", valueName: "NAME",
                help: "Draw a state machine in code instead: \(MachineGraph.machines.map(\.name).joined(separator: ", "))."),
            HubOption.option,
            CatalogOption.option,
        ],
        discussion: """
            Examples:
              matterflow graph Workflows/commission-device.json | dot -Tsvg > commission-device.svg
              matterflow graph Workflows/commission-device.json --format mermaid --expand
              matterflow run Workflows/commission-device.json ... --trace jsonl 2> trace.jsonl
              matterflow graph Workflows/commission-device.json --expand --highlight-path trace.jsonl
              matterflow graph Workflows/commission-device.json --expand --highlight-path journal/run-5cbece477cfa.journal
              matterflow history RUN --store "$PG" --json > run.json   # a fleet's run, drawn from any machine
              matterflow graph Workflows/commission-device.json --expand --highlight-path run.json
              matterflow graph --machine commissioning-session --format mermaid
              matterflow validate W.json   # error[sessionLeak]: ... Path: prepare -[start]-> prepare/prepare -[next]-> ...
              matterflow graph W.json --expand --highlight-path 'PATH'   # that path pasted as printed, quoted
            A workflow with errors is drawn all the same, as written, so that the path of a finding can be seen: its
            errors and warnings go to stderr, as validate prints them, with a note that it was drawn despite them.
            Only a workflow that cannot be drawn is refused: a file that cannot be read or parsed, or that does not
            decode into states (an unknown state type). A transition to a state the workflow lacks is not drawn.
            With --hub SPEC, states that need a method the hub does not list are reported on stderr, as by validate.
            Exit status: 0 when the graph was written (also for a workflow with errors: validate is the check that
            fails on them, and a pipeline into dot gets its picture); 2 when nothing was drawn: the workflow cannot
            be drawn, the trace cannot be read, the path names states the workflow lacks (or is another workflow's
            trace), or --expand would draw more than 10,000 states; 64 on usage errors. Standard output holds a
            graph exactly when the status is 0.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() async throws(UsageError) -> Int32 {
        let formatName = arguments.value("format") ?? StateGraph.Format.dot.rawValue
        guard let format = StateGraph.Format(rawValue: formatName) else {
            throw UsageError(message: "Unknown format '\(formatName)'; use dot or mermaid", command: Self.spec.name)
        }
        var graph: StateGraph
        if let machineName = arguments.value("machine") {
            guard arguments.positionals.isEmpty else {
                throw UsageError(message: "Give a workflow or --machine, not both", command: Self.spec.name)
            }
            // A machine in code has no sub-workflows and calls no operation: these options would be ignored.
            let workflowOnly = ["expand", "hub", "catalog"].filter { arguments.flag($0) || arguments.value($0) != nil }
            if let first = workflowOnly.first {
                throw UsageError(message: "--\(first) applies to a workflow, not to --machine; drop it", command: Self.spec.name)
            }
            guard let machine = MachineGraph.machine(named: machineName) else {
                let names = MachineGraph.machines.map(\.name)
                throw UsageError(
                    message: "Unknown machine '\(machineName)'\(SpellingSuggestion.hint(for: machineName, among: names)); machines: \(names.joined(separator: ", "))",
                    command: Self.spec.name)
            }
            graph = MachineGraph.build(machine.table, activeStates: machine.activeStates)
        } else {
            guard let path = arguments.positionals.first else {
                throw UsageError(message: "Missing expected argument '<workflow>' (or --machine NAME)", command: Self.spec.name)
            }
            guard let catalog = CatalogOption.catalog(arguments, err: environment.standardError) else {
                return ExitCode.invalidInput
            }
            let outcome = WorkflowLoader(catalog: catalog).load(path: path)
            // A workflow with errors is drawn as written (the picture is how to see a finding's path); only one
            // that cannot be read or decoded into states is refused.
            MatterflowTool.report(outcome.diagnostics, to: environment.standardError)
            guard let workflow = outcome.decoded else { return ExitCode.invalidInput }
            if outcome.workflow == nil {
                let errors = outcome.diagnostics.count { $0.severity == .error }
                environment.standardError.line(
                    "note: drawn as written, although it has \(errors) error\(errors == 1 ? "" : "s") (above); `matterflow validate` fails on \(errors == 1 ? "it" : "them")")
            }
            if let code = try await HubOption.reportUnsupported(
                workflow, arguments, command: Self.spec.name, err: environment.standardError, catalog: catalog,
                handlesInterrupts: environment.handlesInterrupts)
            {
                return code
            }
            do {
                graph = try WorkflowGraph.build(workflow, expand: arguments.flag("expand"))
            } catch {
                MatterflowTool.report(error.diagnostics, to: environment.standardError)
                return ExitCode.invalidInput
            }
        }
        if let value = arguments.value("highlight-path") {
            do {
                let highlight = try Self.highlight(value, drawing: arguments.value("machine") == nil ? arguments.positionals.first : nil)
                MatterflowTool.report(highlight.warnings, to: environment.standardError)
                graph = try Self.draw(highlight, of: value, over: graph)
            } catch {
                MatterflowTool.report(error.diagnostics, to: environment.standardError)
                return ExitCode.invalidInput
            }
        }
        environment.standardOutput.write(graph.rendered(as: format))
        return ExitCode.success
    }

    /// A run's states from a file: a journal file (`run --journal`), `history --json` output (its `records`), a
    /// `test --json` report (a fixture's run), JSON lines (`--trace jsonl`, `watch --json`), or a path written out; else
    /// the path itself.
    /// `workflow` is the file drawn: a `test --json` report of several fixtures draws the one that ran it.
    static func highlight(_ value: String, drawing workflow: String?) throws(DiagnosticsError) -> GraphHighlight {
        guard isFile(value) else { return GraphHighlight.path(value) }
        let text = try JSONDocument.readText(path: value)
        // A journal is known by its header; one that cannot be read (damaged, a newer format) says why.
        if text.hasPrefix(JournalFrame.header.prefix { $0 != " " }) {
            do {
                return GraphHighlight.records(try JournalReader.decode(Array(text.utf8), path: value).records.map { .object($0.payload) }, file: value)
            } catch {
                throw DiagnosticsError([Diagnostic(severity: .error, code: error.code.rawValue, message: error.message, file: value)])
            }
        }
        // A trace may follow what the command wrote before it on the same stream (a warning about its home file).
        guard text.split(whereSeparator: \.isNewline).contains(where: { $0.drop(while: \.isWhitespace).hasPrefix("{") }) else {
            return GraphHighlight.path(text, file: value)
        }
        // One JSON document is `history --json` output or a `test --json` report; else JSON lines.
        if let document = try? JSONDocument.parse(text, file: value).value,
            let highlight = try GraphHighlight.document(
                document, lines: text.split(whereSeparator: \.isNewline).count(where: { !$0.allSatisfy(\.isWhitespace) }), file: value,
                drawing: workflow.map(AbsolutePath.key))
        {
            return highlight
        }
        return try GraphHighlight.trace(jsonl: text, file: value)
    }

    /// Draws a highlight over a graph. A value that names no file but looks like a file's path (it holds a `/` or
    /// ends in `.json` or `.jsonl`) and is not a list of the graph's states is reported as a missing file: a
    /// mistyped trace path, not states the workflow lacks.
    static func draw(_ highlight: GraphHighlight, of value: String, over graph: StateGraph) throws(DiagnosticsError) -> StateGraph {
        do {
            return try graph.highlighting(highlight)
        } catch {
            guard !isFile(value), value.contains("/") || value.hasSuffix(".json") || value.hasSuffix(".jsonl") else { throw error }
            throw DiagnosticsError([
                Diagnostic(
                    severity: .error, code: DiagnosticCode.fileNotFound,
                    message: "no such file, and not a list of states of workflow \"\(graph.name)\"; check the path of the `matterflow run --trace jsonl` output, or give states as a, b, c",
                    file: value)
            ])
        }
    }

    /// Whether a path names an existing file that is not a directory.
    private static func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }
}
