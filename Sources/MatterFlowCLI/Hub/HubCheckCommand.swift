import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowHubProtocol

/// `matterflow hub check SPEC`: the hub protocol's conformance suite, run against a hub.
struct HubCheckCommand {
    static let spec = CommandSpec(
        name: "hub check",
        abstract: "Check that a hub speaks the hub protocol correctly (the conformance suite).",
        arguments: [("[<hub>]", "\"COMMAND ARGS...\" to start, unix:PATH or tcp:HOST:PORT (or give it as --hub, as run takes it).", false)],
        options: [
            .init(name: "hub", valueName: "<spec>", help: "The hub, written as run's --hub takes it (instead of <hub>)."),
            .init(name: "structure", valueName: "<id>", help: "The structure the checks use (default: the first one the hub names)."),
            .init(
                name: "answer-limit", valueName: "<seconds>",
                help: "How long each answer may take, a cancelled call's too (default: 10, and 5 for a cancelled call; 1...600)."),
            CatalogOption.option,
            .init(
                name: "json", valueName: nil,
                help: "Print one JSON object: {hub, checks [{name, verdict, detail}], passed, failed, skipped, errors [{code, message}]}."),
        ],
        discussion: """
            Runs the checks of docs/hub-protocol.md, section 8, against the hub: handshake, status shape, one
            session per structure, cancel with nothing open, unknown device, invalid arguments, events as
            notifications, cancellation, ignored extensions. Prints one line per check (each failure with what
            was sent, what came back and what the contract wanted), then "N passed, N failed" (and "(N skipped)"
            when some were). The suite opens one session and cancels it again; it tests the structure given with
            --structure, else the first
            one the hub names in its handshake. With --catalog, the hub may also list the custom operations the
            catalog files declare. A hub behind a slow link can be given longer with --answer-limit; the
            cancellation check then allows as long, and its line says so.

            With --json the lines become one JSON object on stdout, for exit statuses 0, 1 and 2 alike: "verdict"
            is passed, failed or skipped; "detail" says why a check failed or was skipped ("" when it passed);
            "hub" is the name from the hub's handshake (null before one passed); "errors" holds why the hub could
            not be checked (exit 2), empty otherwise.

            Exit status: 0 when every check passed, 1 when one failed, 2 when the hub cannot be started or
            reached, ends before its handshake or fails it, or --structure names none of its structures (or the
            handshake names none and --structure is not given), 64 usage error.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() async throws(UsageError) -> Int32 {
        let out = environment.standardOutput
        let err = environment.standardError
        let given = arguments.positionals + (arguments.value("hub").map { [$0] } ?? [])
        guard given.count == 1 else {
            throw UsageError(
                message: given.isEmpty ? "Missing expected argument '<hub>' (or --hub <spec>)" : "give the hub once: as <hub> or as --hub, not both",
                command: Self.spec.name)
        }
        let endpoint: HubEndpoint
        do {
            endpoint = try HubEndpoint(parsing: given[0])
        } catch {
            throw UsageError(message: error.message.replacingOccurrences(of: "--hub", with: "<hub>"), command: Self.spec.name)
        }
        let answerLimit = try arguments.wholeNumber("answer-limit", range: 1...600, command: Self.spec.name)
        let json = arguments.flag("json")
        var errors = ProblemList()
        let catalog: OperationCatalog
        switch CatalogOption.load(arguments) {
        case .success(let loaded):
            catalog = loaded
        case .failure(let error):
            MatterflowTool.report(error.diagnostics, to: err)
            errors.append(contentsOf: error.diagnostics)
            return refused(errors)
        }
        let custom = Set(catalog.names).subtracting(OperationCatalog.standard.names)
        let connection: HubConnection
        do {
            connection = try await HubConnection.opening(endpoint)
        } catch {
            err.line("error[\(error.cause.rawValue)]: \(error.message)")
            errors.append(code: error.cause.rawValue, message: error.message)
            return refused(errors)
        }
        var conformance = HubConformance(structure: arguments.value("structure"), customOperations: custom)
        if let answerLimit {
            conformance.answerLimit = .seconds(answerLimit)
            conformance.cancellationLimit = .seconds(answerLimit)
        }
        let report = await conformance.report(on: connection.channel)
        await connection.close()
        let checks = report.checks
        if !json {
            for check in checks {
                switch check.verdict {
                case .passed: out.line("PASS \(check.name)")
                case .skipped: out.line("SKIP \(check.name): \(check.detail)")
                case .failed: out.line("FAIL \(check.name)\n" + check.detail.split(separator: "\n", omittingEmptySubsequences: false).map { "      " + $0 }.joined(separator: "\n"))
                }
            }
        }
        let (passed, failed, skipped) = (Self.count(.passed, in: checks), Self.count(.failed, in: checks), Self.count(.skipped, in: checks))
        if !json { out.line("\(passed) passed, \(failed) failed" + (skipped > 0 ? " (\(skipped) skipped)" : "")) }
        if let structures = report.structuresWhenUnknown {
            let message = HubOption.unknownStructureMessage(arguments.value("structure") ?? "", hub: report.hubName ?? "", structures: structures)
            err.line("error[unknownStructure]: " + message)
            errors.append(code: "unknownStructure", message: message)
        }
        // A hub that closed the connection before its handshake passed never ran as a hub: the command could not
        // start one (as `run --hub` tells), rather than a hub that failed its checks.
        if let reason = report.endedBeforeHandshake {
            let message = "\(given[0]) closed the connection before completing the handshake (\(reason)); "
                + "check that it starts a hub that speaks docs/hub-protocol.md"
            err.line("error[hubUnreachable]: " + message)
            errors.append(code: "hubUnreachable", message: message)
        }
        // A hub whose handshake fails cannot be used (`run --hub` refuses it): not a hub that failed a check.
        if report.endedBeforeHandshake == nil, !report.handshakeUsable {
            let message = "\(given[0]) did not complete the handshake (\(report.handshakeProblem ?? "no usable answer to initialize")); "
                + "check that it speaks hub protocol version 1 (docs/hub-protocol.md, section 2)"
            err.line("error[hubFailure]: " + message)
            errors.append(code: "hubFailure", message: message)
        }
        if report.missingStructure {
            let message = HubOption.missingStructureMessage(hub: report.hubName ?? "")
            err.line("error[missingStructure]: " + message)
            errors.append(code: "missingStructure", message: message)
        }
        if json { out.line(JSONWriter.pretty(Self.json(hub: report.hubName, checks: checks, errors: errors))) }
        guard errors.isEmpty else { return ExitCode.invalidInput }
        return failed == 0 ? ExitCode.success : ExitCode.failure
    }

    /// Exit 2 before any check ran, with the JSON object (no checks) on stdout under `--json`.
    private func refused(_ errors: ProblemList) -> Int32 {
        if arguments.flag("json") { environment.standardOutput.line(JSONWriter.pretty(Self.json(hub: nil, checks: [], errors: errors))) }
        return ExitCode.invalidInput
    }

    /// How many of `checks` came out `verdict`.
    static func count(_ verdict: HubConformance.Check.Verdict, in checks: [HubConformance.Check]) -> Int {
        checks.count { $0.verdict == verdict }
    }

    /// The `--json` object: `{hub, checks [{name, verdict, detail}], passed, failed, skipped, errors}`.
    static func json(hub: String?, checks: [HubConformance.Check], errors: ProblemList) -> JSONValue {
        var object = JSONObject()
        object["hub"] = hub.map(JSONValue.string) ?? .null
        object["checks"] = .array(checks.map { check in
            ["name": .string(check.name), "verdict": .string(check.verdict.rawValue), "detail": .string(check.detail)]
        })
        for verdict in [HubConformance.Check.Verdict.passed, .failed, .skipped] { object[verdict.rawValue] = .int(count(verdict, in: checks)) }
        object["errors"] = errors.json
        return .object(object)
    }
}
