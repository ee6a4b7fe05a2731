import MatterFlowJSON

/// Somewhere other than a journal file that keeps a run's journal records: a run store (PostgreSQL) implements it
/// so that a run, and the recovery of a run, write through the same recorder and recoverer as the file journal.
///
/// Records arrive in sequence order, one call per record. A record marked `sync` is a side-effect boundary: it,
/// and every record of the run before it, must be durable when ``append(_:sync:)`` returns.
public protocol JournalSink: Sendable {
    /// What the records belong to, for messages (`postgres run run-5cbece477cfa`).
    var name: String { get }
    /// Keeps one record (its payload holds `seq`, `type` and `wallTime`).
    /// - Throws: ``JournalError`` `journalUnwritable` when the record cannot be kept; the writer then refuses
    ///   every later record of the run.
    func append(_ record: JournalRecord, sync: Bool) throws(JournalError)
    /// Every record kept for the run so far, in order.
    func records() throws(JournalError) -> [JournalRecord]
    /// The run will write no more records.
    func close()
}
