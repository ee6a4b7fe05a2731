import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON

/// `matterflow validate FILE...`: every finding about each workflow file, like a compiler.
struct ValidateCommand {
    static let spec = CommandSpec(
        name: "validate",
        abstract: "Check workflow files and report every problem with its line and column.",
        arguments: [("<file>", "Workflow files to check (sub-workflows they name are checked too).", true)],
        options: [
            .init(name: "json", valueName: nil, help: "Print the findings as a JSON array."),
            .init(
                name: "budget", valueName: nil,
                help: "Also print each valid workflow's worst-case duration to each end state (with --json: {\"findings\", \"budgets\"})."),
            HubOption.option,
            CatalogOption.option,
        ],
        discussion: """
            With --hub, the hub's handshake is read (docs/hub-protocol.md) and every state that needs a method the hub
            does not list is a warning (unsupportedByHub) naming the state, the operation and the method.

            Exit status: 0 when no file has errors (warnings allowed), 2 otherwise (or when the hub cannot be reached).
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
        for path in arguments.positionals {
            // One load per file serves both the findings and, for files without errors, the time budget.
            let outcome = loader.load(path: path)
            var hubFindings: [Diagnostic] = []
            if let handshake, let workflow = outcome.workflow {
                hubFindings = HubSupportCheck.findings(workflow, handshake: handshake, catalog: catalog)
            }
            for diagnostic in outcome.diagnostics + hubFindings where seen.insert(diagnostic.description).inserted {
                all.append(diagnostic)
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
            let files = arguments.positionals.count
            environment.standardError.line(
                errors == 0
                    ? "\(files) file\(files == 1 ? "" : "s") valid" + (warnings > 0 ? " (\(warnings) warning\(warnings == 1 ? "" : "s"))" : "")
                    : "\(errors) error\(errors == 1 ? "" : "s"), \(warnings) warning\(warnings == 1 ? "" : "s")")
        }
        return all.hasErrors ? ExitCode.invalidInput : ExitCode.success
    }
}
