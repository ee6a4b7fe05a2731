import MatterFlowJSON
import MatterFlowJournal

/// A run that waits for answers, with the questions it waits for (`matterflow runs --store URL --waiting`).
public struct WaitingRun: Sendable {
    /// The waiting run as the store lists it.
    public var run: StoredRun
    /// The questions, in the order asked (``WaitingQuestion/waiting(in:)``).
    public var questions: [WaitingQuestion]

    /// The run's ID, workflow and structure with its questions, as JSON.
    public var jsonValue: JSONValue {
        [
            "runID": .string(run.runID), "workflow": run.workflow.map(JSONValue.string) ?? .null,
            "structureID": run.structureID.map(JSONValue.string) ?? .null, "questions": .array(questions.map(\.jsonValue)),
        ]
    }
}

extension RunStore {
    /// The runs that wait for answers now, as their records show, oldest first: what a person answering a fleet's
    /// runs looks for. A queued run waits too when its records end at a question (a worker handed it back while it
    /// waited). Reads the records of every running and queued run.
    public func waitingRuns() throws(StoreError) -> [WaitingRun] {
        try Self.waiting(among: try runs()) { run throws(StoreError) in try records(of: run.runID) }
    }

    /// Those of `runs` still open (running or queued) whose records, as `records` reads them, end waiting for answers.
    static func waiting(
        among runs: [StoredRun], records: (StoredRun) throws(StoreError) -> [JournalRecord]
    ) throws(StoreError) -> [WaitingRun] {
        var waiting: [WaitingRun] = []
        for run in runs where run.isOpen {
            let questions = WaitingQuestion.waiting(in: try records(run))
            if !questions.isEmpty { waiting.append(WaitingRun(run: run, questions: questions)) }
        }
        return waiting
    }
}

extension PostgresRunStore {
    /// The runs that wait for answers now, oldest first, in two statements however many runs are open: the open
    /// runs, then the records of those that have asked a question. Both start from the open runs (their partial
    /// indexes) and read batches by their key, so the cost follows the open runs, not the ended ones the store keeps:
    /// `= ANY (ARRAY(...))` and the `LATERAL ... LIMIT 1` keep the planner from scanning every batch for
    /// `questionAsked`, as `IN (...)` with `EXISTS` let it.
    public func waitingRuns() throws(StoreError) -> [WaitingRun] {
        let listed = try openRuns()
        let rows = try execute(Self.askedRecordsStatement, doing: "reading the records of runs that asked questions")
        var records: [String: [JournalRecord]] = [:]
        var last: (runID: String, sequence: Int?) = ("", nil)
        for row in rows.rows {
            guard let runID = row[0], let text = row[1] else { throw StoreError(.damagedRecords, "a row of records in the store is empty") }
            if runID != last.runID { last = (runID, nil) }
            try RecordBatchRows.decode(text, runID: runID, after: 0, last: &last.sequence, into: &records[runID, default: []])
        }
        return try Self.waiting(among: listed) { run throws(StoreError) in records[run.runID] ?? [] }
    }

    /// The records of the open runs that have asked a question, in order.
    static let askedRecordsStatement = """
        SELECT b.run_id, b.records FROM matterflow_record_batches b
        WHERE b.run_id = ANY (ARRAY(
            SELECT r.run_id FROM matterflow_runs r
            CROSS JOIN LATERAL (
                SELECT 1 FROM matterflow_record_batches q WHERE q.run_id = r.run_id AND q.records LIKE '%questionAsked%' LIMIT 1
            ) AS asked
            WHERE r.status IN ('queued', 'running')))
        ORDER BY b.run_id, b.first_seq
        """
}
