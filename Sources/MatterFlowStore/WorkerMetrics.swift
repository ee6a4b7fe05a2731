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
        text.family(
            "matterflow_worker_runs_taken_over_total", "Runs of dead workers this worker settled or started afresh.",
            [(worker, Double(summary.takenOver))], type: "counter")
        text.family(
            "matterflow_worker_runs_handed_back_total", "Runs this worker handed back to the fleet (shutdown, or runs it could not run).",
            [(worker, Double(summary.handedBack))], type: "counter")
        text.family(
            "matterflow_worker_records_total", "Journal records this worker wrote to the store.", [(worker, Double(summary.records))], type: "counter")
        text.family(
            "matterflow_worker_transactions_total", "Group commits that carried this worker's records.",
            [(worker, Double(summary.transactions))], type: "counter")
        text.family(
            "matterflow_worker_claim_failures_total", "Claims that failed (the store unreachable, a statement timeout); each is tried again.",
            [(worker, Double(summary.claimFailures))], type: "counter")
        text.family(
            "matterflow_worker_heartbeat_failures_total", "Heartbeats that failed; leases run out after a lease of them.",
            [(worker, Double(summary.heartbeatFailures))], type: "counter")
        text.family("matterflow_worker_runs_active", "Runs this worker runs now, waiting ones included.", [(worker, Double(active))])
        text.family("matterflow_worker_runs_waiting", "Runs waiting for an answer, a delay or a hub event.", [(worker, Double(waiting))])
        text.family("matterflow_worker_runs_claimed_ahead", "Runs claimed and not started yet.", [(worker, Double(claimedAhead))])
        text.family("matterflow_worker_store_reachable", "1 when the worker's last command reached the store.", [(worker, storeReachable ? 1 : 0)])
        text.family("matterflow_worker_stopping", "1 while the worker drains and claims nothing more.", [(worker, stopping ? 1 : 0)])
        text.family("matterflow_worker_start_time_seconds", "When the worker started, in seconds since the Unix epoch.", [(worker, startedAt)])
        return text.text
    }
}
