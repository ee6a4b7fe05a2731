import MatterFlowJSON

/// A worker of the fleet as `matterflow workers` lists it: who it is, whether it still heartbeats, and the runs
/// it holds.
public struct StoredWorker: Sendable, Hashable {
    /// Where the worker is in its life, as the store sees it.
    public enum State: String, Sendable, Hashable, CaseIterable {
        /// It heartbeats, and claims runs.
        case running
        /// It heartbeats, and is draining (SIGTERM or SIGINT): it claims nothing more.
        case stopping
        /// It drained and exited.
        case stopped
        /// It has not heartbeaten for longer than its lease: it died, hangs, or lost the store. Its runs' leases run
        /// out, and other workers take them over.
        case silent
    }

    /// The worker's ID in the store (``WorkerOptions/workerID``).
    public var workerID: String
    /// The host the worker registered from, as it gave it.
    public var host: String
    /// The worker's process ID on ``host``.
    public var pid: Int
    /// When it registered, in seconds since the Unix epoch.
    public var startedAt: Double
    /// Seconds since its last heartbeat, by the store's clock.
    public var heartbeatAge: Double
    /// Its lease length; nil for a worker registered before migration 11 (then 10 s, the default, is assumed).
    public var leaseSeconds: Double?
    /// Where the worker is in its life: running, stopping, stopped or silent.
    public var state: State
    /// Runs it holds under a current lease.
    public var leasedRuns: Int
    /// Runs it holds whose lease has run out: another worker takes them over at its next look.
    public var expiredRuns: Int
    /// The schema the worker was built for; nil for one registered by a MatterFlow from before migration 13.
    public var schemaVersion: Int? = nil
    /// The worker's MatterFlow version (``MatterFlowVersion``); nil for one from before migration 13.
    public var matterflowVersion: String? = nil

    /// The worker as JSON (`matterflow workers --json`).
    public var jsonValue: JSONValue {
        [
            "workerID": .string(workerID), "host": .string(host), "pid": .int(pid), "startedAt": .double(startedAt),
            "heartbeatAge": .double(heartbeatAge), "leaseSeconds": leaseSeconds.map(JSONValue.double) ?? .null,
            "state": .string(state.rawValue), "leasedRuns": .int(leasedRuns), "expiredRuns": .int(expiredRuns),
            "schemaVersion": schemaVersion.map(JSONValue.int) ?? .null, "matterflowVersion": matterflowVersion.map(JSONValue.string) ?? .null,
        ]
    }

    /// The state a worker's row says: stopped when it said so; else silent once it has missed heartbeats for
    /// longer than its lease (``silentCondition``); else stopping or running, by its flag.
    static func state(stoppedCleanly: Bool, stopping: Bool, silent: Bool) -> State {
        if stoppedCleanly { return .stopped }
        if silent { return .silent }
        return stopping ? .stopping : .running
    }

    /// A worker row `w` (`matterflow_workers`) has not heartbeaten for longer than its lease, as an SQL condition: a
    /// live worker heartbeats three times per lease; a row from before migration 11 (no lease) is given the default.
    /// `matterflow workers` and `store prune` both decide "silent" by it.
    static let silentCondition =
        "w.heartbeat_at < now() - make_interval(secs => coalesce(w.lease_seconds, \(WorkerOptions.defaultLeaseSeconds)))"
}

extension PostgresRunStore {
    /// The fleet's workers, oldest first; stopped ones only with `includingStopped`.
    public func workers(includingStopped: Bool = false) throws(StoreError) -> [StoredWorker] {
        let rows = try execute(
            """
            SELECT w.worker_id, w.host, w.pid, extract(epoch FROM w.started_at)::float8,
                   extract(epoch FROM now() - w.heartbeat_at)::float8, w.lease_seconds, w.stopped_at IS NOT NULL, w.stopping,
                   \(StoredWorker.silentCondition),
                   (SELECT count(*) FROM matterflow_runs r
                    WHERE r.worker_id = w.worker_id AND r.status = 'running' AND r.lease_until >= now()),
                   (SELECT count(*) FROM matterflow_runs r
                    WHERE r.worker_id = w.worker_id AND r.status = 'running' AND r.lease_until < now()),
                   w.schema_version, w.matterflow_version
            FROM matterflow_workers w
            WHERE $1::boolean OR w.stopped_at IS NULL
            ORDER BY w.started_at, w.worker_id
            """, [includingStopped ? "true" : "false"], doing: "listing the workers")
        return rows.rows.map { row in
            let age = row[4].flatMap(Double.init) ?? 0
            let lease = row[5].flatMap(Double.init)
            return StoredWorker(
                workerID: row[0] ?? "", host: row[1] ?? "", pid: row[2].flatMap { Int($0) } ?? 0,
                startedAt: row[3].flatMap(Double.init) ?? 0, heartbeatAge: age, leaseSeconds: lease,
                state: StoredWorker.state(stoppedCleanly: row[6] == "t", stopping: row[7] == "t", silent: row[8] == "t"),
                leasedRuns: row[9].flatMap { Int($0) } ?? 0, expiredRuns: row[10].flatMap { Int($0) } ?? 0,
                schemaVersion: row[11].flatMap { Int($0) }, matterflowVersion: row[12])
        }
    }

    /// Whether the server read is a standby (`pg_is_in_recovery()`): it takes no writes, and what it answers may lag
    /// the primary's. A conninfo reaches one when it (or `PGTARGETSESSIONATTRS`, or a service file) asks for any server,
    /// or a standby. The comment keeps a load-balancing pooler (pgpool-II) from sending the question to a standby of a
    /// cluster whose writes go to the primary.
    public func isInRecovery() throws(StoreError) -> Bool {
        try execute("/*NO LOAD BALANCE*/ SELECT pg_is_in_recovery()", doing: "asking whether the server is a standby").rows.first?.first == "t"
    }

    /// Why the server read takes no writes, or nil when it takes them. A conninfo reaches such a server only when it
    /// (or `PGTARGETSESSIONATTRS`, or a service file) asks for any server. `retrying` false: asked once, a broken
    /// connection thrown at once (for a caller that waits out outages on its own terms).
    ///
    /// `serverWide` false asks about this store's own sessions, as a worker must (its role or conninfo may be the
    /// one set read-only); true asks about every client's, as a fleet's probe does: a read-only default set for the
    /// server or the database counts, one set for the probe's own role or connection (a monitoring role kept
    /// read-only) does not.
    public func writeRefusal(serverWide: Bool = false, retrying: Bool = true) throws(StoreError) -> WriteRefusal? {
        let readOnly = serverWide ? Self.readOnlyDefaultForAll : "current_setting('transaction_read_only') = 'on'"
        let row = try execute(
            "/*NO LOAD BALANCE*/ SELECT pg_is_in_recovery(), \(readOnly)", doing: "asking whether the server takes writes", retrying: retrying
        ).rows.first
        if row?.first == "t" { return .standby }
        if row?.last == "t" { return .readOnlyDefault }
        return nil
    }

    /// SQL true when `default_transaction_read_only` is on for every client of the database: set for the server or the
    /// database, not only for the asking role or connection (a monitoring role may be kept read-only).
    static let readOnlyDefaultForAll =
        "coalesce((SELECT setting = 'on' AND source NOT IN ('user', 'database user', 'client', 'session', 'interactive', 'override') FROM pg_settings WHERE name = 'default_transaction_read_only'), false)"

    /// How many runs are queued (from the queue's index).
    public func queuedRuns() throws(StoreError) -> Int {
        let rows = try execute("SELECT count(*) FROM matterflow_runs WHERE status = 'queued'", doing: "counting the queued runs")
        return rows.rows.first?.first.flatMap { $0.flatMap { Int($0) } } ?? 0
    }
}

/// Why a server takes no writes (``PostgresRunStore/writeRefusal(serverWide:retrying:)``).
public enum WriteRefusal: Sendable, Hashable, CustomStringConvertible {
    /// A standby, in recovery: a failover may promote it.
    case standby
    /// A primary with `default_transaction_read_only` on, as some fence an old primary or hold writes for maintenance.
    case readOnlyDefault

    /// What the server is, for messages: `a standby (in recovery)`, `a primary with default_transaction_read_only on`.
    public var description: String {
        switch self {
        case .standby: "a standby (in recovery)"
        case .readOnlyDefault: "a primary with default_transaction_read_only on"
        }
    }
}
