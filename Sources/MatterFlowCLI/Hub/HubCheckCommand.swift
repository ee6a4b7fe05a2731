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
        ],
        discussion: """
            Runs the checks of docs/hub-protocol.md, section 8, against the hub: handshake, status shape, one
            session per structure, cancel with nothing open, unknown device, invalid arguments, events as
            notifications, cancellation, ignored extensions. Prints one line per check (each failure with what
            was sent, what came back and what the contract wanted), then "N passed, N failed". The suite opens
            one session and cancels it again; it tests the structure given with --structure, else the first
            one the hub names in its handshake. With --catalog, the hub may also list the custom operations the
            catalog files declare. A hub behind a slow link can be given longer with --answer-limit; the
            cancellation check then allows as long, and its line says so.

            Exit status: 0 when every check passed, 1 when one failed, 2 when the hub cannot be started or
            reached (or ends before its handshake), or --structure names none of its structures, 64 usage error.
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
        guard let catalog = CatalogOption.catalog(arguments, err: err) else { return ExitCode.invalidInput }
        let custom = Set(catalog.names).subtracting(OperationCatalog.standard.names)
        let connection: HubConnection
        do {
            connection = try await HubConnection.opening(endpoint)
        } catch {
            err.line("error[\(error.cause.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
        var conformance = HubConformance(structure: arguments.value("structure"), customOperations: custom)
        if let answerLimit {
            conformance.answerLimit = .seconds(answerLimit)
            conformance.cancellationLimit = .seconds(answerLimit)
        }
        let report = await conformance.report(on: connection.channel)
        await connection.close()
        let checks = report.checks
        for check in checks {
            switch check.verdict {
            case .passed: out.line("PASS \(check.name)")
            case .skipped: out.line("SKIP \(check.name): \(check.detail)")
            case .failed: out.line("FAIL \(check.name)\n      \(check.detail)")
            }
        }
        let passed = checks.filter { $0.verdict == .passed }.count
        let failed = checks.filter { $0.verdict == .failed }.count
        let skipped = checks.filter { $0.verdict == .skipped }.count
        out.line("\(passed) passed, \(failed) failed" + (skipped > 0 ? " (\(skipped) skipped)" : ""))
        if let structures = report.structuresWhenUnknown {
            err.line(HubOption.unknownStructure(arguments.value("structure") ?? "", hub: report.hubName ?? "", structures: structures))
            return ExitCode.invalidInput
        }
        // A hub that closed the connection before its handshake passed never ran as a hub: the command could not
        // start one (as `run --hub` tells), rather than a hub that failed its checks.
        if let reason = report.endedBeforeHandshake {
            err.line(
                "error[hubUnreachable]: \(given[0]) closed the connection before completing the handshake (\(reason)); "
                    + "check that it starts a hub that speaks docs/hub-protocol.md")
            return ExitCode.invalidInput
        }
        return failed == 0 ? ExitCode.success : ExitCode.failure
    }
}
