import MatterFlowJSON
import MatterFlowStore

/// `matterflow workers --check`: whether a fleet can do its work, for a monitoring system's probe. A fleet is healthy
/// when at least the wanted number of workers run (heartbeat within their lease, not draining), none of them is built
/// for another store schema, and no run a dead worker held has waited for a takeover much longer than a lease
/// (its lease ran out three leases ago or more: no running worker could take it over).
struct FleetHealth {
    /// A run whose lease ran out this many leases ago without a takeover is stuck.
    static let stuckAfterLeases = 3.0

    let workers: [StoredWorker]
    let minimumRunning: Int
    /// The store's own schema version (a probe may be built for an older one).
    let storeSchema: Int

    /// The workers that run.
    var running: [StoredWorker] { workers.filter { $0.state == .running } }

    /// How many runs the running workers hold under a current lease.
    var held: Int { running.reduce(0) { $0 + $1.leasedRuns } }

    /// What keeps the fleet from doing its work, one sentence each; empty when it is healthy.
    var problems: [String] {
        var found: [String] = []
        let count = running.count
        if count < minimumRunning {
            found.append(
                "\(count) worker\(count == 1 ? "" : "s") running, \(minimumRunning) wanted: queued runs wait; start workers (`matterflow worker --store URL ...`)")
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
        return problems == 0
            ? "ok: \(running.count) worker\(running.count == 1 ? "" : "s") running, holding \(held) run\(held == 1 ? "" : "s")"
            : "\(problems) problem\(problems == 1 ? "" : "s"): \(running.count) worker\(running.count == 1 ? "" : "s") running"
    }

    /// `{"healthy", "running", "held", "problems": [...]}`.
    var jsonValue: JSONValue {
        [
            "healthy": .bool(problems.isEmpty), "running": .int(running.count),
            "held": .int(held), "problems": .array(problems.map(JSONValue.string)),
        ]
    }
}
