extension PostgresRunStore {
    /// How many days the store remembers the ID of a run `store prune` removed (`matterflow_pruned_runs`): a worker's
    /// secrets sweep removes the files of such a run in its directory within that time.
    public static let prunedRunDays = 30

    /// How many runs one prune statement removes: each is a transaction of its own, so a large prune holds its
    /// row locks briefly and a failure part-way keeps what was removed before it.
    static let pruneBatch = 500

    /// Removes the runs `request` names (``PruneRequest``), with their record batches, answers and watchers, oldest
    /// end first, a batch of runs per statement; a dry run lists them and removes nothing. A request that names runs
    /// or structures reports each of their runs that stays, and removes no worker's row.
    ///
    /// Each statement checks every condition again on the rows it deletes: a run that changed since it was listed
    /// (its session not released yet) stays. Running the statement twice (a commit whose answer was lost) removes
    /// nothing more.
    public func prune(_ request: PruneRequest, each removed: ([String]) -> Void) throws(StoreError) -> PruneReport {
        let statuses = Self.textArrayLiteral(request.statuses.intersection(PruneRequest.allowedStatuses).sorted())
        // An age is measured by the server's clock, the one that wrote the runs' end times and the workers'
        // heartbeats; it is worked out once, so every batch of the prune goes by the same cutoff.
        let serverCutoff = try request.olderThan.map { age throws(StoreError) in try serverTime(secondsBefore: age) }
        let cutoff = String(serverCutoff ?? request.endedBefore)
        let selection = [Self.textArrayLiteral(request.runIDs.sorted()), Self.textArrayLiteral(request.structureIDs.sorted())]
        // A dry run counts each run's records here; a prune counts those its deletes return.
        let records = request.dryRun
            ? "(SELECT coalesce(sum(m.last_seq - m.first_seq + 1), 0) FROM matterflow_record_batches m WHERE m.run_id = r.run_id)"
            : "0"
        let listed = try execute(
            """
            SELECT r.run_id, \(records)
            FROM matterflow_runs r
            WHERE \(Self.prunable)
            ORDER BY r.finished_at, r.run_id
            """, [statuses, cutoff] + selection, doing: "listing the runs to prune")
        if request.dryRun {
            var report = PruneReport(
                runIDs: listed.rows.compactMap { $0[0] }, records: listed.rows.reduce(0) { $0 + Self.integer($1[1]) })
            report.cutoff = serverCutoff
            guard !request.isSelective else { return try accounting(report, request, statuses, cutoff, selection) }
            report.workers = try workers(goneBefore: cutoff, dryRun: true)
            return report
        }
        var report = PruneReport(runIDs: [], records: 0)
        report.cutoff = serverCutoff
        let runIDs = listed.rows.compactMap { $0[0] }
        for start in stride(from: 0, to: runIDs.count, by: Self.pruneBatch) {
            let batch = Array(runIDs[start..<min(start + Self.pruneBatch, runIDs.count)])
            let gone = try execute(
                """
                WITH gone AS (
                    DELETE FROM matterflow_runs r
                    WHERE r.run_id = ANY($5::text[]) AND \(Self.prunable)
                    RETURNING r.run_id, r.finished_at
                ), records AS (
                    DELETE FROM matterflow_record_batches b WHERE b.run_id IN (SELECT run_id FROM gone)
                    RETURNING b.last_seq - b.first_seq + 1 AS n
                ), unwatched AS (
                    DELETE FROM matterflow_watchers w WHERE w.run_id IN (SELECT run_id FROM gone)
                ), remembered AS (
                    INSERT INTO matterflow_pruned_runs (run_id) SELECT run_id FROM gone
                    ON CONFLICT (run_id) DO UPDATE SET pruned_at = now()
                )
                SELECT g.run_id, (SELECT coalesce(sum(n), 0) FROM records) FROM gone g ORDER BY g.finished_at, g.run_id
                """, [statuses, cutoff] + selection + [Self.textArrayLiteral(batch)], doing: "pruning runs")
            let goneIDs = gone.rows.compactMap { $0[0] }
            removed(goneIDs)
            report.runIDs += goneIDs
            report.records += gone.rows.first.map { Self.integer($0[1]) } ?? 0
        }
        // What the secrets sweep needs of a pruned run is its ID, for as long as a worker may take to sweep.
        try execute(
            "DELETE FROM matterflow_pruned_runs WHERE pruned_at < now() - make_interval(days => $1::integer)",
            [String(Self.prunedRunDays)], doing: "forgetting runs pruned long ago")
        // An erasure leaves the workers' rows alone: they name hosts, not the household.
        guard !request.isSelective else { return try accounting(report, request, statuses, cutoff, selection) }
        report.workers = try workers(goneBefore: cutoff, dryRun: false)
        return report
    }

    /// Removes only workers' rows (``gone``): those that stopped, or have been silent for longer than their lease,
    /// whose last heartbeat is older than `age` seconds (nil: any), and that hold no run; runs stay. A dry run lists
    /// them and removes nothing. Returns their IDs, the longest gone first.
    public func pruneWorkers(olderThan age: Double?, dryRun: Bool) throws(StoreError) -> [String] {
        try workers(goneBefore: String(try serverTime(secondsBefore: age ?? 0)), dryRun: dryRun)
    }

    /// The workers ``gone`` before `cutoff` (seconds since the Unix epoch, as text), removed unless `dryRun`.
    private func workers(goneBefore cutoff: String, dryRun: Bool) throws(StoreError) -> [String] {
        let rows = dryRun
            ? try execute(
                "SELECT w.worker_id FROM matterflow_workers w WHERE \(Self.gone) ORDER BY w.heartbeat_at, w.worker_id", [cutoff],
                doing: "listing the workers to prune")
            : try execute(
                """
                WITH gone AS (DELETE FROM matterflow_workers w WHERE \(Self.gone) RETURNING w.worker_id, w.heartbeat_at)
                SELECT worker_id FROM gone ORDER BY heartbeat_at, worker_id
                """, [cutoff], doing: "pruning workers")
        return rows.rows.compactMap { $0[0] }
    }

    /// The time `age` seconds before the server's `now()`, in seconds since the Unix epoch.
    private func serverTime(secondsBefore age: Double) throws(StoreError) -> Double {
        let result = try execute(
            "SELECT (extract(epoch FROM now()) - $1::float8)::float8", [String(age)], doing: "reading the server's clock")
        guard let text = result.rows.first?[0], let cutoff = Double(text) else {
            throw StoreError(.storeUnavailable, "the server's clock could not be read (SELECT now() gave no time): prune again")
        }
        return cutoff
    }

    /// `report` with the runs `request` names that stay: those the store still has (for a dry run, those it would
    /// keep), each with why.
    private func accounting(
        _ report: PruneReport, _ request: PruneRequest, _ statuses: String, _ cutoff: String, _ selection: [String]
    ) throws(StoreError) -> PruneReport {
        let rows = try execute(
            """
            SELECT r.run_id, r.structure_id, r.status, r.status = ANY($1::text[]),
                   coalesce(r.finished_at < to_timestamp($2::float8), false),
                   EXISTS (SELECT 1 FROM matterflow_sessions s WHERE s.run_id = r.run_id)
            FROM matterflow_runs r
            WHERE \(Self.selected)
            """, [statuses, cutoff] + selection, doing: "listing the runs named that stay")
        let remaining = rows.rows.compactMap { row -> KeptRun? in
            guard let runID = row[0], let status = row[2] else { return nil }
            return KeptRun(
                runID: runID, structureID: row[1], status: status, statusNamed: row[3] == "t", endedBeforeCutoff: row[4] == "t",
                holdsSession: row[5] == "t")
        }
        return report.accounting(for: request, remaining: remaining)
    }

    /// The runs a request selects, as a condition on `matterflow_runs r`: $3 run IDs, $4 structure IDs; both empty:
    /// every run.
    static let selected = """
        (cardinality($3::text[]) + cardinality($4::text[]) = 0 OR r.run_id = ANY($3::text[]) OR r.structure_id = ANY($4::text[]))
        """

    /// The workers a prune removes, as a condition on `matterflow_workers w`: $1 the cutoff. Only one that has
    /// stopped, or is silent (``StoredWorker/silentCondition``), whose last heartbeat is older than the cutoff, and
    /// that holds no run (only a running run has a worker: looked up in the running runs' index of their workers, not
    /// among every run the store keeps).
    static let gone = """
        w.heartbeat_at < to_timestamp($1::float8)
                  AND (w.stopped_at IS NOT NULL OR \(StoredWorker.silentCondition))
                  AND NOT EXISTS (SELECT 1 FROM matterflow_runs r WHERE r.worker_id = w.worker_id AND r.status = 'running')
        """

    /// The runs a prune may remove, as a condition on `matterflow_runs r`: $1 its statuses, $2 the cutoff (seconds
    /// since the Unix epoch), $3 and $4 its selection (``selected``). A run that still holds a structure's session
    /// stays, whatever its status: the session row names it, and only its run can release it.
    static let prunable = """
        \(selected)
                  AND r.status = ANY($1::text[])
                  AND r.finished_at < to_timestamp($2::float8)
                  AND NOT EXISTS (SELECT 1 FROM matterflow_sessions s WHERE s.run_id = r.run_id)
        """

    private static func integer(_ text: String?) -> Int {
        text.flatMap { Int($0) } ?? 0
    }
}
