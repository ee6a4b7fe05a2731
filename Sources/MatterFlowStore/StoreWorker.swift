import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import Synchronization

/// How a worker runs.
public struct WorkerOptions: Sendable {
    /// The worker's ID in the store (`host-pid-xxxx` by default in the CLI).
    public var workerID: String
    /// Runs at most this many runs at once.
    public var concurrency: Int
    /// How long a claim lasts without a heartbeat; another worker takes the runs over after it.
    public var leaseSeconds: Double
    /// How often the worker looks for work when the store has not announced any.
    public var pollMilliseconds: Int
    /// Resume taken-over runs where that is safe (`matterflow recover --resume`), instead of taking their cancel path.
    public var resume: Bool
    /// Where the runs' secret inputs wait (``SecretInbox``); nil when the runs have none.
    public var secrets: SecretInbox?
    /// Stop once the store has no queued and no running run left (tests and batch jobs).
    public var exitWhenIdle: Bool
    /// How long graceful shutdown waits for running runs before it hands them back.
    public var drainSeconds: Double
    /// Loads workflows; its catalog is the one runs use (wrapped for the fleet's session lock).
    public var engine: WorkflowEngine
    /// The clock of the runs' timeouts and retries.
    public var clock: any WorkflowClock
    /// Told what the worker does, one line per event (the CLI prints them); nil for silence.
    public var log: (@Sendable (String) -> Void)?

    public init(
        workerID: String, concurrency: Int = 8, leaseSeconds: Double = 10, pollMilliseconds: Int = 100,
        resume: Bool = false, secrets: SecretInbox? = nil, exitWhenIdle: Bool = false, drainSeconds: Double = 30,
        engine: WorkflowEngine = WorkflowEngine(), clock: any WorkflowClock = SystemClock(),
        log: (@Sendable (String) -> Void)? = nil
    ) {
        self.workerID = workerID
        self.concurrency = concurrency
        self.leaseSeconds = leaseSeconds
        self.pollMilliseconds = pollMilliseconds
        self.resume = resume
        self.secrets = secrets
        self.exitWhenIdle = exitWhenIdle
        self.drainSeconds = drainSeconds
        self.engine = engine
        self.clock = clock
        self.log = log
    }
}

/// What a worker did before it stopped.
public struct WorkerSummary: Sendable, Hashable {
    /// Runs it started and finished, by final status.
    public var finished: [String: Int] = [:]
    /// Runs whose worker died that it settled (recovery) or started afresh (they had not begun).
    public var takenOver: Int = 0
    /// Runs it handed back at shutdown.
    public var handedBack: Int = 0
}

/// A member of a fleet: claims queued runs from a ``PostgresRunStore``, runs them through the journal's public API
/// with their records in the store, heartbeats their leases, and settles the runs of workers whose leases ran out
/// with the same reconcile-then-cancel-or-resume logic as `matterflow recover` (see `docs/store.md`).
public final class StoreWorker: Sendable {
    public typealias HubProvider = @Sendable (StructureID) async throws -> any Hub

    private struct State {
        var active: [String: Task<Void, Never>] = [:]
        var summary = WorkerSummary()
        var stopping = false
    }

    public let store: PostgresRunStore
    public let options: WorkerOptions
    private let hubs: HubProvider
    private let committer: GroupCommitter
    private let engine: WorkflowEngine
    private let state = Mutex(State())

    /// - Parameter hubs: The hub for a structure (each run asks for its own structure's).
    public init(store: PostgresRunStore, hubs: @escaping HubProvider, options: WorkerOptions) {
        self.store = store
        self.options = options
        self.hubs = hubs
        committer = GroupCommitter(conninfo: store.conninfo, workerID: options.workerID)
        engine = WorkflowEngine(catalog: FleetSessionGuard(store: store, committer: committer).wrapping(options.engine.catalog))
    }

    /// Asks the worker to stop: it claims nothing more, waits up to ``WorkerOptions/drainSeconds`` for its runs,
    /// and hands the rest back.
    public func stop() {
        state.withLock { $0.stopping = true }
    }

    /// The group commit's batches and records so far.
    public var commitStatistics: (batches: Int, records: Int) { committer.statistics }

    /// Works until ``stop()`` (or, with ``WorkerOptions/exitWhenIdle``, until the store has nothing left to do).
    /// - Throws: ``StoreError`` when the store cannot be reached at start.
    public func run(host: String, pid: Int) async throws(StoreError) -> WorkerSummary {
        do throws(StoreError) {
            try store.registerWorker(options.workerID, host: host, pid: pid)
        } catch {
            committer.shutdown()
            throw error
        }
        options.log?("worker \(options.workerID): claiming runs from \(store.name)")
        // Heartbeats run on a thread of their own: runs waiting for their records to commit block the shared
        // pool's threads, and must not delay the leases.
        let heartbeat = LeaseKeeper(intervalMilliseconds: Int(options.leaseSeconds * 1000 / 3)) { [self] in
            do throws(StoreError) {
                let running = state.withLock { Array($0.active.keys) }
                try store.heartbeat(options.workerID, running: running, leaseSeconds: options.leaseSeconds)
            } catch {
                options.log?("worker \(options.workerID): heartbeat failed: \(error.message)")
            }
        }
        defer { heartbeat.stop() }
        while !state.withLock({ $0.stopping }) {
            let free = options.concurrency - state.withLock { $0.active.count }
            var claimed: [ClaimedRun] = []
            if free > 0 {
                do {
                    claimed = try store.claimExpired(by: options.workerID, limit: free, leaseSeconds: options.leaseSeconds)
                    if claimed.count < free {
                        claimed += try store.claimQueued(by: options.workerID, limit: free - claimed.count, leaseSeconds: options.leaseSeconds)
                    }
                } catch {
                    options.log?("worker \(options.workerID): claiming failed: \(error.message); trying again")
                }
            }
            for run in claimed { launch(run) }
            if claimed.isEmpty {
                if options.exitWhenIdle, state.withLock({ $0.active.isEmpty }), (try? store.isIdle()) == true { break }
                try? await Task.sleep(for: .milliseconds(options.pollMilliseconds))
            } else {
                await Task.yield()
            }
        }
        await drain()
        committer.shutdown()
        return state.withLock { $0.summary }
    }

    /// Waits for the running runs (bounded), then hands the rest back.
    private func drain() async {
        let deadline = ContinuousClock.now + .milliseconds(Int(options.drainSeconds * 1000))
        while !state.withLock({ $0.active.isEmpty }) && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(20))
        }
        let left = state.withLock { state -> [String: Task<Void, Never>] in
            defer { state.active.removeAll() }
            return state.active
        }
        guard !left.isEmpty else { return }
        do {
            try store.handBack(Array(left.keys), by: options.workerID)
            options.log?("worker \(options.workerID): handed back \(left.count) run(s): \(left.keys.sorted().joined(separator: ", "))")
            state.withLock { $0.summary.handedBack += left.count }
        } catch {
            options.log?("worker \(options.workerID): could not hand runs back (\(error.message)); their leases run out instead")
        }
        for task in left.values { task.cancel() }
    }

    private func launch(_ claimed: ClaimedRun) {
        let task = Task { [self] in
            await execute(claimed)
            _ = state.withLock { $0.active.removeValue(forKey: claimed.runID) }
        }
        state.withLock { $0.active[claimed.runID] = task }
    }

    /// Runs or settles one claimed run and records its final status.
    private func execute(_ claimed: ClaimedRun) async {
        let runID = claimed.runID
        let sink = PostgresJournalSink(runID: runID, committer: committer, store: store)
        var secrets: JSONObject = [:]
        if !claimed.secretInputs.isEmpty {
            do throws(StoreError) {
                guard let inbox = options.secrets else {
                    throw StoreError(.secretsUnavailable, "run \(runID) has secret inputs (\(claimed.secretInputs.joined(separator: ", "))) and this worker has no --secrets directory")
                }
                secrets = try inbox.take(runID: runID)
            } catch {
                // Without its secrets a run that has not begun cannot; one that has is settled on its cancel path.
                options.log?("worker \(options.workerID): \(error.message)")
                if !claimed.takeover {
                    conclude(runID, status: "failed", output: nil, error: Self.errorJSON(code: "secretsUnavailable", message: error.message), recovered: false, notes: [], structure: claimed.structureID)
                    return
                }
            }
        }
        let hub: any Hub
        do {
            hub = try await hubs(claimed.structureID)
        } catch {
            options.log?("worker \(options.workerID): no hub for structure \(claimed.structureID) (\(error)); run \(runID) is handed back")
            try? store.handBack([runID], by: options.workerID)
            return
        }
        let records = claimed.takeover ? ((try? store.records(of: runID, after: 0)) ?? []) : []
        if claimed.takeover && records.contains(where: { $0.type == JournalEntry.Kind.runStarted.rawValue }) {
            await settle(claimed, records: records, hub: hub, sink: sink, secrets: secrets)
            return
        }
        if claimed.takeover {
            state.withLock { $0.summary.takenOver += 1 }
            options.log?("worker \(options.workerID): run \(runID) had not begun on its first worker; starting it")
        }
        let workflow: Workflow
        do {
            workflow = try engine.load(path: claimed.workflowFile)
        } catch {
            let message = error.diagnostics.first?.description ?? "invalid workflow"
            conclude(runID, status: "failed", output: nil, error: Self.errorJSON(code: "invalidWorkflow", message: message), recovered: false, notes: [], structure: claimed.structureID)
            return
        }
        var inputs = claimed.inputs
        for name in claimed.secretInputs { inputs[name] = secrets[name] }
        let handle: RunHandle
        do {
            handle = try SinkJournal.start(
                workflow, inputs: inputs, on: hub,
                options: RunOptions(structureID: claimed.structureID, clock: options.clock, runID: runID),
                engine: engine, sink: sink)
        } catch {
            conclude(runID, status: "failed", output: nil, error: Self.errorJSON(code: "invalidInput", message: "\(error)"), recovered: false, notes: [], structure: claimed.structureID)
            return
        }
        let result = await withTaskCancellationHandler {
            await handle.result
        } onCancel: {
            handle.cancel()
        }
        guard !Task.isCancelled else { return }
        conclude(
            runID, status: result.outcome.rawValue, output: result.output,
            error: result.error.map { Self.errorJSON(code: $0.cause.rawValue, message: $0.message) }, recovered: false,
            notes: [], structure: claimed.structureID, keepSession: result.outcome == .succeeded)
    }

    /// Settles a run whose worker died, from its records.
    private func settle(_ claimed: ClaimedRun, records: [JournalRecord], hub: any Hub, sink: PostgresJournalSink, secrets: JSONObject) async {
        state.withLock { $0.summary.takenOver += 1 }
        options.log?("worker \(options.workerID): settling run \(claimed.runID) (its worker's lease ran out)")
        let recovery = await SinkJournal.recover(
            runID: claimed.runID, records: records, sink: sink, on: hub,
            options: RecoveryOptions(resume: options.resume, inputs: secrets, engine: engine, clock: options.clock))
        let status: String
        switch recovery.status {
        case .succeeded, .failed, .cancelled: status = recovery.status.rawValue
        case .running, .interrupted, .notStarted, .needsAttention, .unreadable: status = "needsAttention"
        }
        let finished = (try? store.records(of: claimed.runID, after: 0))?.last { $0.type == JournalEntry.Kind.runFinished.rawValue }
        conclude(
            claimed.runID, status: status, output: finished?.payload["output"].flatMap { $0.isNull ? nil : $0 },
            error: finished?.payload["error"].flatMap { $0.isNull ? nil : $0 }, recovered: true, notes: recovery.notes,
            structure: claimed.structureID, keepSession: status == "succeeded")
    }

    /// Records a final status (fenced by the lease) and lets go of what the run held in the store.
    private func conclude(
        _ runID: String, status: String, output: JSONValue?, error: JSONValue?, recovered: Bool, notes: [String],
        structure: StructureID, keepSession: Bool = false
    ) {
        do {
            if !keepSession { try store.releaseSession(structure: structure, runID: runID) }
            let recorded = try store.finish(
                runID, by: options.workerID, status: status, output: output, error: error, recovered: recovered, notes: notes)
            guard recorded else {
                options.log?("worker \(options.workerID): run \(runID) was taken over by another worker; its status is theirs to record")
                return
            }
            options.secrets?.remove(runID: runID)
            state.withLock { $0.summary.finished[status, default: 0] += 1 }
            options.log?("worker \(options.workerID): run \(runID) \(status)\(recovered ? " (settled after takeover)" : "")")
        } catch {
            options.log?("worker \(options.workerID): could not record the end of run \(runID) (\(error.message)); its lease will run out and another worker settles it")
        }
    }

    static func errorJSON(code: String, message: String) -> JSONValue {
        ["code": .string(code), "message": .string(message)]
    }
}

extension PostgresRunStore {
    /// Whether no run is queued or running (a worker with ``WorkerOptions/exitWhenIdle`` then stops).
    public func isIdle() throws(StoreError) -> Bool {
        let rows = try execute(
            "SELECT count(*) FROM matterflow_runs WHERE status IN ('queued', 'running')", doing: "counting open runs")
        return rows.rows.first?.first == "0"
    }
}
