import MatterFlowJSON
import MatterFlowStore

/// `matterflow workers --store URL`: the fleet's workers, whether each still heartbeats, and the runs it holds.
struct WorkersCommand {
    static let spec = CommandSpec(
        name: "workers",
        abstract: "List the workers of a PostgreSQL run store: alive, stopping, stopped or silent, and the runs each holds.",
        arguments: [],
        options: [
            StoreOption.postgresOption,
            .init(name: "all", valueName: nil, help: "Also list workers that stopped cleanly."),
            .init(name: "json", valueName: nil, help: "Print the workers as a JSON array."),
            .init(
                name: "check", valueName: nil,
                help: "Check the fleet's health instead, for a monitoring probe: exit 1 with the problems when fewer than --min-workers run, one is built for another schema, or a dead worker's runs wait for a takeover."),
            .init(name: "min-workers", valueName: "<n>", help: "With --check: how many workers must run (default 1; 0...10000)."),
        ],
        discussion: """
            STATE: running (it heartbeats and claims runs), stopping (it drains after SIGTERM or SIGINT and claims
            nothing more), stopped (it drained and exited; listed with --all), silent (no heartbeat for longer than
            its lease: it died, hangs, or lost the store). HEARTBEAT is how long ago the last one was, by the store's
            clock. RUNS counts the runs it holds under a current lease; NOTES counts those whose lease ran out, which
            another worker takes over at its next look (`matterflow runs --store URL` marks them). A silent worker
            that holds no run needs nothing done; `matterflow store prune --older-than AGE` removes its row once its
            last heartbeat is older than AGE, as it does a stopped worker's.

            --check prints `ok: N workers running, holding M runs`, or the number of problems and one `problem: ...`
            line each (with --json, {"healthy", "running", "held", "problems"}, also when the store cannot be read:
            healthy false, running and held null, exit 2): fewer running workers than
            --min-workers (default 1), with how many runs wait (queued, and held by workers gone); a running or stopping worker built for another store schema; a silent worker
            whose runs have waited for a takeover three leases or more (no running worker takes them); a server that
            takes no writes, a standby (in recovery) or a primary with default_transaction_read_only on (reached
            when --store, PGTARGETSESSIONATTRS or a service file allows any server); a store that
            did not answer within 5 s because another session holds a lock on its tables (VACUUM FULL, CLUSTER,
            REINDEX, ALTER TABLE, LOCK: the workers' heartbeats wait behind it too). Without --check, such a lock
            is an error (storeLocked, exit 2). A statement not answered within 10 s (a pooler holding statements,
            such as pgbouncer's PAUSE, or a server stopped) is the store out of reach (storeUnavailable, exit 2).

            Exit status: 0 (with --check: healthy), 1 with --check when the fleet has a problem, 2 when the store
            cannot be read, 64 usage error.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() throws(UsageError) -> Int32 {
        let location = try StoreOption.value(arguments, command: Self.spec.name)
        let check = arguments.flag("check")
        if arguments.value("min-workers") != nil, !check {
            throw UsageError(message: "--min-workers applies to --check; add --check", command: Self.spec.name)
        }
        if check, arguments.flag("all") {
            throw UsageError(message: "--check looks at every worker already; drop --all", command: Self.spec.name)
        }
        let minimum = try arguments.wholeNumber("min-workers", default: 1, range: 0...10_000, command: Self.spec.name)
        try StoreOption.requirePostgres(location, command: Self.spec.name)
        let workers: [StoredWorker]
        let storeSchema: Int
        let queued: Int
        let writeRefusal: WriteRefusal?
        do {
            let store = try StoreOption.probe(location, command: Self.spec.name)
            workers = try store.workers(includingStopped: arguments.flag("all") || check)
            storeSchema = check ? try store.schemaVersion() : StoreMigrations.latest
            queued = check ? try store.queuedRuns() : 0
            writeRefusal = check ? try store.writeRefusal(serverWide: true) : nil
        } catch {
            if check, error.code == .storeLocked {
                return report(FleetHealth.unanswered(within: StoreOption.probeLockWaitSeconds))
            }
            environment.standardError.line("error[\(error.code.rawValue)]: \(error.message)")
            // A monitoring system that parses the probe's JSON gets an answer it can read, unhealthy, as well.
            if check, arguments.flag("json") { environment.standardOutput.line(JSONWriter.pretty(FleetHealth.unreadable(error).jsonValue)) }
            return ExitCode.invalidInput
        }
        if check {
            return report(FleetHealth(workers: workers, minimumRunning: minimum, storeSchema: storeSchema, queued: queued, writeRefusal: writeRefusal))
        }
        return StoreListing.show(
            workers, json: arguments.flag("json"), jsonValue: \.jsonValue,
            empty: arguments.flag("all") ? "no worker has registered in the store" : "no worker is registered but stopped ones (--all lists them)",
            header: ["WORKER", "HOST", "PID", "STATE", "HEARTBEAT", "STARTED (UTC)", "RUNS", "VERSION", "NOTES"], environment: environment
        ) { worker in
            var notes: [String] = []
            if worker.expiredRuns > 0 {
                notes.append("\(worker.expiredRuns) run\(worker.expiredRuns == 1 ? "" : "s") with an expired lease, to be taken over")
            }
            if worker.leaseSeconds == nil { notes.append("registered before migration 11: lease assumed \(Int(WorkerOptions.defaultLeaseSeconds)) s") }
            if worker.state != .stopped, let schema = worker.schemaVersion, schema != StoreMigrations.latest {
                notes.append("built for schema \(schema), this MatterFlow for \(StoreMigrations.latest)")
            }
            return [[
                worker.workerID, worker.host, String(worker.pid), worker.state.rawValue, Self.age(worker.heartbeatAge),
                RunsCommand.timestamp(worker.startedAt), String(worker.leasedRuns),
                worker.matterflowVersion.map { "\($0)/\(worker.schemaVersion.map(String.init) ?? "?")" } ?? "-", notes.joined(separator: "; "),
            ]]
        }
    }

    /// Prints the probe's answer; its exit status.
    private func report(_ health: FleetHealth) -> Int32 {
        if arguments.flag("json") {
            environment.standardOutput.line(JSONWriter.pretty(health.jsonValue))
        } else {
            environment.standardOutput.line(health.summary)
            for problem in health.problems { environment.standardOutput.line(TerminalText.escaping("problem: \(problem)")) }
        }
        return health.problems.isEmpty ? ExitCode.success : ExitCode.failure
    }

    /// `4 s ago`, `12 min ago`, `3 h ago`, `2 d ago`.
    static func age(_ seconds: Double) -> String {
        let whole = Int(max(0, seconds).rounded(.down))
        switch whole {
        case ..<120: return "\(whole) s ago"
        case ..<7200: return "\(whole / 60) min ago"
        case ..<172_800: return "\(whole / 3600) h ago"
        default: return "\(whole / 86400) d ago"
        }
    }
}
