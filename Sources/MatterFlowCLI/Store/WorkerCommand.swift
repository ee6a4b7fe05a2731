import Foundation
import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
import MatterFlowStore
import Synchronization

/// `matterflow worker --store URL`: a member of the fleet. Claims queued runs, runs them with their records in the
/// store, heartbeats their leases, and settles the runs of workers that died.
struct WorkerCommand {
    static let spec = CommandSpec(
        name: "worker",
        abstract: "Run queued runs from a PostgreSQL run store, sharing the work with other workers.",
        arguments: [],
        options: [
            StoreOption.postgresOption,
            HubOption.option,
            .init(name: "home", valueName: "<file>", help: "Home description to simulate for every structure (default: the built-in home)."),
            .init(name: "state", valueName: "<dir>", help: "Keep each structure's simulated home in <dir>/<structure> (share it between workers)."),
            .init(name: "secrets", valueName: "<dir>", help: "Where the runs' secret inputs wait (as given to submit --secrets), where an output holding secrets is kept (<run>.output), and the key of the runs' secret digests (digest.key, made when missing)."),
            .init(name: "concurrency", valueName: "<n>", help: "Runs working at once (default 32; 1...1000); a run waiting for an answer, a delay or an event takes no slot."),
            .init(name: "max-waiting", valueName: "<n>", help: "Waiting runs held beyond --concurrency (default 1000; 0...1000000)."),
            .init(name: "lease", valueName: "<seconds>", help: "Lease length: another worker takes a run over this long after the last heartbeat (default 10; 1...3600)."),
            .init(name: "resume", valueName: nil, help: "Resume taken-over runs where safe, instead of taking their cancel path."),
            .init(name: "drain", valueName: "<seconds>", help: "On SIGTERM or SIGINT, how long runs may take to end or park (default 30; 1...3600); as long again for a run holding a secret to take its cancel path."),
            .init(name: "clock", valueName: "<kind>", help: "virtual (default with the simulated home) or real."),
            .init(name: "exit-when-idle", valueName: nil, help: "Stop once no run is queued or running in the store."),
            .init(
                name: "wait-for-store", valueName: "<seconds>",
                help: "At start, wait up to this long for the store to be reachable and migrated, instead of exiting 2 at once (default 0; 0...86400)."),
            .init(name: "worker-id", valueName: "<id>", help: "The worker's ID in the store (default: HOST-PID-XXXX); refused while a live worker has it (its heartbeat is watched for half its lease)."),
            .init(
                name: "log-format", valueName: "<format>",
                help: "text (default): lines as `worker W: ...`, `warning: ` or `error: ` before what needs a look; json: one {\"time\", \"level\", \"worker\", \"run\", \"runs\", \"message\"} object per line, for a log collector."),
            .init(
                name: "metrics-file", valueName: "<file>",
                help: "Write the worker's Prometheus metrics to this file after every heartbeat and when it stops, replaced atomically (for node_exporter's textfile collector)."),
        ],
        discussion: """
            Each run's journal records (intent before every hub call, outcome after) go to the store, written in
            batches across runs (group commit). A worker that dies loses its leases; another worker claims its
            runs once their lease runs out and settles them as `matterflow recover` does. One commissioning
            session per structure holds across the fleet: a second run preparing the structure gets sessionBusy.

            With the simulated home, workers on one machine share a structure's home through --state DIR.

            Its log (stderr) says when it claims, starts, ends, hands back or settles a run, one line each: as text
            (no times: a terminal needs none, and journald or a container runtime adds its own; under systemd, with
            standard error on the journal, each line starts with its syslog priority, <6>, <4> or <3>, which
            journald keeps as the line's priority: journalctl -p warning shows the warnings), or with
            --log-format json one object per line with a UTC time, a level (info, warning, error: a run that needs
            attention), the worker, the run ("run") and every run the line is about ("runs": a hand-back names
            several), its start and exit errors included. What a --hub command writes on its standard error comes
            into the log too, a line each (`hub: LINE`, level info, or as a leading syslog priority <N> says).

            --metrics-file FILE: the worker's counters since it started, labelled with its ID
            (matterflow_worker_runs_finished_total{status}, _taken_over_total, _handed_back_total, _records_total,
            _transactions_total, _claim_failures_total, _heartbeat_failures_total, _store_losses_total,
            _records_lost_total, _lease_confirmations_total) and gauges (runs active, waiting,
            claimed ahead; store reachable; stopping), rewritten every heartbeat (a third of --lease). Give each
            worker its own file; `matterflow store metrics` gives the fleet's queue and workers.

            SIGTERM, SIGINT or SIGHUP: stop claiming, let each run in progress end or park at its next checkpoint
            (before its next hub call; at most --drain seconds, 30 by default), hand the parked runs back to the
            queue (another worker resumes them from that checkpoint) and the others back for takeover, then exit 0
            (SIGTERM, or SIGPWR: LXC's stop), 130 (SIGINT), 129 (SIGHUP: a worker has no configuration to reload) or
            128 + the signal (SIGUSR1, SIGUSR2 or SIGALRM, whose default would end it at once; one the worker was
            started with ignored stays ignored). A second such signal
            ends the wait: the runs go back at once. SIGPIPE is ignored: a log reader that goes away does not end
            the worker (its lines are lost). A run holding a secret a hub call returned (an ePSKc share) does not park:
            another worker could only cancel it, so it runs on until it ends or the drain does, then takes its
            cancel path here (withdrawing the key) within --drain seconds more. Exit
            status otherwise: 0 (--exit-when-idle), 2 the store cannot be reached at start (or within
            --wait-for-store seconds, which also waits for a store not migrated yet), the secrets directory
            cannot be used, the hub cannot be reached at start, --metrics-file cannot be written, --worker-id is a
            live worker's, or the store was
            migrated under the worker (each said on stderr as error[CODE]), 64 usage error.
            """)

    /// A line a hub wrote on its standard error, as the worker logs it: a leading syslog priority (`<3>`, as a
    /// service writes for journald) becomes the line's level (0-3 error, 4 warning, 5-7 information) and is taken
    /// off; a line without one is information.
    static func hubLine(_ line: String) -> (WorkerLogLine.Level, String) {
        let bytes = Array(line.utf8.prefix(3))
        guard bytes.count == 3, bytes[0] == UInt8(ascii: "<"), bytes[2] == UInt8(ascii: ">"),
            let priority = Int(String(UnicodeScalar(bytes[1]))), (0...7).contains(priority)
        else { return (.info, line) }
        let level: WorkerLogLine.Level = priority <= 3 ? .error : priority == 4 ? .warning : .info
        return (level, String(line.dropFirst(3)))
    }

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() async throws(UsageError) -> Int32 {
        let err = environment.standardError
        let location = try StoreOption.value(arguments, command: Self.spec.name)
        if arguments.value("hub") != nil, let first = ["home", "state"].first(where: { arguments.value($0) != nil }) {
            throw UsageError(message: "--\(first) configures the simulated home and does not apply with --hub; drop one of them", command: Self.spec.name)
        }
        let concurrency = try arguments.wholeNumber("concurrency", default: 32, range: 1...1000, command: Self.spec.name)
        let maxWaiting = try arguments.wholeNumber("max-waiting", default: 1000, range: 0...1_000_000, command: Self.spec.name)
        let lease = try arguments.wholeNumber("lease", default: Int(WorkerOptions.defaultLeaseSeconds), range: 1...3600, command: Self.spec.name)
        let chosenID = try arguments.nonEmptyValue("worker-id", command: Self.spec.name)
        if let chosenID, let problem = WorkerOptions.workerIDProblem(chosenID) {
            throw UsageError(message: "--worker-id \(problem)", command: Self.spec.name)
        }
        let drain = try arguments.wholeNumber("drain", default: 30, range: 1...3600, command: Self.spec.name)
        let storeWait = try arguments.wholeNumber("wait-for-store", default: 0, range: 0...86_400, command: Self.spec.name)
        let printer = WorkerLogPrinter(
            format: try WorkerLogPrinter.format(arguments, command: Self.spec.name), err: err, priorities: environment.standardErrorIsJournal)
        // Found before the worker claims anything: a worker whose metrics never reach the file looks dead to its alerts.
        if let path = arguments.value("metrics-file"), let problem = AtomicFile.writeProblem(path) {
            printer.error(code: ReportFile.notWrittenCode, "--metrics-file \(path) cannot be written (\(problem)); give a file in a writable directory", workerID: chosenID)
            return ExitCode.invalidInput
        }
        // A file given as the directory is said as such, not as the digest key it would hold.
        var isDirectory: ObjCBool = false
        if let secrets = arguments.value("secrets"), FileManager.default.fileExists(atPath: secrets, isDirectory: &isDirectory), !isDirectory.boolValue {
            printer.error(
                code: "secretsUnavailable",
                "--secrets \(secrets) is no directory; give the directory given to `matterflow submit --secrets` (the runs' secret inputs wait there, and the key of their secret digests)",
                workerID: chosenID)
            return ExitCode.invalidInput
        }
        let endpoint: HubEndpoint?
        do {
            endpoint = try arguments.value("hub").map { spec throws(HubEndpoint.ParseError) in try HubEndpoint(parsing: spec) }
        } catch {
            throw UsageError(message: error.message, command: Self.spec.name)
        }
        let clock = try environment.clock(named: arguments.value("clock") ?? (endpoint == nil ? nil : "real"), command: Self.spec.name)
        let pid = Int(getpid())
        let host = ProcessInfo.processInfo.hostName
        let workerID = chosenID ?? "\(host)-\(pid)-\(SystemRandomSource().hexDigits(4))"
        // The simulated home is checked before the store is reached: a wrong file is said at once, wherever the store is.
        var initialHome: HomeDescription?
        if endpoint == nil {
            do {
                let loaded = try arguments.value("home").map { path throws(DiagnosticsError) in try HomeDescription.loadWithWarnings(path: path) }
                initialHome = loaded?.home
                printer.report(loaded?.warnings ?? [], workerID: chosenID)
            } catch {
                printer.report(error.diagnostics, workerID: chosenID)
                return ExitCode.invalidInput
            }
            if let state = arguments.value("state"), let problem = SimulatedHomes.stateDirectoryProblem(state) {
                printer.error(code: "invalidValue", "--state \(state): \(problem)", workerID: chosenID)
                return ExitCode.invalidInput
            }
        }
        guard let store = try await Self.openStore(location, workerID: workerID, waitingUpTo: storeWait, printer: printer) else {
            return ExitCode.invalidInput
        }

        // From before the hub starts: a signal stops its handshake, or the worker (which then hands its runs back).
        let signals = environment.handlesInterrupts ? InterruptSignals() : nil
        let hubs: StoreWorker.HubProvider
        let sharedSecrets = SharedSecrets(secretNames: OperationCatalog.standard.secretNames)
        var remote: ReconnectingHub?
        var remoteIdentity: RemoteHubIdentity?
        if let endpoint {
            let report: @Sendable (String, String) -> Void = { code, message in printer.error(code: code, message, workerID: workerID) }
            // A command hub's standard error goes into the worker's log, in its format (one JSON object a line), with
            // the secrets of the worker's runs taken out.
            let hubErrors: @Sendable (String) -> Void = { [sharedSecrets] line in
                let (level, text) = Self.hubLine(line)
                printer.print(WorkerLogLine(level: level, workerID: workerID, message: "hub: \(sharedSecrets.redacting(text))"))
            }
            guard let connected = await HubOption.connect(endpoint, signals: signals, standardError: hubErrors, report: report) else {
                signals?.stop()
                // SIGTERM stops a worker with success, before its hub answered as after (see the end).
                if let code = signals?.exitCode { return Self.stoppedAsAsked(code) ? ExitCode.success : code }
                return ExitCode.invalidInput
            }
            // A hub that restarts is connected to again at the next run that needs it.
            let reconnecting = ReconnectingHub(first: connected) {
                try await RemoteHub.connect(to: endpoint, options: HubOption.options(standardError: hubErrors))
            }
            remote = reconnecting
            remoteIdentity = arguments.value("hub").map { HubOption.identity(endpoint, spec: $0, handshake: connected.handshake) }
            hubs = { _ in try await reconnecting.hub() }
        } else {
            hubs = SimulatedHomes(initial: initialHome ?? HomeDescription.defaultHome, stateDirectory: arguments.value("state"), clock: clock).hub(for:)
        }

        var workerOptions = WorkerOptions(
            workerID: workerID, concurrency: concurrency, maxWaiting: maxWaiting, leaseSeconds: Double(lease), resume: arguments.flag("resume"),
            secrets: arguments.value("secrets").map(SecretInbox.init(directory:)), exitWhenIdle: arguments.flag("exit-when-idle"),
            drainSeconds: Double(drain), clock: clock, log: { printer.print($0) })
        workerOptions.remoteHub = remoteIdentity
        // Only a command hub's lines are logged; the simulated home's and a socket hub's are not read.
        if case .command = endpoint { workerOptions.sharedSecrets = sharedSecrets }
        let metricsFile = arguments.value("metrics-file").map { path in
            MetricsFileWriter(path: path) { message in printer.print(WorkerLogLine(level: .warning, workerID: workerID, message: message)) }
        }
        if let metricsFile { workerOptions.metrics = { metricsFile.write($0) } }
        let worker = StoreWorker(store: store, hubs: hubs, options: workerOptions)
        signals?.hears { signo in
            printer.print(
                WorkerLogLine(level: .info, workerID: workerID, message: "\(RunCommand.signalName(signo)) received (another one hands the runs back at once)"))
            worker.stop()
        }
        signals?.hearsAgain { signo in
            printer.print(
                WorkerLogLine(level: .info, workerID: workerID, message: "\(RunCommand.signalName(signo)) received again: the runs go back without waiting"))
            worker.hurry()
        }
        let summary: WorkerSummary
        // The file holds the worker's last word before it exits.
        defer { metricsFile?.finish() }
        do {
            summary = try await worker.run(host: host, pid: pid)
        } catch {
            signals?.stop()
            await remote?.close()
            printer.error(code: error.code.rawValue, error.message, workerID: workerID)
            return ExitCode.invalidInput
        }
        signals?.stop()
        await remote?.close()
        let finished = summary.finished.keys.sorted().map { "\($0) \(summary.finished[$0] ?? 0)" }.joined(separator: ", ")
        printer.print(
            WorkerLogLine(
                level: .info, workerID: workerID,
                message: "stopped; finished: \(finished.isEmpty ? "none" : finished); taken over \(summary.takenOver); handed back \(summary.handedBack); \(summary.records) records in \(summary.transactions) transactions"
                    + (summary.storeLosses == 0 ? "" : "; the store had lost records this worker committed, of \(summary.storeLosses) run\(summary.storeLosses == 1 ? "" : "s") (\(summary.recordsLost) record\(summary.recordsLost == 1 ? "" : "s"))")))
        if let changed = summary.schemaChanged {
            printer.error(code: changed.code.rawValue, changed.message, workerID: workerID)
            return ExitCode.invalidInput
        }
        // SIGTERM is the ordinary way to stop a worker: once its runs are handed back, that is a success.
        if let code = signals?.exitCode, !Self.stoppedAsAsked(code) { return code }
        return ExitCode.success
    }
}

extension WorkerCommand {
    /// What a worker's connections are named: `matterflow worker ID`, cut to the 63 bytes PostgreSQL keeps.
    static func applicationName(_ workerID: String) -> String {
        var name = "matterflow worker " + workerID
        while name.utf8.count > 63 { name.removeLast() }
        return name
    }

    /// Whether a worker interrupted with exit code `code` (128 + the signal) was stopped the way a service manager
    /// stops one (SIGTERM; on Linux SIGPWR, LXC's), and so exits 0 once drained.
    static func stoppedAsAsked(_ code: Int32) -> Bool {
        #if os(Linux)
            code == 128 + SIGTERM || code == 128 + SIGPWR
        #else
            code == 128 + SIGTERM
        #endif
    }

    /// The store, opened as a worker opens it; with `seconds` above 0, tried again every second for up to that long
    /// while it cannot be reached or is not migrated yet (a server or a migration job starting beside the worker),
    /// said once. Nil, the reason said, when it cannot be opened.
    /// Its connections are named `matterflow worker ID` in `pg_stat_activity`, unless the conninfo names them.
    static func openStore(
        _ location: String, workerID: String, waitingUpTo seconds: Int, printer: WorkerLogPrinter
    ) async throws(UsageError) -> PostgresRunStore? {
        guard PostgresRunStore.isPostgres(location) else {
            return try StoreOption.postgres(location, command: spec.name, err: printer.err, asClient: false)
        }
        let deadline = ContinuousClock.now + .seconds(seconds)
        var said = false
        while true {
            do throws(StoreError) {
                // A server starting up is waited for within --wait-for-store when it is given, as any outage is.
                let startupWait = seconds > 0 ? min(PostgresRunStore.startupWait, max(deadline - ContinuousClock.now, .zero)) : PostgresRunStore.startupWait
                let store = try PostgresRunStore(conninfo: location, applicationName: applicationName(workerID), startupWait: startupWait)
                // A standby or a read-only primary (reached with target_session_attrs=any) takes no writes: waited for
                // like a server down, as a failover promotes one, asked once so that --wait-for-store bounds the wait.
                if let refusal = try store.writeRefusal(retrying: false) {
                    throw StoreError(.storeUnavailable, "the server reached is \(refusal), which takes no writes; \(StoreError.readOnlyAdvice)")
                }
                if said { printer.print(WorkerLogLine(level: .info, workerID: nil, message: "the store is reachable and migrated; starting")) }
                return store
            } catch where (error.isOutOfReach || error.code == .schemaOutdated) && ContinuousClock.now < deadline {
                if !said {
                    printer.print(
                        WorkerLogLine(level: .warning, workerID: nil, message: "\(error.message); waiting up to \(seconds) s for it (--wait-for-store)"))
                    said = true
                }
                try? await Task.sleep(for: .seconds(1))
            } catch {
                printer.error(code: error.code.rawValue, error.message, workerID: nil)
                return nil
            }
        }
    }
}

/// The simulated home of each structure a worker's runs name: the same home description with the structure's ID,
/// kept in `<state>/<structure>/home.json` when a state directory is given (so workers on one machine share it).
final class SimulatedHomes: Sendable {
    private let initial: HomeDescription
    private let stateDirectory: String?
    private let clock: any WorkflowClock
    private let hubs = Mutex<[StructureID: SimulatedHub]>([:])

    init(initial: HomeDescription, stateDirectory: String?, clock: any WorkflowClock) {
        self.initial = initial
        self.stateDirectory = stateDirectory
        self.clock = clock
    }

    /// Why `path` cannot hold the structures' homes, or nil: it is a directory this process can write in, or one
    /// it could make. Checked when a worker starts, so that a wrong path stops it there rather than failing every
    /// run it claims.
    static func stateDirectoryProblem(_ path: String) -> String? {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else { return "is not a directory; name a directory for the simulated homes (it is made if missing)" }
            guard FileManager.default.isWritableFile(atPath: path) else { return "cannot be written in by this user; pick another directory or fix its permissions" }
            return nil
        }
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            return nil
        } catch {
            return "does not exist and cannot be made (\(error.localizedDescription)); pick a directory this user can write in"
        }
    }

    /// The directory in the state directory that keeps a structure's home: the structure ID itself when it can name
    /// one, as most IDs can; otherwise the ID with `%`, `/`, control characters and a leading `.` written as `%XX`
    /// (`../x` is `%2E.%2Fx`), and an ID longer than 200 bytes so written cut there, `~` and its FNV-1a hash after it.
    /// Any structure ID a hub could have has a home of its own, inside the state directory.
    static func directoryName(for structure: StructureID) -> String {
        var name = ""
        for (offset, scalar) in structure.unicodeScalars.enumerated() {
            let escaped = scalar == "%" || scalar == "/" || scalar.value < 0x20 || scalar.value == 0x7F || (offset == 0 && scalar == ".")
            if escaped {
                name += String(format: "%%%02X", scalar.value)
            } else {
                name.unicodeScalars.append(scalar)
            }
        }
        if name.isEmpty { return "%" }
        guard name.utf8.count > 200 else { return name }
        var cut = ""
        for scalar in name.unicodeScalars {
            guard cut.utf8.count + String(scalar).utf8.count <= 200 else { break }
            cut.unicodeScalars.append(scalar)
        }
        return cut + "~" + String(format: "%016llx", seed(0, for: structure))
    }

    /// `seed` mixed with the structure ID's UTF-8 bytes (64-bit FNV-1a): what seeds a structure's home's IDs.
    static func seed(_ seed: UInt64, for structure: StructureID) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        for byte in structure.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }

    @Sendable func hub(for structure: StructureID) async throws -> any Hub {
        if let hub = hubs.withLock({ $0[structure] }) { return hub }
        var home = initial
        home.structure.id = structure
        // Each structure's home issues IDs of its own (sessions, requests, devices), so that the fleet's logs tell
        // them apart: its seed mixes in the structure ID (FNV-1a, the same on every machine and every run).
        home.seed = Self.seed(initial.seed, for: structure)
        let hub: SimulatedHub
        if let stateDirectory {
            let store = try HomeStateStore(directory: stateDirectory + "/" + Self.directoryName(for: structure), startingFrom: home)
            hub = try SimulatedHub(stateStore: store, clock: clock)
            // Workers share these homes, each on a clock of its own: leases they persist are kept in wall time.
            await hub.followWallClock()
        } else {
            hub = try SimulatedHub(home: home, clock: clock)
        }
        return hubs.withLock { hubs in
            if let existing = hubs[structure] { return existing }
            hubs[structure] = hub
            return hub
        }
    }
}
