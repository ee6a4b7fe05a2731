/// What one worker has done since it started, and holds now, for a monitoring system: the counters a store cannot
/// keep cheaply (runs ended per status, takeovers, hand-backs, records and commits, failed claims and heartbeats)
/// and the runs in its hands. ``WorkerOptions/metrics`` is given one after every heartbeat and when the worker stops;
/// `matterflow worker --metrics-file FILE` writes ``prometheusText`` for node_exporter's textfile collector.
public struct WorkerMetrics: Sendable, Hashable {
    /// The worker's ID.
    public var workerID: String
    /// When the worker started, in seconds since the Unix epoch.
    public var startedAt: Double
    /// What it did so far: runs ended per status, taken over, handed back, records and transactions, failures.
    public var summary: WorkerSummary
    /// Runs it runs now (those waiting for an answer, a delay or an event included).
    public var active: Int
    /// Of ``active``, those waiting for an answer, a delay or a hub event (they take no slot).
    public var waiting: Int
    /// Runs it claimed and has not started yet.
    public var claimedAhead: Int
    /// Whether its last command reached the store.
    public var storeReachable: Bool
    /// Whether it drains (after SIGTERM or SIGINT): it claims nothing more.
    public var stopping: Bool
    /// When these figures were taken, by this machine's wall clock: a file of a worker that died keeps its last
    /// report, and this says how old it is.
    public var reportedAt: Double

    /// The statuses a run ends with, each written as a series (0 until one ends so), so that a rate has a series.
    static let finalStatuses = ["succeeded", "failed", "cancelled", "needsAttention"]

    /// The metrics in Prometheus's text format (0.0.4), each labelled with the worker: counters (`_total`) from its
    /// start, gauges of now.
    public var prometheusText: String {
        var text = PrometheusText()
        let worker = [("worker", workerID)]
        text.family(
            "matterflow_worker_runs_finished_total", "Runs this worker ended, by final status, since it started.",
            (Self.finalStatuses + summary.finished.keys.filter { !Self.finalStatuses.contains($0) }.sorted()).map { status in
                (worker + [("status", status)], Double(summary.finished[status] ?? 0))
            }, type: "counter")
        let counters: [(name: String, help: String, value: Int)] = [
            ("runs_taken_over", "Runs of dead workers this worker settled or started afresh.", summary.takenOver),
            ("runs_handed_back", "Runs this worker handed back to the fleet (shutdown, or runs it could not run).", summary.handedBack),
            ("records", "Journal records this worker wrote to the store.", summary.records),
            ("transactions", "Group commits that carried this worker's records.", summary.transactions),
            ("claim_failures", "Claims that failed (the store unreachable, a statement timeout); each is tried again.", summary.claimFailures),
            ("heartbeat_failures", "Heartbeats that failed; leases run out after a lease of them.", summary.heartbeatFailures),
            ("store_losses",
             "Runs in progress of which the store, reached again, had lost records this worker had committed, or the run itself "
                + "(a failover to a standby that lacked the last commits, or a restore).", summary.storeLosses),
            ("records_lost", "Journal records this worker had committed that the store, reached again, no longer held.", summary.recordsLost),
            ("lease_confirmations",
             "Hub calls that first confirmed their run's lease with the store, the worker not having known it held for half a lease "
                + "(a heartbeat slow to answer, or the worker paused).", summary.leaseConfirmations),
        ]
        for counter in counters {
            text.family("matterflow_worker_\(counter.name)_total", counter.help, [(worker, Double(counter.value))], type: "counter")
        }
        let gauges: [(name: String, help: String, value: Double)] = [
            ("runs_active", "Runs this worker runs now, waiting ones included.", Double(active)),
            ("runs_waiting", "Runs waiting for an answer, a delay or a hub event.", Double(waiting)),
            ("runs_claimed_ahead", "Runs claimed and not started yet.", Double(claimedAhead)),
            ("store_reachable", "1 when the worker's last command reached the store.", storeReachable ? 1 : 0),
            ("stopping", "1 while the worker drains and claims nothing more.", stopping ? 1 : 0),
            ("start_time_seconds", "When the worker started, in seconds since the Unix epoch.", startedAt),
            ("metrics_timestamp_seconds",
             "When the worker took these figures (after each heartbeat, when the store was lost or found again, and as it stopped), "
                + "in seconds since the Unix epoch: "
                + "an old one is a worker that died or hangs.", reportedAt),
        ]
        for gauge in gauges { text.family("matterflow_worker_\(gauge.name)", gauge.help, [(worker, gauge.value)]) }
        return text.text
    }
}
