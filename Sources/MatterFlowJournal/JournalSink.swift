import MatterFlowJSON

/// Somewhere other than a journal file that keeps a run's journal records: a run store (PostgreSQL) implements it
/// so that a run, and the recovery of a run, write through the same recorder and recoverer as the file journal.
///
/// Records arrive in sequence order, one call per record. ``append(_:sync:)`` need not wait for the record to be
/// durable (a store batches records of many runs into one transaction); a record marked `sync` is a side-effect
/// boundary, which the sink should start writing at once. Durability is awaited with ``flush()``: when it returns,
/// every record appended before it is durable. The writer awaits it before the hub sees a call.
public protocol JournalSink: Sendable {
    /// What the records belong to, for messages (`postgres run run-5cbece477cfa`).
    var name: String { get }
    /// Keeps one record (its payload holds `seq`, `type` and `wallTime`), written as the compact JSON text a
    /// journal file frames.
    /// - Throws: ``JournalError`` `journalUnwritable` when the record cannot be kept; the writer then refuses
    ///   every later record of the run.
    func append(_ record: EncodedJournalRecord, sync: Bool) throws(JournalError)
    /// Waits, suspending the calling task rather than blocking its thread, until every record appended so far is
    /// durable.
    /// - Throws: ``JournalError`` `journalUnwritable` when they cannot be kept.
    func flush() async throws(JournalError)
    /// Every record kept for the run so far, in order.
    func records() throws(JournalError) -> [JournalRecord]
    /// The run will write no more records.
    func close()
    /// The wall-clock time, in seconds since the Unix epoch, the run's records are stamped with (their `wallTime`).
    /// This machine's clock by default; a sink that machines share may keep one clock for all of them (a fleet's
    /// store keeps its server's), so that a wait begun on one machine is counted alike on another.
    var wallTime: Double { get }
}

extension JournalSink {
    /// This machine's wall-clock time.
    public var wallTime: Double { JournalFile.wallTime() }
}
