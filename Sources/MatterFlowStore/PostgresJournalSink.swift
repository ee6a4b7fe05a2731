import MatterFlowJournal

/// One run's journal records, kept in PostgreSQL (`matterflow_record_batches`) through the worker's ``GroupCommitter``.
struct PostgresJournalSink: JournalSink {
    let runID: String
    let committer: GroupCommitter
    let store: PostgresRunStore
    /// The fleet's clock, which stamps the records.
    let clock: StoreClock

    var name: String { "postgres run \(runID)" }

    var wallTime: Double { clock.now }

    func append(_ record: EncodedJournalRecord, sync: Bool) throws(JournalError) {
        do {
            // A run's `runFinished` does not start a batch of its own: whoever waits for it (the worker's final
            // status, recovery's flush) starts one right after, which carries it along.
            let starts = sync && record.type != JournalEntry.Kind.runFinished.rawValue
            try committer.append(record, runID: runID, sync: starts)
        } catch {
            throw JournalError(.journalUnwritable, error.message)
        }
    }

    func flush() async throws(JournalError) {
        do {
            try await committer.flush(runID: runID)
        } catch {
            throw JournalError(.journalUnwritable, error.message)
        }
    }

    func records() throws(JournalError) -> [JournalRecord] {
        do {
            return try store.records(of: runID, after: 0)
        } catch {
            throw JournalError(.journalUnreadable, error.message)
        }
    }

    func close() {}
}
