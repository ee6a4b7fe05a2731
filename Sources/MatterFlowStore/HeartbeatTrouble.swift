import MatterFlow

/// What a worker says about its heartbeats, which renew its leases: failures in a row at the 1st, 2nd, 4th, 8th ...
/// and when heartbeats work again, so that a store in trouble for an hour costs a dozen lines, not one every lease/3;
/// and a heartbeat that took half a lease or more (a lock held on the runs table, a store slow to answer), once until
/// one is quick again: its leases may have run out meanwhile, and other workers may take its runs over.
struct HeartbeatTrouble {
    /// The worker's lease, in seconds.
    let leaseSeconds: Double

    private var failures = FailureStreak()
    /// The heartbeats that failed since the last one that worked.
    var failedInARow: Int { failures.inARow }
    /// Whether the worker said its heartbeats are slow, and has not said they are quick again.
    private(set) var saidSlow = false

    init(leaseSeconds: Double) {
        self.leaseSeconds = leaseSeconds
    }

    /// Counts a heartbeat that failed; returns the line for it when it is the 1st, 2nd, 4th, 8th ... in a row.
    mutating func failed(_ message: String) -> String? {
        guard failures.failed() else { return nil }
        if failedInARow == 1 { return "heartbeat failed: \(message); leases run out after \(Self.text(leaseSeconds)) s of failures" }
        return "heartbeat failed \(failedInARow) times in a row: \(message)"
    }

    /// Counts a heartbeat that worked after `took`; returns what to say of it, each line with its level: that
    /// heartbeats work again after failures, that this one was slow (because the store was out of reach meanwhile,
    /// when `storeWasLost`, as said already; else slow to answer or locked), that they are quick again.
    mutating func succeeded(took: Duration, storeWasLost: Bool = false) -> [(WorkerLogLine.Level, String)] {
        var lines: [(WorkerLogLine.Level, String)] = []
        if let failed = failures.succeeded() {
            lines.append((.info, "heartbeats work again after \(failed) failed heartbeat\(failed == 1 ? "" : "s")"))
        }
        let seconds = took.secondsValue
        if seconds >= leaseSeconds / 2, !saidSlow {
            saidSlow = true
            let outcome = seconds >= leaseSeconds
                ? "longer than the lease (\(Self.text(leaseSeconds)) s): its runs' leases ran out meanwhile, and other workers may have taken them over"
                : "half the lease (\(Self.text(leaseSeconds)) s) or more: its runs' leases may run out before the next one"
            let why = storeWasLost
                ? "the store was out of reach meanwhile"
                : "the store is slow to answer or a lock holds matterflow_runs (`matterflow workers --store URL --check` names it)"
            lines.append((.warning, "a heartbeat took \(Self.text((seconds * 10).rounded() / 10)) s to renew this worker's leases, \(outcome); \(why)"))
        } else if seconds < leaseSeconds / 2, saidSlow {
            saidSlow = false
            lines.append((.info, "heartbeats renew leases in time again (\(Self.text((seconds * 10).rounded() / 10)) s)"))
        }
        return lines
    }

    /// Seconds as a message names them (`10`, `40.1`).
    private static func text(_ seconds: Double) -> String {
        Duration.seconds(rounding: seconds).secondsText
    }
}
