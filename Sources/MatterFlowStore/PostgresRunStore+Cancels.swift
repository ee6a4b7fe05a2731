import MatterFlow
import MatterFlowJSON

/// What asking for a run's cancel did (``PostgresRunStore/requestCancel(runID:)``).
public enum CancelRequest: String, Sendable, Hashable {
    /// The run ended cancelled: at once, without a worker, when no worker had claimed it (it made no call); or
    /// asked before, along its cancel path.
    case cancelled
    /// The run has begun: the worker running it takes its cancel path now, or the worker that claims it next does
    /// (a run handed back, or taken over). It ends `cancelled` once its cancel path is done (or with the status its
    /// cancel path gives, as any cancel).
    case cancelling
    /// The run had ended `needsAttention` (its recovery could not finish: the hub could not be read): it is settled
    /// again, a worker taking it over as from a dead worker, reading the hub again and taking its cancel path. It
    /// ends `needsAttention` again at once if the hub still cannot say what its calls did.
    case settlingAgain
}

extension PostgresRunStore {
    /// The error a run ended before its worker ran it has, as a cancelled run's error reads.
    static let cancelledBeforeItBegan: JSONValue = FlowError(
        code: .cancelled, cause: .runCancelled, message: "cancelled before it began (matterflow cancel); it made no call"
    ).jsonValue

    /// Asks for a run's cancel, from any machine, in one transaction. A queued run no worker has claimed ends
    /// `cancelled` at once. Any other queued or running run keeps the request (`cancel_requested_at`): the worker
    /// running it is told (`NOTIFY matterflow_cancels` with the run's ID) and takes the run's cancel path, which
    /// releases its session and undoes what the workflow says; a worker that claims it later takes that path too.
    /// Asking again changes nothing and says `cancelling` while the run is open, `cancelled` once it has ended so
    /// (also after the reply to the first was lost). A run that ended `needsAttention` is settled again
    /// (``CancelRequest/settlingAgain``).
    /// - Returns: What the request did, and whether the run left secrets files no worker will remove: it ended at
    ///   once (now, or when asked before) with secret inputs or answers, so its files stay in the secrets directory
    ///   until the caller removes them (``SecretInbox/remove(runID:output:)``).
    /// - Throws: ``StoreError`` `runNotFound`; `runEnded` when the run ended otherwise (succeeded, failed, or
    ///   cancelled before the request).
    public func requestCancel(runID: String) throws(StoreError) -> (request: CancelRequest, secretsLeft: Bool) {
        let rows = try execute(Self.cancelStatement, [runID, JSONWriter.compact(Self.cancelledBeforeItBegan)], doing: "cancelling run \(runID)")
        let hasSecrets = rows.rows.first.map { $0.count > 2 && $0[1] == "t" } ?? false
        let unclaimed = rows.rows.first.map { $0.count > 2 && $0[2] == "t" } ?? false
        let first = rows.rows.first?.first ?? nil
        // Only a run that ended at once is unclaimed: one cancelling has been claimed.
        if let first, let request = CancelRequest(rawValue: first) { return (request, unclaimed && hasSecrets) }
        switch first {
        case let final?:
            throw StoreError(
                .runEnded,
                "run \(runID) has ended (\(final.dropFirst("final:".count))); `matterflow history \(runID) --store URL` shows what it did")
        case nil:
            throw StoreError.runNotFound(runID)
        }
    }

    /// The statement of ``requestCancel(runID:)``: `$1` run, `$2` the error of a run ended before it began. The row
    /// is locked first, so a claim skips it meanwhile (`SKIP LOCKED`), and its columns are read as the last commit
    /// before the lock left them (a claim, a hand-back).
    static let cancelStatement = """
        WITH target AS (
            SELECT r.run_id, r.status, r.cancel_requested_at IS NOT NULL AS asked, r.claims = 0 AS unclaimed,
                cardinality(r.secret_inputs) + cardinality(r.secret_answers) > 0 AS secrets
            FROM matterflow_runs r WHERE r.run_id = $1 FOR UPDATE
        ), ended AS (
            UPDATE matterflow_runs r SET status = 'cancelled', cancel_requested_at = now(), finished_at = now(),
                error = $2::jsonb, worker_id = NULL, lease_until = NULL
            FROM target t WHERE r.run_id = t.run_id AND t.status = 'queued' AND t.unclaimed
            RETURNING r.run_id
        ), asked AS (
            UPDATE matterflow_runs r SET cancel_requested_at = now()
            FROM target t
            WHERE r.run_id = t.run_id AND NOT t.asked AND (t.status = 'running' OR (t.status = 'queued' AND NOT t.unclaimed))
            RETURNING r.run_id
        ), reopened AS (
            UPDATE matterflow_runs r SET status = 'running', cancel_requested_at = now(), finished_at = NULL, worker_id = NULL,
                lease_until = now() - interval '1 second', claims_at_reopen = r.claims
            FROM target t WHERE r.run_id = t.run_id AND t.status = 'needsAttention'
            RETURNING r.run_id
        ), announced AS (
            SELECT pg_notify('matterflow_cancels', run_id) FROM asked
            UNION ALL SELECT pg_notify('matterflow_records', run_id) FROM ended
            UNION ALL SELECT pg_notify('matterflow_queue', 'finished') FROM ended
            UNION ALL SELECT pg_notify('matterflow_queue', 'settle') FROM reopened
        )
        SELECT CASE
            WHEN EXISTS (SELECT 1 FROM reopened) THEN 'settlingAgain'
            WHEN EXISTS (SELECT 1 FROM ended) THEN 'cancelled'
            WHEN t.status IN ('queued', 'running') THEN 'cancelling'
            WHEN t.status = 'cancelled' AND t.asked THEN 'cancelled'
            ELSE 'final:' || t.status END, t.secrets, t.unclaimed
        FROM target t, (SELECT count(*) FROM announced) AS a(n)
        """

    /// Those of `runIDs` whose cancel was asked for: what a worker looks up after its listener reconnected, since
    /// announcements may have been lost meanwhile.
    func cancelsRequested(among runIDs: [String]) throws(StoreError) -> Set<String> {
        guard !runIDs.isEmpty else { return [] }
        let rows = try execute(
            "SELECT run_id FROM matterflow_runs WHERE run_id = ANY($1::text[]) AND cancel_requested_at IS NOT NULL",
            [Self.textArrayLiteral(runIDs)], doing: "looking for cancels asked for")
        return Set(rows.rows.compactMap { $0[0] })
    }
}
