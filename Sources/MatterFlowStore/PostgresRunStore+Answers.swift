import MatterFlow
import MatterFlowJSON

/// An answer given to a run after it was submitted (`matterflow answer`), as the worker running the run reads it.
public struct GivenAnswer: Sendable, Hashable {
    /// Its place among all answers given (``ClaimedRun/answeredThrough`` is the last a claim holds).
    public var sequence: Int64
    /// The question's name, or its ask state's.
    public var name: String
    /// The answer; `"<redacted>"` for a secret one, whose value waits in the secrets directory.
    public var value: JSONValue
    /// Whether the answer is secret: ``value`` is then `"<redacted>"`, and the real one waits in the secrets
    /// directory.
    public var secret: Bool
}

extension PostgresRunStore {
    /// Gives a queued or running run the answer to one of its questions, in one transaction: merged into the run's
    /// answers (where a worker that claims the run, or takes it over, finds it), added to the answers given since
    /// submit, and announced to the worker running it (`NOTIFY matterflow_answers` with the run's ID), which hands
    /// it to the run: at once when the run waits for that question, otherwise when it asks it.
    ///
    /// A secret answer is stored as `"<redacted>"`; its value must already wait in the secrets directory the
    /// run's worker reads (``SecretInbox/add(_:runID:kind:)``). A later answer to the same question replaces an
    /// earlier one not yet used. `answerID` names this answer: a statement the store repeats after losing the reply
    /// to its commit (even while the first still holds the run's row) finds it given and adds nothing.
    /// - Returns: the run's status when it was answered: `queued` or `running` (for a repeat, its status now).
    /// - Throws: ``StoreError`` `runNotFound`; `runEnded` when the run has a final status (it takes no answers);
    ///   `storeFailed` when `answerID` names an answer given to another run.
    @discardableResult
    public func answer(
        runID: String, name: String, value: JSONValue, secret: Bool,
        answerID: String = "answer-" + SystemRandomSource().hexDigits(16)
    ) throws(StoreError) -> String {
        let stored = secret ? JSONValue.string(RunOptions.redacted) : value
        // The run's row is locked before the answer takes its number, so one run's answers are numbered in the order
        // they commit, and the row's answers and last number change together.
        let rows = try execute(
            Self.answerStatement, [runID, name, JSONWriter.compact(stored), secret ? "true" : "false", answerID],
            doing: "answering run \(runID)")
        if let status = rows.rows.first?.first ?? nil { return status }
        let owner = try execute("SELECT run_id FROM matterflow_answers WHERE answer_id = $1", [answerID], doing: "answering run \(runID)")
        if let other = owner.rows.first?.first ?? nil {
            throw StoreError(.storeFailed, "answer ID \(answerID) was given to run \(other) already; give each answer an ID of its own")
        }
        let ended = try status(of: runID)
        throw StoreError(
            .runEnded,
            "run \(runID) has ended (\(ended)) and takes no more answers; `matterflow history \(runID) --store URL` shows what it did")
    }

    /// The statement of ``answer(runID:name:value:secret:answerID:)``: `$1` run, `$2` name, `$3` value (JSON), `$4`
    /// secret, `$5` answer ID. A repeat that waited for the first statement's row lock is evaluated again on the row
    /// that statement left, so its answer number still covers the first's; its answer row is the first's.
    static let answerStatement = """
        WITH run AS (
            UPDATE matterflow_runs SET answers = answers || jsonb_build_object($2::text, $3::jsonb),
                secret_answers = CASE
                    WHEN $4::boolean THEN array_append(array_remove(secret_answers, $2::text), $2::text)
                    ELSE array_remove(secret_answers, $2::text) END,
                answered_through = nextval('matterflow_answer_numbers')
            WHERE run_id = $1 AND status IN ('queued', 'running')
                AND NOT EXISTS (SELECT 1 FROM matterflow_answers WHERE answer_id = $5)
            RETURNING run_id, status, answered_through
        ), given AS (
            INSERT INTO matterflow_answers (seq, answer_id, run_id, name, value, secret)
            SELECT answered_through, $5, run_id, $2, $3::jsonb, $4::boolean FROM run
            ON CONFLICT (answer_id) DO NOTHING
        )
        SELECT run.status, pg_notify('matterflow_answers', run.run_id) FROM run
        UNION ALL
        SELECT r.status, NULL FROM matterflow_answers a JOIN matterflow_runs r USING (run_id)
        WHERE a.answer_id = $5 AND a.run_id = $1 AND NOT EXISTS (SELECT 1 FROM run)
        """

    /// The workflow file a run was submitted with, and its status now.
    /// - Throws: ``StoreError`` `runNotFound`.
    public func submission(of runID: String) throws(StoreError) -> (workflowFile: String, status: String) {
        let rows = try execute(
            "SELECT workflow_file, status FROM matterflow_runs WHERE run_id = $1", [runID], doing: "reading run \(runID)")
        guard let row = rows.rows.first, let file = row[0], let status = row[1] else {
            throw StoreError.runNotFound(runID)
        }
        return (file, status)
    }

    /// The answers given to a run after submit, past the one numbered `sequence`, in the order given.
    /// - Throws: ``StoreError`` `storeFailed` for a row MatterFlow did not write.
    public func answers(of runID: String, after sequence: Int64) throws(StoreError) -> [GivenAnswer] {
        // Each value inside an array, so that a bare `true` or `3` reads as JSON text of its own.
        let rows = try execute(
            """
            SELECT seq, name, jsonb_build_array(value)::text, secret FROM matterflow_answers
            WHERE run_id = $1 AND seq > $2::bigint ORDER BY seq
            """, [runID, String(sequence)], doing: "reading the answers of run \(runID)")
        var given: [GivenAnswer] = []
        for row in rows.rows {
            guard let number = row[0].flatMap({ Int64($0) }), let name = row[1],
                let value = row[2].flatMap({ try? JSONDocument.parse($0, file: "<store>").value.arrayValue?.first })
            else {
                throw StoreError(.storeFailed, "an answer of run \(runID) in matterflow_answers is not one MatterFlow wrote: \(row)")
            }
            given.append(GivenAnswer(sequence: number, name: name, value: value, secret: row[3] == "t"))
        }
        return given
    }
}
