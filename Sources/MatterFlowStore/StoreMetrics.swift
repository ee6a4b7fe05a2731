import MatterFlowJournal

/// What a fleet's run store holds now, for a monitoring system (`matterflow store metrics`): the open runs, how long
/// the queue's oldest run has waited, runs that need a person, the sessions held, and each worker's state.
///
/// Every figure is read from an index (the queued, running and needsAttention runs each have a partial one), so a
/// scrape costs the same however many ended runs the store keeps. Ended runs that went as planned are not counted
/// here: how many runs end per second is the workers' to say, as they end them.
public struct StoreMetrics: Sendable, Hashable {
    /// The store's schema version.
    public var schemaVersion: Int
    /// Runs waiting to be claimed.
    public var queued: Int
    /// Runs a worker holds (under a current lease or one that ran out).
    public var running: Int
    /// Runs that ended needing a person (`needsAttention`): in doubt about a call, or a session not released.
    public var needsAttention: Int
    /// Seconds the oldest queued run has waited since it was submitted, by the store's clock; 0 with no queued run.
    public var oldestQueuedAge: Double
    /// Seconds the longest-waiting queued run that a worker could start now has waited since it was last queued
    /// (submitted, or handed back at a checkpoint), by the store's clock; 0 with none. Runs that wait for their
    /// structure's commissioning session to be free are not counted: they cannot start, whatever the workers do.
    public var oldestStartableAge: Double = 0
    /// Running runs whose lease ran out: their worker died or lost the store; another worker takes them over.
    public var leaseExpired: Int
    /// Open runs that workers could not start (no hub for their structure, or their secrets not in a worker's
    /// directory), waiting to be claimed again.
    public var startFailures: Int
    /// Open runs that `matterflow cancel` asked to stop and that have not ended yet.
    public var cancelsPending: Int
    /// Structures whose commissioning session a run holds across the fleet.
    public var sessionsHeld: Int
    /// Open runs that wait for an answer (`matterflow runs --store URL --waiting` lists their questions).
    public var waitingForAnswer: Int
    /// Seconds the longest-waiting of those questions has waited, by the store's clock; 0 with none.
    public var oldestQuestionAge: Double
    /// The fleet's workers, stopped ones included until `store prune` removes them.
    public var workers: [StoredWorker]
    /// Whether the server read is a standby (in recovery): no worker can use it, and its figures may lag the primary's.
    public var inRecovery = false
    /// Whether the server read is a primary with `default_transaction_read_only` on for the server or the database (as
    /// some fence an old primary or hold writes for maintenance): no worker can use it.
    public var readOnlyDefault = false

    /// The metrics in Prometheus's text exposition format (version 0.0.4): `# HELP` and `# TYPE` lines, then the
    /// samples; every state and status appears, with 0 when none is in it, so an alert on a series always has one.
    public var prometheusText: String {
        var text = PrometheusText()
        text.gauge("matterflow_store_schema_version", "The schema version the run store was migrated to.", Double(schemaVersion))
        text.gauge(
            "matterflow_store_in_recovery",
            "1 when the server read is a standby (in recovery): it takes no writes, no worker can use it, and these figures may lag the primary's.",
            inRecovery ? 1 : 0)
        text.gauge(
            "matterflow_store_read_only_default",
            "1 when the server read is a primary with default_transaction_read_only on for the server or the database: it takes no writes, and no worker can use it.",
            readOnlyDefault ? 1 : 0)
        text.family(
            "matterflow_runs", "Runs in the store by status: open ones, and those that ended needing a person.",
            [("queued", queued), ("running", running), ("needsAttention", needsAttention)].map { ([("status", $0.0)], Double($0.1)) })
        text.gauge("matterflow_queue_oldest_age_seconds", "How long the oldest queued run has waited since it was submitted (0: none queued).", oldestQueuedAge)
        text.gauge(
            "matterflow_queue_oldest_startable_age_seconds",
            "How long the longest-waiting queued run a worker could start now has waited since it was last queued (0: none): "
                + "runs behind their structure's session are not counted.",
            oldestStartableAge)
        text.gauge(
            "matterflow_runs_lease_expired", "Running runs whose worker's lease ran out: another worker takes them over.", Double(leaseExpired))
        text.gauge(
            "matterflow_runs_start_failures",
            "Open runs workers could not start (no hub for the structure, or secrets not in the worker's directory).", Double(startFailures))
        text.gauge("matterflow_runs_cancel_pending", "Open runs asked to cancel that have not ended yet.", Double(cancelsPending))
        text.gauge("matterflow_sessions_held", "Structures whose commissioning session a run holds.", Double(sessionsHeld))
        text.gauge("matterflow_runs_waiting_for_answer", "Open runs waiting for an answer (matterflow answer).", Double(waitingForAnswer))
        text.gauge(
            "matterflow_question_oldest_age_seconds", "How long the longest-waiting unanswered question has waited (0: none).",
            oldestQuestionAge)
        text.family(
            "matterflow_workers", "Workers registered in the store by state (stopped and silent ones stay until store prune).",
            StoredWorker.State.allCases.map { state in ([("state", state.rawValue)], Double(workers.count { $0.state == state })) })
        let listed = workers.filter { $0.state != .stopped }
        text.family(
            "matterflow_worker_runs_held", "Runs each worker that has not stopped holds under a current lease.",
            listed.map { (Self.labels(of: $0), Double($0.leasedRuns)) })
        text.family(
            "matterflow_worker_runs_lease_expired", "Runs each worker that has not stopped holds whose lease ran out.",
            listed.map { (Self.labels(of: $0), Double($0.expiredRuns)) })
        text.family(
            "matterflow_worker_heartbeat_age_seconds", "Seconds since each worker that has not stopped last heartbeat, by the store's clock.",
            listed.map { (Self.labels(of: $0), $0.heartbeatAge) })
        text.family(
            "matterflow_worker_info", "Each worker that has not stopped, with its state, MatterFlow version and the schema it was built for.",
            listed.map { worker in
                (Self.labels(of: worker) + [
                    ("state", worker.state.rawValue), ("version", worker.matterflowVersion ?? ""),
                    ("schema", worker.schemaVersion.map(String.init) ?? ""),
                ], 1)
            })
        return text.text
    }

    /// Whether a scrape read the store, and when (seconds since the Unix epoch), in Prometheus's text format: after
    /// the metrics of one that did, alone for one that did not. A file for node_exporter's textfile collector
    /// replaced by a failed scrape then holds no figures of an earlier time that could pass for current ones.
    public static func scrapeText(succeeded: Bool, at time: Double) -> String {
        var text = PrometheusText()
        text.gauge("matterflow_store_scrape_success", "1 when this scrape read the store; 0 when it could not (its figures are absent).", succeeded ? 1 : 0)
        text.gauge("matterflow_store_scrape_timestamp_seconds", "When this scrape was made, in seconds since the Unix epoch.", time)
        return text.text
    }

    private static func labels(of worker: StoredWorker) -> [(String, String)] {
        [("worker", worker.workerID), ("host", worker.host)]
    }
}

extension PostgresRunStore {
    /// SQL: the seconds the longest-waiting queued run that could start now has waited since it was last queued, by
    /// the store's clock (0: none). The runs that leave the session alone: the first by submission of those never
    /// handed back (the queue's index, in order), and the first by `queued_at` of those handed back (their own index);
    /// and each structure's turn, when no run of the structure works in its session (one probe per structure with
    /// open runs, of the index of queued runs working in the session). A scrape reads a few rows per structure,
    /// however long the queue.
    static let oldestStartable = """
        WITH RECURSIVE \(openStructures)
        SELECT coalesce(extract(epoch FROM now() - least(
            (SELECT submitted_at FROM matterflow_runs
                WHERE status = 'queued' AND works_in_session IS FALSE AND queued_at IS NULL ORDER BY submitted_at, run_id LIMIT 1),
            (SELECT queued_at FROM matterflow_runs
                WHERE status = 'queued' AND queued_at IS NOT NULL AND works_in_session IS FALSE ORDER BY queued_at LIMIT 1),
            (SELECT min(coalesce(turn.queued_at, turn.submitted_at)) FROM open_structures s CROSS JOIN LATERAL (
                SELECT head.submitted_at, head.queued_at FROM matterflow_runs head
                WHERE head.structure_id = s.structure_id AND head.status = 'queued' AND head.works_in_session IS NOT FALSE
                ORDER BY head.submitted_at, head.run_id LIMIT 1) AS turn
                WHERE NOT \(sessionRunning("s.structure_id")))
        ))::float8, 0)
        """

    /// The store's metrics now, read in five statements (the counts, the queued runs that can start, the open runs and
    /// the records of those that asked a question, the workers).
    /// - Throws: ``StoreError`` when the store cannot be read.
    public func metrics() throws(StoreError) -> StoreMetrics {
        // The comment keeps a load-balancing pooler (pgpool-II) from reading the figures off a standby.
        let rows = try execute(
            """
            /*NO LOAD BALANCE*/ SELECT (SELECT coalesce(max(version), 0) FROM matterflow_migrations),
                   (SELECT count(*) FROM matterflow_runs WHERE status = 'queued'),
                   (SELECT count(*) FROM matterflow_runs WHERE status = 'running'),
                   (SELECT count(*) FROM matterflow_runs WHERE status = 'needsAttention'),
                   (SELECT coalesce(extract(epoch FROM now() - min(submitted_at))::float8, 0)
                    FROM matterflow_runs WHERE status = 'queued'),
                   (SELECT count(*) FROM matterflow_runs WHERE status = 'running' AND lease_until < now()),
                   (SELECT count(*) FROM matterflow_runs WHERE status IN ('queued', 'running') AND hub_failures > 0),
                   (SELECT count(*) FROM matterflow_runs WHERE status IN ('queued', 'running') AND cancel_requested_at IS NOT NULL),
                   (SELECT count(*) FROM matterflow_sessions),
                   extract(epoch FROM now())::float8,
                   pg_is_in_recovery(),
                   \(Self.readOnlyDefaultForAll)
            """, doing: "reading the store's metrics")
        guard let row = rows.rows.first, row.count == 12 else {
            throw StoreError(.storeUnavailable, "reading the store's metrics returned no row")
        }
        let count = { (index: Int) in row[index].flatMap { Int($0) } ?? 0 }
        let storeNow = row[9].flatMap(Double.init) ?? 0
        let startable = try execute(Self.oldestStartable, doing: "reading the store's metrics")
        let waiting = try waitingRuns()
        let oldestAsked = waiting.flatMap { $0.questions.map(\.askedAt) }.min()
        return StoreMetrics(
            schemaVersion: count(0), queued: count(1), running: count(2), needsAttention: count(3),
            oldestQueuedAge: max(0, row[4].flatMap(Double.init) ?? 0),
            oldestStartableAge: max(0, startable.rows.first?.first.flatMap { $0.flatMap(Double.init) } ?? 0),
            leaseExpired: count(5), startFailures: count(6),
            cancelsPending: count(7), sessionsHeld: count(8), waitingForAnswer: waiting.count,
            oldestQuestionAge: oldestAsked.map { max(0, storeNow - $0) } ?? 0,
            workers: try workers(includingStopped: true), inRecovery: row[10] == "t",
            // A standby is said to be one; the fence is a primary's.
            readOnlyDefault: row[11] == "t" && row[10] != "t")
    }
}
