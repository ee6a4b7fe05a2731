import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator

/// `--hub SPEC` (and `--structure ID`) on the commands that talk to a hub: a hub in another process instead of
/// the simulated home (docs/hub-protocol.md).
enum HubOption {
    static let option = CommandSpec.Option(
        name: "hub", valueName: "<spec>",
        help: "A hub over the hub protocol: \"COMMAND ARGS...\" (started, stdio), unix:PATH or tcp:HOST:PORT.")

    static let structureOption = CommandSpec.Option(
        name: "structure", valueName: "<id>", help: "With --hub: the structure to use (default: the hub's first).")

    /// Simulated-home options that mean nothing with `--hub`.
    static let simulatorOnly = ["home", "state", "commissioner"]

    /// The endpoint of `--hub`, if given; refuses options that only the simulated home takes, and `--structure`
    /// without `--hub`.
    static func endpoint(_ arguments: ParsedArguments, command: String) throws(UsageError) -> HubEndpoint? {
        _ = try arguments.nonEmptyValue("structure", command: command)
        guard let spec = arguments.value("hub") else {
            if arguments.value("structure") != nil {
                throw UsageError(message: "--structure applies only with --hub (the simulated home has one structure)", command: command)
            }
            return nil
        }
        let clashing = simulatorOnly.filter { arguments.value($0) != nil || !arguments.all($0).isEmpty }
        if let first = clashing.first {
            throw UsageError(
                message: "--\(first) configures the simulated home and does not apply with --hub; drop one of them",
                command: command)
        }
        do {
            return try HubEndpoint(parsing: spec)
        } catch {
            throw UsageError(message: error.message, command: command)
        }
    }

    /// Connects to the hub; on failure, gives `report` its code and message (as `error[CODE]: MESSAGE` on stderr,
    /// or a worker's log line) and returns nil (the command exits 2, or 128 + the signal when one of `signals`
    /// interrupted the handshake: the connection is then closed and a started hub stopped).
    /// `standardError`: where a command hub's standard error lines go (``options(standardError:)``).
    static func connect(
        _ endpoint: HubEndpoint, signals: InterruptSignals? = nil, standardError: (@Sendable (String) -> Void)? = nil,
        report: @Sendable (_ code: String, _ message: String) -> Void
    ) async -> RemoteHub? {
        let connecting = Task { () async -> Result<RemoteHub, FlowError> in
            do throws(FlowError) {
                return .success(try await RemoteHub.connect(to: endpoint, options: options(standardError: standardError)))
            } catch {
                return .failure(error)
            }
        }
        signals?.calls { connecting.cancel() }
        switch await connecting.value {
        case .success(let remote):
            return remote
        case .failure(let error):
            report(error.cause.rawValue, error.message)
            return nil
        }
    }

    /// The options every hub connection of the CLI uses: its version, and where a command hub's standard error goes
    /// (nil: this process's).
    static func options(standardError: (@Sendable (String) -> Void)? = nil) -> RemoteHub.Options {
        var options = RemoteHub.Options(clientVersion: MatterflowTool.version)
        options.standardError = standardError
        return options
    }

    /// A ``connect(_:signals:standardError:report:)`` reporter that prints `error[CODE]: MESSAGE` on `err`.
    static func printing(to err: any TextSink) -> @Sendable (String, String) -> Void {
        { code, message in err.line("error[\(code)]: \(message)") }
    }

    /// What a command that only reads the hub's handshake goes on with.
    enum HandshakeRead {
        /// The handshake, nil without `--hub`.
        case read(RemoteHub.Handshake?)
        /// The command ends with this code: 2 when the hub cannot be reached (having said why), 128 + the signal
        /// when one interrupted the handshake.
        case exit(Int32)
    }

    /// The handshake of the hub at `endpoint`, for a command that only reads it; a signal during the handshake stops
    /// the hub and the command.
    static func handshake(_ endpoint: HubEndpoint?, err: any TextSink, handlesInterrupts: Bool) async -> HandshakeRead {
        guard let endpoint else { return .read(nil) }
        let signals = handlesInterrupts ? InterruptSignals() : nil
        let remote = await connect(endpoint, signals: signals, report: printing(to: err))
        await remote?.close()
        signals?.restoreDispositions()
        if let interrupted = signals?.exitCode { return .exit(interrupted) }
        guard let remote else { return .exit(ExitCode.invalidInput) }
        return .read(remote.handshake)
    }

    /// The structure to use: `--structure`, else the first the hub names; nil (with a message) when neither, or
    /// when `--structure` names one the hub's handshake does not list (a hub that lists none is taken at its word).
    static func structure(_ arguments: ParsedArguments, remote: RemoteHub, err: any TextSink) -> StructureID? {
        let named = remote.handshake?.structures ?? []
        if let structure = arguments.value("structure") {
            guard named.isEmpty || named.contains(structure) else {
                err.line(unknownStructure(structure, hub: remote.handshake?.hubName ?? "", structures: named))
                return nil
            }
            return structure
        }
        if let first = remote.handshake?.structures.first { return first }
        err.line("error[missingStructure]: " + missingStructureMessage(hub: remote.handshake?.hubName ?? ""))
        return nil
    }

    /// A hub as journals and a fleet's records name it (``RemoteHubIdentity``): `unix:`/`tcp:` as given, a hub
    /// command by its program alone (` …` when it had arguments, which may hold tokens), and its handshake's name.
    static func identity(_ endpoint: HubEndpoint, spec: String, handshake: RemoteHub.Handshake?) -> RemoteHubIdentity {
        switch endpoint {
        case .command(let words):
            RemoteHubIdentity(
                endpoint: (words.first ?? spec) + (words.count > 1 ? " …" : ""), name: handshake?.hubName, instance: handshake?.hubInstance)
        case .unix, .tcp:
            RemoteHubIdentity(endpoint: spec, name: handshake?.hubName, instance: handshake?.hubInstance)
        }
    }

    /// The error of a `--structure` the hub's handshake does not name, as `run` and `hub check` print it.
    static func unknownStructure(_ structure: String, hub: String, structures: [String]) -> String {
        "error[unknownStructure]: " + unknownStructureMessage(structure, hub: hub, structures: structures)
    }

    /// ``unknownStructure(_:hub:structures:)`` without its `error[code]: ` prefix.
    /// Why a hub whose handshake names no structure cannot be used without `--structure` (`missingStructure`).
    static func missingStructureMessage(hub: String) -> String {
        "hub \(hub) names no structure in its handshake; pass --structure ID"
    }

    static func unknownStructureMessage(_ structure: String, hub: String, structures: [String]) -> String {
        "--structure \(structure): hub \(hub) has no such structure (structures: "
            + "\(structures.joined(separator: ", ")))\(SpellingSuggestion.hint(for: structure, among: structures))"
    }

    /// With `--hub`: reads the hub's handshake and reports, as warnings on `err`, the states of `workflow` that need
    /// a method the hub lacks. Returns the code to exit with when the command cannot go on (``HandshakeRead/exit(_:)``).
    static func reportUnsupported(
        _ workflow: Workflow, _ arguments: ParsedArguments, command: String, err: any TextSink,
        catalog: OperationCatalog = .standard, handlesInterrupts: Bool
    ) async throws(UsageError) -> Int32? {
        switch await handshake(try endpoint(arguments, command: command), err: err, handlesInterrupts: handlesInterrupts) {
        case .exit(let code):
            return code
        case .read(let handshake):
            if let handshake { MatterflowTool.report(HubSupportCheck.findings(workflow, handshake: handshake, catalog: catalog), to: err) }
            return nil
        }
    }
}

/// The hub a command talks to: the remote hub of `--hub`, else the simulated home (`--home`, `--state`).
struct CommandHub {
    let hub: any Hub
    /// The simulated home and its structure, when no `--hub` was given.
    let simulated: (hub: SimulatedHub, structureID: StructureID)?
    /// The remote hub, which ``close()`` disconnects.
    let remote: RemoteHub?

    /// Opens the hub; on failure, says why on `err` and returns nil (the command exits 2, or 128 + the signal when
    /// one of `signals` interrupted a remote hub's handshake). `seedsState`: see ``SimulatedHomeOpener/seedsState``.
    /// `secrets`: a command hub's standard error lines go to `err` with them taken out (nil: the hub writes on this
    /// process's standard error itself, as with `--show-secrets`).
    static func open(
        _ endpoint: HubEndpoint?, arguments: ParsedArguments, clock: any WorkflowClock, err: any TextSink, seedsState: Bool,
        signals: InterruptSignals?, secrets: SharedSecrets? = nil
    ) async -> CommandHub? {
        guard let endpoint else {
            do {
                let opened = try SimulatedHomeOpener(
                    homePath: arguments.value("home"), stateDirectory: arguments.value("state"), seedsState: seedsState
                ).open(clock: clock)
                MatterflowTool.report(opened.warnings, to: err)
                if let note = opened.note { err.line(note) }
                return CommandHub(hub: opened.hub, simulated: (opened.hub, opened.structureID), remote: nil)
            } catch {
                MatterflowTool.report(error.diagnostics, to: err)
                return nil
            }
        }
        var hubErrors: (@Sendable (String) -> Void)?
        if let secrets {
            hubErrors = { line in err.line(secrets.redacting(line)) }
        }
        guard let connected = await HubOption.connect(endpoint, signals: signals, standardError: hubErrors, report: HubOption.printing(to: err))
        else { return nil }
        return CommandHub(hub: connected.hub, simulated: nil, remote: connected)
    }

    /// The structure a run uses: the simulated home's, or `--structure` (else the hub's first) for a remote hub;
    /// nil, with a message on `err`, when a remote hub names none.
    func structure(_ arguments: ParsedArguments, err: any TextSink) -> StructureID? {
        if let simulated { return simulated.structureID }
        guard let remote else { return nil }
        return HubOption.structure(arguments, remote: remote, err: err)
    }

    func close() async { await remote?.close() }

    /// The remote hub as journals record it, so that recovery settles a run only against the hub it acted on; nil
    /// for the simulated home.
    func identity(_ arguments: ParsedArguments) -> RemoteHubIdentity? {
        guard let remote, let spec = arguments.value("hub"), let endpoint = try? HubEndpoint(parsing: spec) else { return nil }
        return HubOption.identity(endpoint, spec: spec, handshake: remote.handshake)
    }
}
