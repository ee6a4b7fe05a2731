import Foundation
import MatterFlow
import MatterFlowHubProtocol
import MatterFlowFixtures
import MatterFlowJSON

/// `matterflow validate FILE...`: every finding about each workflow file, like a compiler.
struct ValidateCommand {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Check workflow files and report every problem with its line and column.",
        arguments: [("<file>", "Workflow files to check (sub-workflows they name are checked too); a directory: its *.json files.", true)],
        options: [
            .init(name: "json", valueName: nil, help: "Print the findings as a JSON array."),
            .init(
                name: "budget", valueName: nil,
                help: "Also print each valid workflow's worst-case duration to each end state (with --json: {\"findings\", \"budgets\"})."),
            .init(name: "strict", valueName: nil, help: "Exit 2 on warnings too, for CI that keeps workflows free of them."),
            HubOption.option,
            CatalogOption.option,
        ],
        discussion: """
            With --hub, the hub's handshake is read (docs/hub-protocol.md) and every state that needs a method the hub
            does not list is a warning (unsupportedByHub) naming the state, the operation and the method.

            A directory stands for the *.json files directly in it, in name order, but for fixtures (*.fixture.json)
            and catalogs (*.catalog.json), and not those of its subdirectories: `matterflow validate Workflows`
            checks the workflows, not the fixtures in Workflows/fixtures. A finding
            is reported once, however the files name it (a sub-workflow also given on the command line, or a path
            spelled two ways).

            Exit status: 0 when no file has errors (warnings allowed; with --strict, none), 2 otherwise (or when the hub
            cannot be reached).
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() async throws(UsageError) -> Int32 {
        guard let catalog = CatalogOption.catalog(arguments, err: environment.standardError) else { return ExitCode.invalidInput }
        let handshake: RemoteHub.Handshake?
        switch await HubOption.handshake(
            try HubOption.endpoint(arguments, command: Self.spec.name), err: environment.standardError,
            handlesInterrupts: environment.handlesInterrupts)
        {
        case .exit(let code): return code
        case .read(let read): handshake = read
        }
        let loader = WorkflowLoader(catalog: catalog)
        var all: [Diagnostic] = []
        var seen = Set<String>()
        var loaded: [TimeBudget] = []
        let (named, empty) = Self.files(arguments.positionals)
        // A file named twice (`a.json ./a.json`, or in a directory also given) is one file, checked and counted once.
        var distinct = Set<String>()
        let paths = named.filter { distinct.insert(AbsolutePath.key($0)).inserted }
        all += empty
        for path in paths {
            // One load per file serves both the findings and, for files without errors, the time budget.
            let outcome = loader.load(path: path)
            var hubFindings: [Diagnostic] = []
            if let handshake, let workflow = outcome.workflow {
                hubFindings = HubSupportCheck.findings(workflow, handshake: handshake, catalog: catalog)
            }
            // Keyed by the file's absolute path: a file named two ways is one file.
            for diagnostic in outcome.diagnostics + hubFindings {
                var keyed = diagnostic
                keyed.file = diagnostic.file.map(AbsolutePath.key)
                if seen.insert(keyed.description).inserted { all.append(diagnostic) }
            }
            if arguments.flag("budget"), let workflow = outcome.workflow { loaded.append(TimeBudget(workflow: workflow, catalog: catalog)) }
        }
        let budgets = arguments.flag("budget") ? loaded : nil
        if arguments.flag("json") {
            let findings = JSONValue.array(all.map(\.jsonValue))
            environment.standardOutput.line(JSONWriter.pretty(
                budgets.map { ["findings": findings, "budgets": .array($0.map(\.jsonValue))] } ?? findings))
        } else {
            for budget in budgets ?? [] { environment.standardOutput.line(budget.text) }
            MatterflowTool.report(all, to: environment.standardError)
            let errors = all.filter { $0.severity == .error }.count
            let warnings = all.count - errors
            let files = paths.count
            environment.standardError.line(
                errors == 0
                    ? "\(files) file\(files == 1 ? "" : "s") valid" + (warnings > 0 ? " (\(warnings) warning\(warnings == 1 ? "" : "s"))" : "")
                    : "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
            // A file with errors of other kinds is not proved (section 18): fixing them may bring proofs' findings.
            let errorsByFile = Dictionary(grouping: all.filter { $0.severity == .error }, by: { $0.file ?? "" })
            let unread: Set<String> = [
                DiagnosticCode.syntaxError, DiagnosticCode.fileNotFound, DiagnosticCode.unreadableFile, DiagnosticCode.unsupportedVersion,
                WorkflowDiagnosticCode.notAWorkflow,
            ]
            let unproved = errorsByFile.filter { file, errors in
                !file.isEmpty && !errors.contains { WorkflowDiagnosticCode.proofs.contains($0.code) || unread.contains($0.code) }
            }.keys.sorted()
            if !unproved.isEmpty {
                let named = unproved.prefix(3).joined(separator: ", ") + (unproved.count > 3 ? " and \(unproved.count - 3) more" : "")
                environment.standardError.line(
                    "note: \(named) \(unproved.count == 1 ? "was" : "were") not proved over every path (sessionLeak, operationOutOfOrder, unsafeRetry, ...: docs/workflow-language.md section 18), which needs a file without other errors; validate again once \(unproved.count == 1 ? "its" : "their") errors are fixed")
            }
            if arguments.flag("strict"), errors == 0, warnings > 0 {
                environment.standardError.line("--strict: warnings fail the check (exit 2)")
            }
        }
        return all.hasErrors || (arguments.flag("strict") && !all.isEmpty) ? ExitCode.invalidInput : ExitCode.success
    }

    /// The files the arguments name: a directory's `*.json` files (not its subdirectories'), in name order, and a
    /// finding for a directory that has none.
    static func files(_ arguments: [String]) -> (paths: [String], empty: [Diagnostic]) {
        var paths: [String] = []
        var empty: [Diagnostic] = []
        for argument in arguments {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: argument, isDirectory: &isDirectory), isDirectory.boolValue else {
                paths.append(argument)
                continue
            }
            let separator = argument.hasSuffix("/") ? "" : "/"
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: argument)) ?? []).filter { name in
                var nested: ObjCBool = false
                // Fixtures and catalogs kept beside the workflows are not workflows (their names say so).
                return name.hasSuffix(".json") && !name.hasPrefix(".") && !name.hasSuffix(FixtureLoader.fileSuffix) && !name.hasSuffix(".catalog.json")
                    && FileManager.default.fileExists(atPath: argument + separator + name, isDirectory: &nested) && !nested.boolValue
            }.sorted()
            if names.isEmpty {
                empty.append(
                    Diagnostic(
                        severity: .error, code: DiagnosticCode.fileNotFound,
                        message: "this directory holds no workflow file (*.json); name the files, or the directory that holds them", file: argument))
            }
            paths += names.map { argument + separator + $0 }
        }
        return (paths, empty)
    }
}
