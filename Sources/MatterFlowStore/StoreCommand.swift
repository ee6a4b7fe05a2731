import MatterFlow
import MatterFlowJSON

/// A change to the store that a run waits for and that the ``GroupCommitter`` carries in its next transaction,
/// after the records: the fleet's session lock of a structure taken or given back, and a run's final status.
///
/// In the batch a command costs a statement shared by every run of the batch, not a round trip and a commit of its
/// own, and the run's task waits suspended, holding no thread.
enum StoreCommand: Sendable {
    /// Takes the structure's session for the run: a row per structure, the structure its primary key, so the take
    /// of a second run conflicts. The row of a run that ended failed or cancelled (its session was released, or
    /// lapsed on the hub), or of no run, does not block.
    case acquireSession(structure: StructureID, runID: String)
    /// Gives the structure's session up: the run's own row, or whoever's when `runID` is nil. Only while this worker
    /// holds the lease of the run `by` that gives it up (when named; its row locked `FOR SHARE`, so a takeover's
    /// claim committing meanwhile is waited for and seen): a run another worker took over gives up nothing here,
    /// since its row now stands for the new worker's run; that worker settles it.
    case releaseSession(structure: StructureID, runID: String?, by: String?)
    /// Records the run's final status, fenced by its lease, having first given up the session it holds (unless it
    /// keeps it: `release` nil), fenced the same way. In the same transaction as the run's last records, or a later
    /// one.
    case finish(RunConclusion, release: StructureID?)
    /// Whether this worker still holds the run's lease (the run `running`, leased to it), its row locked so a
    /// takeover's claim committing meanwhile is waited for and seen; renewed for `renewingFor` seconds when given. How
    /// a hub call the run journals no intent for (the release of a session the hub opened late) is fenced as the run's
    /// other calls are by their intents, and how a run whose worker was paused makes no call once the run is another
    /// worker's (``LeaseConfirmations``).
    case confirmLease(runID: String, renewingFor: Double?)
}

/// A run's final status as the worker records it.
struct RunConclusion: Sendable {
    var runID: String
    var status: String
    var output: JSONValue?
    var error: JSONValue?
    var recovered: Bool
    var notes: [String]
    /// The run's claim count (`claims`) when this worker claimed it. Only the worker holding a run records its
    /// final status, and each claim counts, so a run that ended with this status and this count ended by this
    /// worker: a final status written again after its commit's answer was lost is recognised as recorded.
    var claims: Int
}

/// What a ``StoreCommand`` did.
enum StoreCommandAnswer: Sendable, Hashable {
    /// The session is the run's.
    case acquired
    /// Another run holds the structure's session: this one, unless its row went before it could be read.
    case busy(holder: FleetSessionHolder?)
    case released
    /// Whether the status is recorded as this worker's: written now, or in a transaction of this worker whose
    /// commit's answer was lost (false: the run is leased to another worker, or another ended it).
    case finished(recorded: Bool)
    /// Whether this worker holds the run's lease.
    case leaseHeld(Bool)
}

extension StoreCommand {
    /// Performs a batch's commands inside the transaction open on `connection`, in at most six statements whatever
    /// their number: one `SELECT` of the leases to look at, one `UPDATE` of the leases to confirm and renew, one `DELETE` for the session releases (those of finishing
    /// runs included), one `INSERT` for the session takes and, when some were refused, one `SELECT` of who holds those
    /// structures (the run, its status and worker, and since when), and one `UPDATE` for the final statuses that also sends the notifications of the runs' ends.
    /// Returns one answer per command, in order.
    ///
    /// Of several takes of one structure (runs racing for it) only the first is inserted, as one statement cannot
    /// claim a row twice; the others are answered ``StoreCommandAnswer/busy(holder:)`` with whoever holds the
    /// structure after it, in the same batch.
    static func perform(_ commands: [StoreCommand], workerID: String, on connection: PostgresConnection) throws(PostgresError)
        -> [StoreCommandAnswer]
    {
        var releases: [JSONValue] = []
        var takes: [JSONValue] = []
        var taken: Set<StructureID> = []
        var finishes: [JSONValue] = []
        var looks: [String] = []
        var renewals: [String] = []
        var leaseSeconds = 0.0
        for command in commands {
            switch command {
            case .confirmLease(let runID, let seconds?):
                renewals.append(runID)
                leaseSeconds = max(leaseSeconds, seconds)
            case .confirmLease(let runID, nil):
                looks.append(runID)
            case .releaseSession(let structure, let runID, let issuer):
                releases.append([
                    "structure": .string(structure), "run": runID.map(JSONValue.string) ?? .null, "issuer": issuer.map(JSONValue.string) ?? .null,
                ])
            case .acquireSession(let structure, let runID):
                if taken.insert(structure).inserted { takes.append(["structure": .string(structure), "run": .string(runID)]) }
            case .finish(let conclusion, let release):
                if let release {
                    releases.append(["structure": .string(release), "run": .string(conclusion.runID), "issuer": .string(conclusion.runID)])
                }
                var row: JSONObject = [
                    "run": .string(conclusion.runID), "status": .string(conclusion.status), "recovered": .bool(conclusion.recovered),
                    "notes": .array(conclusion.notes.map(JSONValue.string)), "claims": .int(conclusion.claims),
                ]
                // Left out rather than JSON null, so the columns get SQL NULL.
                if let output = conclusion.output { row["output"] = output }
                if let error = conclusion.error { row["error"] = error }
                finishes.append(.object(row))
            }
        }
        var held: Set<String> = []
        if !looks.isEmpty {
            let rows = try connection.execute(
                prepared:
                """
                SELECT run_id FROM matterflow_runs WHERE run_id = ANY($1::text[]) AND worker_id = $2 AND status = 'running'
                FOR SHARE
                """, [PostgresRunStore.textArrayLiteral(looks), workerID])
            held = Set(rows.rows.compactMap { $0[0] })
        }
        if !renewals.isEmpty {
            let rows = try connection.execute(
                prepared:
                """
                UPDATE matterflow_runs SET lease_until = clock_timestamp() + make_interval(secs => $3::float8)
                WHERE run_id = ANY($1::text[]) AND worker_id = $2 AND status = 'running'
                RETURNING run_id
                """, [PostgresRunStore.textArrayLiteral(renewals), workerID, String(leaseSeconds)])
            held.formUnion(rows.rows.compactMap { $0[0] })
        }
        if !releases.isEmpty {
            try connection.execute(
                prepared:
                """
                DELETE FROM matterflow_sessions s USING jsonb_to_recordset($1::jsonb) AS x(structure text, run text, issuer text)
                WHERE s.structure_id = x.structure AND (x.run IS NULL OR s.run_id = x.run)
                  AND (x.issuer IS NULL OR EXISTS (
                      SELECT 1 FROM matterflow_runs r WHERE r.run_id = x.issuer AND r.worker_id = $2 FOR SHARE))
                """, [JSONWriter.compact(JSONValue.array(releases).storableAsJSONB), workerID])
        }
        var holders: [StructureID: String] = [:]
        var busyHolders: [StructureID: FleetSessionHolder] = [:]
        if !takes.isEmpty {
            // The row of a run that ended failed or cancelled, or of no run, does not block.
            let taken = try connection.execute(
                prepared:
                """
                INSERT INTO matterflow_sessions AS s (structure_id, run_id)
                SELECT structure, run FROM jsonb_to_recordset($1::jsonb) AS x(structure text, run text)
                ON CONFLICT (structure_id) DO UPDATE SET run_id = EXCLUDED.run_id, acquired_at = now()
                WHERE s.run_id = EXCLUDED.run_id OR EXISTS (
                    SELECT 1 FROM matterflow_runs r WHERE r.run_id = s.run_id AND r.status IN ('failed', 'cancelled'))
                   OR NOT EXISTS (SELECT 1 FROM matterflow_runs r WHERE r.run_id = s.run_id)
                RETURNING structure_id, run_id
                """, [JSONWriter.compact(JSONValue.array(takes).storableAsJSONB)])
            for row in taken.rows { if let structure = row[0], let run = row[1] { holders[structure] = run } }
            // Every take its structure's row does not name is refused, a take that lost a race in this batch too: the
            // refusal names who holds the structure, with the run's status and worker and since when.
            let refused = Set(commands.compactMap { command -> StructureID? in
                guard case .acquireSession(let structure, let runID) = command, holders[structure] != runID else { return nil }
                return structure
            })
            if !refused.isEmpty {
                let current = try connection.execute(
                    prepared:
                    """
                    SELECT s.structure_id, s.run_id, r.status, coalesce(r.worker_id, r.finished_by), extract(epoch FROM s.acquired_at)::float8
                    FROM matterflow_sessions s LEFT JOIN matterflow_runs r ON r.run_id = s.run_id
                    WHERE s.structure_id = ANY($1::text[])
                    """,
                    [PostgresRunStore.textArrayLiteral(refused.sorted())])
                for row in current.rows {
                    guard let structure = row[0], let run = row[1] else { continue }
                    holders[structure] = run
                    busyHolders[structure] = FleetSessionHolder(
                        runID: run, status: row[2], workerID: row[3], since: row[4].flatMap(Double.init))
                }
            }
        }
        var recorded: Set<String> = []
        if !finishes.isEmpty {
            // Watchers of each run (`watch`) learn it ended. Idle workers look again (with --exit-when-idle, whether all
            // is done) when no run is queued, or when a run that worked in its structure's session ended and another
            // of the structure waits for its turn: otherwise a worker is idle only when it found nothing it may claim,
            // and a run queued since was announced when it was, so the notification would wake every worker's listener
            // for nothing.
            let done = try connection.execute(
                prepared:
                """
                WITH done AS (
                    UPDATE matterflow_runs r SET status = f.status, output = f.output, error = f.error, recovered = f.recovered,
                        notes = f.notes, finished_at = now(), finished_by = r.worker_id, worker_id = NULL, lease_until = NULL
                    FROM jsonb_to_recordset($1::jsonb)
                        AS f(run text, status text, output jsonb, error jsonb, recovered boolean, notes text[])
                    WHERE r.run_id = f.run AND r.worker_id = $2 AND r.status = 'running'
                    RETURNING r.run_id, r.structure_id, r.works_in_session
                ), earlier AS (
                    -- Recorded by this worker in a transaction whose commit's answer was lost: the run ended with
                    -- this status and nobody claimed it since (this statement's own update is not seen here). Each
                    -- run is looked up by its key (a subquery per run): a join would read the whole table.
                    SELECT f.run AS run_id FROM jsonb_to_recordset($1::jsonb) AS f(run text, status text, claims integer)
                    WHERE (SELECT r.status = f.status AND r.claims = f.claims AND r.worker_id IS NULL AND r.finished_at IS NOT NULL
                           FROM matterflow_runs r WHERE r.run_id = f.run)
                ), unwatched AS (
                    -- A run with a final status writes no more records: nobody need watch it any longer.
                    DELETE FROM matterflow_watchers WHERE run_id IN (SELECT run_id FROM done)
                ), announced AS (
                    SELECT pg_notify('matterflow_records', f.run) FROM jsonb_to_recordset($1::jsonb) AS f(run text)
                    WHERE f.run IN (SELECT run_id FROM matterflow_watchers)
                    UNION ALL SELECT pg_notify('matterflow_queue', 'finished')
                    WHERE NOT EXISTS (SELECT 1 FROM matterflow_runs WHERE status = 'queued')
                       OR EXISTS (
                           SELECT 1 FROM done JOIN matterflow_runs waiting ON waiting.structure_id = done.structure_id
                           WHERE done.works_in_session IS NOT FALSE AND waiting.status IN ('queued', 'running') AND waiting.status <> 'running'
                               AND waiting.works_in_session IS NOT FALSE)
                )
                SELECT d.run_id FROM (SELECT count(*) FROM announced) AS a(n)
                LEFT JOIN (SELECT run_id FROM done UNION SELECT run_id FROM earlier) AS d ON true
                """, [JSONWriter.compact(JSONValue.array(finishes).storableAsJSONB), workerID])
            recorded = Set(done.rows.compactMap { $0[0] })
        }
        return commands.map { command in
            switch command {
            case .releaseSession: return .released
            case .acquireSession(let structure, let runID):
                return holders[structure] == runID ? .acquired : .busy(holder: busyHolders[structure])
            case .finish(let conclusion, _): return .finished(recorded: recorded.contains(conclusion.runID))
            case .confirmLease(let runID, _): return .leaseHeld(held.contains(runID))
            }
        }
    }
}
