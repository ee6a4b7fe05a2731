import MatterFlowJSON
import MatterFlowStore

/// `matterflow workers --check`: whether a fleet can do its work, for a monitoring system's probe. A fleet is healthy
/// when at least the wanted number of workers run (heartbeat within their lease, not draining), none of them is built
/// for another store schema, no run a dead worker held has waited for a takeover much longer than a lease
/// (its lease ran out three leases ago or more: no running worker could take it over), and the server read takes
/// writes (not a standby, nor a primary with default_transaction_read_only on).
struct FleetHealth {
    /// A run whose lease ran out this many leases ago without a takeover is stuck.
    static let stuckAfterLeases = 3.0

    let workers: [StoredWorker]
    let minimumRunning: Int
    /// The store's own schema version (a probe may be built for an older one).
    let storeSchema: Int
    /// How many runs are queued.
    var queued = 0
    /// Why the server read takes no writes (``PostgresRunStore/writeRefusal(serverWide:retrying:)``), nil when it takes them.
    var writeRefusal: WriteRefusal?
    /// Why the store could not be read, when it could not: the only problem then.
    var unanswered: String?

    /// A fleet whose store did not answer within `seconds`: its tables locked by another session.
    static func unanswered(within seconds: Double) -> FleetHealth {
        FleetHealth(
            workers: [], minimumRunning: 0, storeSchema: 0,
            unanswered: "the store did not answer within \(NumberRange.format(seconds)) s: \(StoreError.lockHeld); the workers' heartbeats wait behind it (a claim that waited through it takes no run over, but a worker that claims after it went may, before the others renew, if it lasted longer than their lease)")
    }

    /// A fleet whose store cannot be read at all (unreachable, refused, not migrated): `error` says why.
    static func unreadable(_ error: StoreError) -> FleetHealth {
        FleetHealth(workers: [], minimumRunning: 0, storeSchema: 0, unanswered: "the store cannot be read: error[\(error.code.rawValue)]: \(error.message)")
    }

    /// The workers that run.
    var running: [StoredWorker] { workers.filter { $0.state == .running } }

    /// How many runs the running workers hold under a current lease.
    var held: Int { running.reduce(0) { $0 + $1.leasedRuns } }

    /// What keeps the fleet from doing its work, one sentence each; empty when it is healthy.
    var problems: [String] {
        if let unanswered { return [unanswered] }
        var found: [String] = []
        if let writeRefusal {
            let lag = writeRefusal == .standby ? ", and what it says of the workers may lag the primary's" : ""
            found.append("the server read is \(writeRefusal), which takes no writes: no worker can use it\(lag); " + StoreError.readOnlyAdvice)
        }
        let count = running.count
        if count < minimumRunning {
            var waiting = queued == 0 ? "no run is queued, runs submitted will wait" : "\(queued) queued run\(queued == 1 ? "" : "s") wait\(queued == 1 ? "s" : "")"
            // A dead worker's runs wait for a running worker to take them over, however recently it died.
            let orphaned = workers.filter { $0.state == .silent || $0.state == .stopped }.reduce(0) { $0 + $1.expiredRuns }
            if orphaned > 0 {
                waiting += ", and \(orphaned) run\(orphaned == 1 ? "" : "s") of workers gone wait\(orphaned == 1 ? "s" : "") for a takeover"
            }
            found.append(
                "\(count) worker\(count == 1 ? "" : "s") running, \(minimumRunning) wanted: \(waiting); start workers (`matterflow worker --store URL ...`)")
        }
        for worker in workers {
            if let schema = worker.schemaVersion, schema != storeSchema, worker.state == .running || worker.state == .stopping {
                found.append(
                    "worker \(worker.workerID) on \(worker.host) is built for schema \(schema), the store's is \(storeSchema): stop it (SIGTERM) and start one built for the store's schema")
            }
            // A stopped worker whose hand-back failed holds runs too, as a silent one does.
            let lease = worker.leaseSeconds ?? WorkerOptions.defaultLeaseSeconds
            if worker.state == .silent || worker.state == .stopped, worker.expiredRuns > 0, worker.heartbeatAge >= lease * (1 + Self.stuckAfterLeases) {
                found.append(
                    "worker \(worker.workerID) on \(worker.host) \(worker.state == .stopped ? "stopped" : "went silent") \(WorkersCommand.age(worker.heartbeatAge)) holding \(worker.expiredRuns) run\(worker.expiredRuns == 1 ? "" : "s") no worker has taken over: `matterflow runs --store URL` names them; a running worker takes them at its next look")
            }
        }
        return found
    }

    /// The one line a probe shows: `ok: ...` or the number of problems.
    var summary: String {
        let problems = problems.count
        if unanswered != nil { return "1 problem: the store did not answer" }
        return problems == 0
            ? "ok: \(running.count) worker\(running.count == 1 ? "" : "s") running, holding \(held) run\(held == 1 ? "" : "s")"
            : "\(problems) problem\(problems == 1 ? "" : "s"): \(running.count) worker\(running.count == 1 ? "" : "s") running"
    }

    /// `{"healthy", "running", "held", "problems": [...]}`; `running` and `held` null when the store did not answer.
    var jsonValue: JSONValue {
        [
            "healthy": .bool(problems.isEmpty), "running": unanswered == nil ? .int(running.count) : .null,
            "held": unanswered == nil ? .int(held) : .null, "problems": .array(problems.map(JSONValue.string)),
        ]
    }
}
