import Foundation
import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization

/// `matterflow hub serve`: serves the simulated home over the hub protocol, on standard input and output or on a
/// socket.
struct HubServeCommand {
    static let spec = CommandSpec(
        name: "hub serve",
        abstract: "Serve the simulated home over the hub protocol (stdio, or a socket with --listen).",
        arguments: [],
        options: [
            .init(name: "home", valueName: "<file>", help: "Home description to simulate (default: the built-in home)."),
            .init(name: "state", valueName: "<dir>", help: "Keep the simulated home in this directory between runs."),
            .init(name: "listen", valueName: "<address>", help: "unix:PATH or tcp:HOST:PORT (port 0: any free port) instead of stdio."),
        ],
        discussion: """
            Speaks the hub protocol (docs/hub-protocol.md) for the simulated home, with every method and events.
            Without --listen it serves one client on standard input and output and exits when its input ends,
            once it has answered every request received (a call still running finishes, or is cancelled after
            its operation's default timeout);
            with --listen it serves every client that connects until SIGINT or SIGTERM (then it removes a Unix
            socket's file). It prints "listening on ADDRESS" to stderr once ready. The home runs on real time.
            --home and --state work as for `matterflow run`.

            Exit status: 0 when the client closed the connection or on SIGTERM, 130 on SIGINT, 2 invalid home or
            an address it cannot listen on, 64 usage error.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() async throws(UsageError) -> Int32 {
        let err = environment.standardError
        let listen: HubEndpoint?
        do {
            listen = try arguments.value("listen").map { spec throws(HubEndpoint.ParseError) in try HubEndpoint(parsing: spec, listening: true) }
        } catch {
            throw UsageError(message: error.message.replacingOccurrences(of: "--hub", with: "--listen"), command: Self.spec.name)
        }
        if case .command? = listen, let given = arguments.value("listen") {
            throw UsageError(
                message: "--listen takes unix:PATH or tcp:HOST:PORT, not \"\(given)\"", command: Self.spec.name)
        }
        let clock = environment.clock ?? SystemClock()
        let hub: SimulatedHub
        let structureID: StructureID
        do {
            let opened = try SimulatedHomeOpener(
                homePath: arguments.value("home"), stateDirectory: arguments.value("state"), seedsState: true
            ).open(clock: clock)
            (hub, structureID) = (opened.hub, opened.structureID)
            MatterflowTool.report(opened.warnings, to: err)
            if let note = opened.note { err.line(note) }
        } catch {
            MatterflowTool.report(error.diagnostics, to: err)
            return ExitCode.invalidInput
        }
        var identity = HubServer.Identity(
            name: "matterflow-simulator", version: MatterflowTool.version, structures: [structureID])
        // A home kept in a state directory is this hub's state: its instance ID is kept beside it.
        if let state = arguments.value("state") {
            do throws(AtomicFile.WriteError) {
                identity.instance = try Self.instanceID(in: state)
            } catch {
                err.line("error[invalidValue]: --state \(state): the hub's instance ID cannot be kept there: \(error)")
                return ExitCode.invalidInput
            }
        }
        guard let listen else {
            // A client that goes away must not end this process with SIGPIPE.
            signal(SIGPIPE, SIG_IGN)
            let server = HubServer(
                hub: hub, channel: FileDescriptorChannel(.pipes(read: dup(0), write: dup(1)), writesAfterEndOfInput: true),
                identity: identity)
            await server.waitUntilClosed()
            return ExitCode.success
        }
        let listener: HubListener
        do {
            listener = try HubListener(endpoint: listen)
        } catch {
            err.line("error[\(error.cause.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
        signal(SIGPIPE, SIG_IGN)
        // Each server keeps itself alive through its channel until the client disconnects.
        listener.accept(onTrouble: { err.line("warning: \($0)") }) { [identity] channel in _ = HubServer(hub: hub, channel: channel, identity: identity) }
        // Caught before the address is told: a stop sent as soon as it is read is never missed.
        let stop = InterruptSignals([SIGINT, SIGTERM])
        err.line("listening on \(listener.address)")
        let received = await stop.firstSignal()
        stop.stop()
        listener.stop()
        return received == SIGINT ? ExitCode.interrupted : ExitCode.success
    }

    /// The instance ID kept in `directory/instance`, made (16 random hex digits) when the file is missing. Two hubs
    /// starting at once on a fresh directory agree: the first to publish its file (a hard link, which fails when the
    /// name exists) wins, and the other reads it back. A file that exists but cannot be read is an error, never a
    /// reason to make another ID (runs recorded with the kept one would look as if they ran elsewhere).
    static func instanceID(in directory: String) throws(AtomicFile.WriteError) -> String {
        let path = directory + "/instance"
        func kept() throws(AtomicFile.WriteError) -> String? {
            guard FileManager.default.fileExists(atPath: path) else { return nil }
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw AtomicFile.WriteError(step: "cannot read \(path)", reason: "check its permissions; it holds this hub's instance ID")
            }
            let id = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard RemoteHub.Handshake.isInstanceID(id) else {
                throw AtomicFile.WriteError(
                    step: "\(path) holds no instance ID", reason: "it must be 1 to 200 bytes on one line; remove the file to have one made")
            }
            return id
        }
        if let id = try kept() { return id }
        let made = "simulator-" + SystemRandomSource().hexDigits(16)
        try AtomicFile.createDirectory(directory)
        let draft = directory + "/.instance.\(getpid()).\(SystemRandomSource().hexDigits(8))"
        try AtomicFile.write(made + "\n", to: draft, mode: 0o644)
        defer { unlink(draft) }
        if link(draft, path) == 0 { return made }
        guard errno == EEXIST, let id = try kept() else {
            throw AtomicFile.WriteError(step: "cannot create \(path)", reason: String(cString: strerror(errno)))
        }
        return id
    }
}
