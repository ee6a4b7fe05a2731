import MatterFlow
import MatterFlowJSON

/// A run a worker claimed: a queued run to start, or a run whose worker's lease ran out, to settle.
public struct ClaimedRun: Sendable {
    /// The claimed run's ID in the store.
    public var runID: String
    /// The absolute path of the workflow file the worker loads, as submit validated it.
    public var workflowFile: String
    /// The structure the run acts on: the worker asks its hub provider for this structure's hub.
    public var structureID: StructureID
    /// The inputs as submitted; secret ones are `"<redacted>"` and named in ``secretInputs``.
    public var inputs: JSONObject
    /// The names of the secret inputs, whose values wait in the worker's secrets directory (``SecretInbox``).
    public var secretInputs: [String]
    /// Whether the run had been started by a worker that lost its lease (it is settled by recovery, not started).
    public var takeover: Bool
    /// How many times a worker claimed the run, this claim included.
    public var claims: Int
    /// ``claims`` as a takeover's recovery counts them before it gives up: all of them, or, for a run `matterflow
    /// cancel` asked to be settled again after it needed attention, those since, and one for the asking (as a run's
    /// first claim starts it, so the first claim after is counted 2 either way).
    public var claimsSinceReopen = 0
    /// Answers to the run's questions given at submit; answers to secret questions are `"<redacted>"` and named in
    /// ``secretAnswers``.
    public var answers: [String: JSONValue] = [:]
    /// The names of the questions whose answers in ``answers`` are secret; their values wait in the secrets
    /// directory.
    public var secretAnswers: [String] = []
    /// The sequence number of the last answer given after submit that ``answers`` holds (0 when none): later ones
    /// are read with ``PostgresRunStore/answers(of:after:)``.
    public var answeredThrough: Int64 = 0
    /// Whether a cancel was asked for (`matterflow cancel`) before the claim: the run takes its cancel path, or ends
    /// at once when it has not begun.
    public var cancelRequested = false
    /// How many times a worker found no hub for the run's structure before this claim.
    public var hubFailures = 0
    /// The content hash of the workflow tree as submit validated it (``Workflow/contentHash``); nil for a run
    /// submitted before the store kept it.
    public var workflowHash: String?
    /// What of the run's row cannot be read (its inputs or answers are not the JSON MatterFlow wrote), or nil: such
    /// a run is never run on what could be read of it.
    public var damage: String?
    /// For a takeover, the worker whose lease ran out (nil: the run was handed back for takeover, or queued).
    public var previousWorker: String?
}

extension PostgresRunStore {
    /// Records a worker (`matterflow_workers`), so `runs` and `workers` can tell whose leases are whose, with the
    /// schema it was built for and its MatterFlow version; a worker ID used again (a restarted worker) starts
    /// afresh, on its new host and process.
    ///
    /// Refused while another live worker has the ID (`workerIDInUse`): one that has not stopped and whose heartbeat
    /// moves. A row whose last heartbeat is within its lease may be of a worker that died a moment ago (restarted
    /// at once under a fixed ID; a container started again, whose host name and PID repeat, so that neither tells):
    /// it is watched for half its lease, through `waiting`, and taken over when its heartbeat has not moved (a live
    /// worker beats every third of its lease), refused when it has. A lease over a minute cannot be watched so: such
    /// a row is refused until its lease has passed. The row is checked again as it is written, so two workers
    /// starting at once under one ID cannot both have it.
    /// - Parameter waiting: Waits the given time, blocking (the store's commands block their thread anyway); nil:
    ///   sleeps.
    /// - Throws: ``StoreError`` `workerIDInUse`, or the store's failure.
    public func registerWorker(
        _ workerID: String, host: String, pid: Int, leaseSeconds: Double,
        waiting: ((Duration) -> Void)? = nil
    ) throws(StoreError) {
        let lookup = """
            SELECT w.host, w.pid, \(Self.microseconds("w.heartbeat_at")), coalesce(w.lease_seconds, \(WorkerOptions.defaultLeaseSeconds))
            FROM matterflow_workers w
            WHERE w.worker_id = $1 AND w.stopped_at IS NULL AND NOT (\(StoredWorker.silentCondition))
            """
        // The heartbeat of a row that may be a dead worker's, seen not to move: the row may be taken over.
        var stillHeartbeat: String?
        if let row = try execute(lookup, [workerID], doing: "looking up worker \(workerID)").rows.first, let heartbeat = row[2] {
            let otherLease = row[3].flatMap(Double.init) ?? WorkerOptions.defaultLeaseSeconds
            let other = (host: row[0] ?? "?", pid: row[1].flatMap { Int($0) } ?? 0)
            guard otherLease <= 60 else { throw Self.idInUse(workerID, host: other.host, pid: other.pid) }
            (waiting ?? Self.pause)(.milliseconds(Int(otherLease * 500)))
            let again = try execute(lookup, [workerID], doing: "looking up worker \(workerID)").rows.first
            if let again, again[2] != heartbeat { throw Self.idInUse(workerID, host: again[0] ?? "?", pid: again[1].flatMap { Int($0) } ?? 0) }
            stillHeartbeat = heartbeat
        }
        let written = try execute(
            """
            INSERT INTO matterflow_workers AS w (worker_id, host, pid, lease_seconds, schema_version, matterflow_version)
            VALUES ($1, $2, $3::integer, $4::float8, $5::integer, $6)
            ON CONFLICT (worker_id) DO UPDATE SET host = EXCLUDED.host, pid = EXCLUDED.pid, lease_seconds = EXCLUDED.lease_seconds,
                schema_version = EXCLUDED.schema_version, matterflow_version = EXCLUDED.matterflow_version,
                started_at = now(), heartbeat_at = now(), stopping = false, stopped_at = NULL
            WHERE w.stopped_at IS NOT NULL OR \(StoredWorker.silentCondition) OR w.heartbeat_at = \(Self.moment("$7"))
            RETURNING w.host
            """, [workerID, host, String(pid), String(leaseSeconds), String(StoreMigrations.latest), MatterFlowVersion.current, stillHeartbeat],
            doing: "registering worker \(workerID)")
        guard written.rows.isEmpty else { return }
        let now = try execute("SELECT w.host, w.pid FROM matterflow_workers w WHERE w.worker_id = $1", [workerID], doing: "looking up worker \(workerID)")
        throw Self.idInUse(workerID, host: now.rows.first?[0] ?? "?", pid: now.rows.first?[1].flatMap { Int($0) } ?? 0)
    }

    private static func idInUse(_ workerID: String, host: String, pid: Int) -> StoreError {
        StoreError(
            .workerIDInUse,
            "worker ID \(workerID) is in use by a live worker (host \(host), process \(pid)): two workers of one ID would write "
                + "each other's runs; give this one another --worker-id (or none: HOST-PID-XXXX is unique), or stop that one first")
    }

    /// Marks a worker as stopped in `matterflow_workers`: it drained and exits, holding no lease.
    public func markStopped(_ workerID: String) throws(StoreError) {
        try execute("UPDATE matterflow_workers SET stopped_at = now() WHERE worker_id = $1", [workerID], doing: "marking worker stopped")
    }

    /// Claims up to `limit` runs in one statement: first runs whose lease ran out (to settle), then queued runs
    /// for the slots left, oldest first; both skip rows other workers are claiming (`FOR UPDATE SKIP LOCKED`), so
    /// each run goes to exactly one worker. They are returned in that order (runs claimed again first), each kind by
    /// the time it was submitted: the order a worker starts them in. A worker without a secrets directory
    /// (`takesSecrets` false) claims no queued run with secret inputs or answers: it could not run one. A queued run
    /// whose workflow works in its structure's commissioning session waits while another such run of the structure
    /// runs or was queued before it (``sessionTurn(_:)``). What a claim reads follows the number of structures with
    /// open runs, not how many runs wait for their structure's turn.
    ///
    /// Each claim is marked with `token`, which the caller makes new for every call. A call that threw may still
    /// have claimed runs (the reply lost after the commit): passing its token in `unanswered` on a later call
    /// returns those runs too, still leased to `workerID` and not claimed since, beyond `limit`, each as that claim
    /// took it (from the queue, or a takeover). A token nobody passes again costs nothing: its runs' leases run out,
    /// and they are taken over as any other.
    public func claim(
        by workerID: String, limit: Int, leaseSeconds: Double, token: String = "", unanswered: [String] = [], takesSecrets: Bool = true,
        takesOver: Bool = true
    ) throws(StoreError) -> [ClaimedRun] {
        let parameters = [workerID, String(leaseSeconds), String(limit), token, Self.textArrayLiteral(unanswered), takesSecrets ? "t" : "f"]
        let withoutTakeovers = parameters + ["f"]
        guard takesOver else { return try execute(Self.claimStatement, withoutTakeovers, doing: "claiming runs").rows.map(Self.claimedRun) }
        let rows: PostgresRows
        do throws(StoreError) {
            // Tried once when it may take over: tried again after the store came back (a restart), it would take over
            // the runs of live workers whose leases ran out meanwhile and who have not renewed them yet. A first
            // PREPARE on a connection waits for the table's locks before the statement's own transaction begins, out
            // of sight of its half-lease check: a claim prepared that slowly takes nothing over either.
            rows = try onConnection(doing: "claiming runs", retrying: false) { open throws(PostgresError) in
                let started = ContinuousClock.now
                try open.prepare(Self.claimStatement, parameterCount: parameters.count + 1)
                let waited = (ContinuousClock.now - started).secondsValue >= leaseSeconds / 2
                return try open.execute(prepared: Self.claimStatement, parameters + [waited ? "f" : "t"])
            }
        } catch where error.isOutOfReach {
            rows = try execute(Self.claimStatement, withoutTakeovers, doing: "claiming runs")
        }
        return rows.rows.map(Self.claimedRun)
    }

    /// SQL: whether a queued run is one a worker may claim, `parameter` (a boolean) saying whether it takes runs
    /// with secrets.
    static func claimable(_ parameter: String) -> String {
        "(\(parameter)::boolean OR (secret_inputs = '{}' AND secret_answers = '{}'))"
    }

    /// The statement of ``claim(by:limit:leaseSeconds:token:unanswered:takesSecrets:takesOver:)``: `$1` the worker,
    /// `$2` the lease in seconds, `$3` the limit, `$4` the claim's token, `$5` the tokens of claims that threw (a text
    /// array), `$6` whether the worker takes runs with secrets, `$7` whether it takes over runs whose leases ran out
    /// (``TakeoverHold``). A claim that waited more than half a lease for its locks (a table locked by hand, say)
    /// takes none over either: the leases ran out while every worker waited, and live ones renew theirs next.
    ///
    /// Queued runs are looked for in the queue's first rows, where a claim's runs nearly always are, each as the
    /// queue's order has it (`early`): the first runs of the queue's first ``queueWindow`` that are not waiting for
    /// their structure's running session run (those cannot start now: one probe each of the structures' running
    /// runs). Only when those are all taken or wait for their structure's turn, and the claim has slots left, does it
    /// look further (`later`), past the last of them (past the window's last run when the window held fewer that could
    /// start than the front takes; nowhere when the window was the whole queue): at the runs
    /// whose turn it is (``turns(_:)``), found from each structure with open runs and from the index of queued runs
    /// leaving the session alone, never walking the runs queued behind a structure's turn (docs/store.md, "What a
    /// claim costs"). Both take the runs in the queue's order and skip those other workers are claiming, as one walk
    /// of the whole queue would. The runs of the front are found by their keys (`= ANY (ARRAY(...))`): with `IN`, a
    /// planner that expected few queued runs read every one of them.
    static let claimStatement = """
        WITH RECURSIVE lost AS (
            UPDATE matterflow_runs r SET claim_token = $4, lease_until = clock_timestamp() + make_interval(secs => $2::float8)
            WHERE r.worker_id = $1 AND r.status = 'running' AND r.lease_until >= now()
                AND r.claim_token = ANY($5::text[])
            RETURNING r.run_id, r.workflow_file, r.structure_id, r.inputs::text, r.secret_inputs, r.claims, coalesce(r.claim_takeover, true) AS takeover, r.answers::text, r.secret_answers, r.answered_through,
                r.cancel_requested_at IS NOT NULL, r.hub_failures, 0 AS kind, r.submitted_at, r.workflow_hash, NULL::text AS previous_worker,
                r.claims - coalesce(r.claims_at_reopen - 1, 0) AS settle_claims
        ), expired AS (
            UPDATE matterflow_runs r SET worker_id = $1, claims = r.claims + 1, claim_token = $4, claim_takeover = true,
                lease_until = clock_timestamp() + make_interval(secs => $2::float8)
            FROM (
                SELECT run_id, worker_id FROM matterflow_runs WHERE status = 'running' AND lease_until < now()
                    AND (worker_id IS NULL OR ($7::boolean AND clock_timestamp() < now() + make_interval(secs => $2::float8 / 2)))
                ORDER BY lease_until, run_id LIMIT $3::integer FOR UPDATE SKIP LOCKED) AS previous
            WHERE r.run_id = previous.run_id
            RETURNING r.run_id, r.workflow_file, r.structure_id, r.inputs::text, r.secret_inputs, r.claims, true AS takeover, r.answers::text, r.secret_answers, r.answered_through,
                r.cancel_requested_at IS NOT NULL, r.hub_failures, 1 AS kind, r.submitted_at, r.workflow_hash, previous.worker_id AS previous_worker,
                r.claims - coalesce(r.claims_at_reopen - 1, 0) AS settle_claims
        ), front AS (
            SELECT w.run_id, w.submitted_at FROM (
                SELECT run_id, submitted_at, structure_id, works_in_session FROM matterflow_runs WHERE status = 'queued'
                ORDER BY submitted_at, run_id LIMIT \(PostgresRunStore.queueWindow)) AS w
            WHERE w.works_in_session IS FALSE OR NOT \(PostgresRunStore.sessionRunning("w.structure_id"))
            ORDER BY w.submitted_at, w.run_id LIMIT greatest($3::integer * 2, 64)
        ), bound AS (
            (SELECT submitted_at, run_id FROM front WHERE (SELECT count(*) FROM front) = greatest($3::integer * 2, 64)
                ORDER BY submitted_at DESC, run_id DESC LIMIT 1)
            UNION ALL
            (SELECT submitted_at, run_id FROM matterflow_runs
                WHERE status = 'queued' AND (SELECT count(*) FROM front) < greatest($3::integer * 2, 64)
                ORDER BY submitted_at, run_id OFFSET \(PostgresRunStore.queueWindow - 1) LIMIT 1)
        ), early AS (
            -- The status is compared as no partial index's condition is written, so the runs are found by their keys:
            -- a planner without statistics took the index of the queue's order and compared each entry with the keys.
            SELECT queued_run.run_id FROM matterflow_runs queued_run
            WHERE queued_run.run_id = ANY (ARRAY(SELECT run_id FROM front)) AND coalesce(queued_run.status = 'queued', false)
                AND \(PostgresRunStore.claimable("$6"))
                AND \(PostgresRunStore.sessionTurn("queued_run"))
            ORDER BY queued_run.submitted_at, queued_run.run_id LIMIT greatest($3::integer - (SELECT count(*) FROM expired), 0)
            FOR UPDATE SKIP LOCKED
        ), \(PostgresRunStore.openStructures), later AS (
            SELECT queued_run.run_id FROM \(PostgresRunStore.turns("$6")) turn JOIN matterflow_runs queued_run ON queued_run.run_id = turn.run_id
            WHERE queued_run.status = 'queued' AND EXISTS (SELECT 1 FROM bound)
                AND (turn.submitted_at, turn.run_id) > (SELECT submitted_at, run_id FROM bound)
            ORDER BY turn.submitted_at, turn.run_id
            LIMIT greatest($3::integer - (SELECT count(*) FROM expired) - (SELECT count(*) FROM early), 0)
            FOR UPDATE OF queued_run SKIP LOCKED
        ), queued AS (
            UPDATE matterflow_runs r SET status = 'running', worker_id = $1, claims = r.claims + 1, claim_token = $4, claim_takeover = false,
                lease_until = clock_timestamp() + make_interval(secs => $2::float8), started_at = coalesce(r.started_at, now())
            WHERE r.run_id IN (SELECT run_id FROM early UNION ALL SELECT run_id FROM later)
            RETURNING r.run_id, r.workflow_file, r.structure_id, r.inputs::text, r.secret_inputs, r.claims, false AS takeover, r.answers::text, r.secret_answers, r.answered_through,
                r.cancel_requested_at IS NOT NULL, r.hub_failures, 2 AS kind, r.submitted_at, r.workflow_hash, NULL::text AS previous_worker,
                r.claims - coalesce(r.claims_at_reopen - 1, 0) AS settle_claims
        )
        SELECT * FROM (SELECT * FROM lost UNION ALL SELECT * FROM expired UNION ALL SELECT * FROM queued) AS claimed
        ORDER BY kind, submitted_at, run_id
        """

    /// SQL: whether the queued run `alias` may start as far as its structure's commissioning session goes: its
    /// workflow leaves the session alone, or it is its structure's turn (``structureTurn(_:)``) and no other run of the
    /// structure that works in the session is running (leased, handed back, or waiting for a takeover). Such runs
    /// start one at a time per structure, in the order they were queued: two claims at once take only the oldest,
    /// which one of them locks and the other skips. (Runs queued by transactions that commit out of the order they
    /// began in may, in the instant between, both start; the session's row then refuses one of them `sessionBusy`.)
    ///
    /// The turn is looked for among the structure's runs queued no later than `alias`: the same run, found among the
    /// queue's first rows whatever plan the server takes. A plan made while the table has no column statistics (a
    /// queue just filled, or between the first autovacuum's VACUUM and its ANALYZE, a plan that stays cached after
    /// the ANALYZE) reads them all: unbounded, it would read each structure's whole backlog for every run of the
    /// queue's front.
    static func sessionTurn(_ alias: String) -> String {
        """
        (\(alias).works_in_session IS FALSE OR (
            \(alias).run_id = (SELECT turn.run_id FROM \(structureTurn("\(alias).structure_id", notAfter: alias)))
            AND NOT \(sessionRunning("\(alias).structure_id"))))
        """
    }

    /// SQL, a `FROM` item named `turn` of one row or none: the structure's first queued run (`run_id`, `submitted_at`,
    /// `secret_inputs`, `secret_answers`) whose workflow works in the session, by the time it was queued: the one whose
    /// turn it is once the structure has no such run running. A run with secrets is the structure's turn for every
    /// worker, so that the runs behind it wait for a worker that can start it, also for workers without `--secrets`.
    /// It is one probe of the index of the structure's open runs; the look says "queued" as that index can serve
    /// (`IN (...)` and `<> 'running'`), and orders as it does, so the planner takes the index on a table it has no
    /// statistics for yet (a queue just filled) as on one it has.
    /// With `notAfter`, the alias of a queued run, only the runs queued no later than it are looked at: the turn when
    /// it is that run or one before it.
    static func structureTurn(_ structure: String, notAfter run: String? = nil) -> String {
        let bound = run.map { " AND (head.submitted_at, head.run_id) <= (\($0).submitted_at, \($0).run_id)" } ?? ""
        return """
        (SELECT head.run_id, head.submitted_at, head.secret_inputs, head.secret_answers FROM matterflow_runs head
            WHERE head.structure_id = \(structure) AND head.status IN ('queued', 'running') AND head.status <> 'running'
                AND head.works_in_session IS NOT FALSE\(bound)
            ORDER BY head.submitted_at, head.run_id LIMIT 1) AS turn
        """
    }

    /// How many of the queue's first runs a claim looks at for its front before it looks at each structure's turn.
    static let queueWindow = 256

    /// SQL: whether a run of the structure that works in the session is running.
    static func sessionRunning(_ structure: String) -> String {
        """
        EXISTS (
            SELECT 1 FROM matterflow_runs other
            WHERE other.structure_id = \(structure) AND other.status = 'running' AND other.works_in_session IS NOT FALSE)
        """
    }

    /// SQL: the common table expression `open_structures`, the structures with queued or running runs, one row each
    /// (and a last row of null), read from the index of the structures' open runs one structure at a time (a loose
    /// index scan): a step per structure, however many runs each has queued. It needs `WITH RECURSIVE`.
    static let openStructures = """
        open_structures (structure_id) AS (
            (SELECT structure_id FROM matterflow_runs WHERE status IN ('queued', 'running') ORDER BY structure_id LIMIT 1)
            UNION ALL
            SELECT (SELECT step.structure_id FROM matterflow_runs step
                    WHERE step.status IN ('queued', 'running') AND step.structure_id > s.structure_id ORDER BY step.structure_id LIMIT 1)
            FROM open_structures s WHERE s.structure_id IS NOT NULL)
        """

    /// SQL, a subquery of `run_id` and `submitted_at`: every queued run a worker may claim now (`parameter`, a
    /// boolean, saying whether it takes runs with secrets), as ``claimable(_:)`` and ``sessionTurn(_:)`` say, found
    /// without walking the runs that wait for their structure's turn: the queued runs leaving the session alone, from
    /// their own index, and each structure's turn (``openStructures``, which must be in the statement), when no run
    /// of the structure working in the session is running. Not ordered.
    static func turns(_ parameter: String) -> String {
        """
        (SELECT run_id, submitted_at FROM matterflow_runs
            WHERE status = 'queued' AND works_in_session IS FALSE AND \(claimable(parameter))
        UNION ALL
        SELECT turn.run_id, turn.submitted_at FROM open_structures s CROSS JOIN LATERAL \(structureTurn("s.structure_id"))
            WHERE \(claimable(parameter)) AND NOT \(sessionRunning("s.structure_id")))
        """
    }

    /// A claimed run from a row of ``claimStatement``.
    private static func claimedRun(_ row: [String?]) -> ClaimedRun {
        let takeover = row[6] == "t"
        let inputs = row[3].map(Self.object)
        let answers = row[7].map(Self.object)
        var damage: [String] = []
        if inputs == .some(nil) { damage.append("its inputs") }
        if answers == .some(nil) { damage.append("its answers") }
        var claimed = ClaimedRun(
            runID: row[0] ?? "", workflowFile: row[1] ?? "", structureID: row[2] ?? "", inputs: (inputs ?? nil) ?? [:],
            secretInputs: Self.textArray(row[4]), takeover: takeover, claims: row[5].flatMap { Int($0) } ?? 1,
            secretAnswers: Self.textArray(row[8]), answeredThrough: row[9].flatMap { Int64($0) } ?? 0,
            cancelRequested: row[10] == "t", hubFailures: row[11].flatMap { Int($0) } ?? 0)
        for member in ((answers ?? nil) ?? [:]).members { claimed.answers[member.key] = member.value }
        claimed.workflowHash = row[14]
        claimed.previousWorker = row[15]
        claimed.claimsSinceReopen = row[16].flatMap { Int($0) } ?? claimed.claims
        if !damage.isEmpty {
            claimed.damage = "\(damage.joined(separator: " and ")) in matterflow_runs \(damage.count == 1 ? "is" : "are") not a JSON object MatterFlow can read"
        }
        return claimed
    }

    /// A column's JSON object; nil when the text is not one.
    private static func object(_ text: String) -> JSONObject? {
        try? JSONDocument.parse(text, file: "<store>").value.objectValue
    }

    /// Extends the leases of the runs the worker is running; returns those still leased to it (a run missing here
    /// was taken over: the worker must stop writing it, which the store enforces anyway). A run the worker holds but
    /// no longer runs (its final status could not be recorded) is not renewed, so its lease runs out and it is
    /// settled like any other.
    @discardableResult
    public func heartbeat(_ workerID: String, running runIDs: [String], leaseSeconds: Double) throws(StoreError) -> Set<String> {
        try heartbeatReadingSchema(workerID, running: runIDs, leaseSeconds: leaseSeconds).renewed
    }

    /// As ``heartbeat(_:running:leaseSeconds:)``, also answering the store's schema version now: a `store migrate`
    /// while the worker runs changes it, and the worker, built for the old one, stops claiming (``StoreWorker``).
    public func heartbeatReadingSchema(
        _ workerID: String, running runIDs: [String], leaseSeconds: Double
    ) throws(StoreError) -> (renewed: Set<String>, schemaVersion: Int?) {
        let schema = try execute(
            """
            UPDATE matterflow_workers SET heartbeat_at = now() WHERE worker_id = $1
            RETURNING (SELECT max(version) FROM matterflow_migrations)
            """, [workerID], doing: "heartbeat")
        return (try renewLeases(workerID, of: runIDs, leaseSeconds: leaseSeconds), schema.rows.first?.first.flatMap { $0.flatMap { Int($0) } })
    }

    /// Renews the leases of those of `runIDs` the worker holds, and returns them, without ever waiting for one run's
    /// row while holding another's. A batch of the worker's records holds its runs' rows (`FOR SHARE`, the fence) and
    /// may then update others (a final status, a lease confirmed); a heartbeat that had updated one of those and waited
    /// for one the batch holds would deadlock with it, and the server would end one of them after a second. So the rows
    /// free now are renewed in one statement that skips the rest; then, while some the worker still holds were
    /// skipped, one of them is renewed by a statement of its own, which waits for that row alone (for the batch that
    /// holds it to commit), and the free rows of the rest are renewed again in one statement.
    func renewLeases(_ workerID: String, of runIDs: [String], leaseSeconds: Double) throws(StoreError) -> Set<String> {
        var renewed: Set<String> = []
        var left = runIDs
        while !left.isEmpty {
            let free = try execute(
                """
                WITH free AS (
                    SELECT run_id FROM matterflow_runs WHERE worker_id = $1 AND status = 'running' AND run_id = ANY($3::text[])
                    FOR NO KEY UPDATE SKIP LOCKED)
                UPDATE matterflow_runs r SET lease_until = clock_timestamp() + make_interval(secs => $2::float8)
                FROM free WHERE r.run_id = free.run_id RETURNING r.run_id
                """, [workerID, String(leaseSeconds), Self.textArrayLiteral(left)], doing: "renewing leases")
            renewed.formUnion(free.rows.compactMap { $0[0] })
            left.removeAll { renewed.contains($0) }
            guard !left.isEmpty else { break }
            // Read without a lock: which of the others are still the worker's (the rest were taken over or ended).
            let held = try execute(
                "SELECT run_id FROM matterflow_runs WHERE worker_id = $1 AND status = 'running' AND run_id = ANY($2::text[]) ORDER BY run_id",
                [workerID, Self.textArrayLiteral(left)], doing: "renewing leases")
            guard case let waited?? = held.rows.first?.first else { break }
            let one = try execute(
                """
                UPDATE matterflow_runs SET lease_until = clock_timestamp() + make_interval(secs => $2::float8)
                WHERE run_id = $3 AND worker_id = $1 AND status = 'running' RETURNING run_id
                """, [workerID, String(leaseSeconds), waited], doing: "renewing leases")
            if !one.rows.isEmpty { renewed.insert(waited) }
            let stillHeld = Set(held.rows.compactMap { $0[0] })
            left.removeAll { $0 == waited || !stillHeld.contains($0) }
        }
        return renewed
    }

    /// Whether `workerID` still holds the run as its claim took it: running, leased to it, and claimed no further
    /// time since (`claims`, that claim's count).
    func holds(_ runID: String, by workerID: String, claims: Int) throws(StoreError) -> Bool {
        try !execute(
            "SELECT 1 FROM matterflow_runs WHERE run_id = $1 AND status = 'running' AND worker_id = $2 AND claims = $3::integer",
            [runID, workerID, String(claims)], doing: "looking up run \(runID)"
        ).rows.isEmpty
    }

    /// Of `runIDs`, those running under another worker's lease: taken over. (A run this worker handed back has no
    /// worker, and one that ended no lease.)
    func heldElsewhere(_ runIDs: [String], notBy workerID: String) throws(StoreError) -> [String] {
        guard !runIDs.isEmpty else { return [] }
        let rows = try execute(
            """
            SELECT run_id FROM matterflow_runs
            WHERE run_id = ANY($1::text[]) AND status = 'running' AND worker_id <> $2
            ORDER BY run_id
            """, [Self.textArrayLiteral(runIDs), workerID], doing: "looking for runs taken over")
        return rows.rows.compactMap { $0[0] }
    }

    /// Gives runs back to the fleet (graceful shutdown, or a run this worker cannot run, or cannot go on with yet):
    /// no worker holds them, and their leases end `seconds` from now (at once by default), so no worker of the fleet
    /// (this one included) claims them before then; then any worker takes them over and settles them from their
    /// records. Idle workers are told, in the same statement. With `hubFailure`, the worker could not reach the runs'
    /// hub, which each run counts (`matterflow_runs.hub_failures`). Returns the runs handed back: those this worker
    /// still held, running.
    @discardableResult
    public func handBack(
        _ runIDs: [String], by workerID: String, retryAfter seconds: Double = 0, hubFailure: Bool = false
    ) throws(StoreError) -> [String] {
        guard !runIDs.isEmpty else { return [] }
        // A lease that ends "now" could still look current to a claim in the same instant: at once is a second ago.
        let after = seconds > 0 ? seconds : -1
        let handed = try execute(
            """
            WITH handed AS (
                UPDATE matterflow_runs SET worker_id = NULL, lease_until = now() + make_interval(secs => $3::float8),
                    hub_failures = hub_failures + $4::integer
                WHERE run_id = ANY($1::text[]) AND worker_id = $2 AND status = 'running'
                RETURNING run_id
            )
            SELECT run_id, pg_notify('matterflow_queue', 'handback') FROM handed ORDER BY run_id
            """, [Self.textArrayLiteral(runIDs), workerID, String(after), hubFailure ? "1" : "0"], doing: "handing runs back",
            retryingFor: Self.reconnectLimit)
        return handed.rows.compactMap { $0.first ?? nil }
    }

    /// Marks a worker as stopping in `matterflow_workers` (graceful shutdown has begun: it claims nothing more).
    public func markStopping(_ workerID: String) throws(StoreError) {
        try execute("UPDATE matterflow_workers SET stopping = true WHERE worker_id = $1", [workerID], doing: "stopping worker")
    }

    /// Puts runs parked at a checkpoint back in the queue (graceful shutdown): `queued` again, no worker, no lease,
    /// announced in the same statement; the worker that claims one next resumes it from its records.
    public func handBack(parked runIDs: [String], by workerID: String) throws(StoreError) {
        guard !runIDs.isEmpty else { return }
        try execute(
            """
            WITH queued AS (
                UPDATE matterflow_runs SET status = 'queued', worker_id = NULL, lease_until = NULL, queued_at = now()
                WHERE run_id = ANY($1::text[]) AND worker_id = $2 AND status = 'running'
                RETURNING run_id
            )
            SELECT pg_notify('matterflow_queue', run_id) FROM queued
            """, [Self.textArrayLiteral(runIDs), workerID], doing: "handing parked runs back", retryingFor: Self.reconnectLimit)
    }

    // MARK: - One commissioning session per structure, fleet-wide

    /// The run holding the structure's fleet session row, with the run's status (nil when the run is not in the
    /// store); nil when no run holds it.
    public func sessionHolder(of structure: StructureID) throws(StoreError) -> (runID: String, status: String?)? {
        let rows = try execute(
            "SELECT s.run_id, r.status FROM matterflow_sessions s LEFT JOIN matterflow_runs r ON r.run_id = s.run_id WHERE s.structure_id = $1",
            [structure], doing: "reading the session row of structure \(structure)")
        guard let row = rows.rows.first, let runID = row[0] else { return nil }
        return (runID, row[1])
    }

    /// The structures whose session a run holds, with the run.
    public func sessions() throws(StoreError) -> [(structure: StructureID, runID: String)] {
        let rows = try execute("SELECT structure_id, run_id FROM matterflow_sessions ORDER BY structure_id", doing: "listing sessions")
        return rows.rows.map { ($0[0] ?? "", $0[1] ?? "") }
    }
}
