import MatterFlowJSON
import MatterFlowJournal

/// A group-commit batch's records as rows of `matterflow_record_batches`: one row per run of the batch, holding
/// that run's records of the batch as one JSON array text (each record the compact JSON object a journal file
/// frames), with the first and last sequence numbers. Each column is a binary array parameter of the insert.
///
/// The server stores one row (a heap tuple, an index entry and their WAL) per run and batch, not per record, and
/// never parses the text. A row's primary key is `(run_id, first_seq)`: a batch written again after its commit's
/// answer was lost has the same rows, which the insert skips.
struct RecordBatchRows {
    var runIDs = PostgresBinaryArray(elementType: PostgresBinaryArray.textOID)
    var firstSequences = PostgresBinaryArray(elementType: PostgresBinaryArray.int4OID)
    var lastSequences = PostgresBinaryArray(elementType: PostgresBinaryArray.int4OID)
    var records: PostgresBinaryArray
    /// The runs the rows belong to, one each.
    private(set) var runs: [String] = []

    /// Groups `records` (with the run of each, in the order they were appended) by run, keeping each run's
    /// records in order; the rows follow the order of each run's first record.
    init(_ runIDs: [String], _ records: [EncodedJournalRecord]) {
        var groups: [String: [EncodedJournalRecord]] = [:]
        for (runID, record) in zip(runIDs, records) {
            if groups[runID] == nil { runs.append(runID) }
            groups[runID, default: []].append(record)
        }
        self.records = PostgresBinaryArray(
            elementType: PostgresBinaryArray.textOID, reservingBytes: records.count * 320)
        for runID in runs {
            let group = groups[runID] ?? []
            self.runIDs.append(text: runID)
            // A sequence number past int4 would be refused by the table's type anyway; it is clamped to a value the
            // table's CHECK (first_seq >= 1) refuses, so the batch fails with the server's message instead of trapping.
            firstSequences.append(int4: Int32(exactly: group.first?.sequence ?? 0) ?? 0)
            lastSequences.append(int4: Int32(exactly: group.last?.sequence ?? 0) ?? 0)
            self.records.appendText { bytes in
                bytes.append(UInt8(ascii: "["))
                for (index, record) in group.enumerated() {
                    if index > 0 { bytes.append(UInt8(ascii: ",")) }
                    bytes.append(contentsOf: record.payload)
                }
                bytes.append(UInt8(ascii: "]"))
            }
        }
    }

    /// Appends the records of one row's text (`records`) whose sequence numbers come after `after` to `into`, in
    /// order. `last` is the sequence number of the last record of the rows read before this one (nil before the
    /// first row), and becomes this row's last.
    ///
    /// Rows never overlap: a row is written only by the worker holding the run's lease (fenced in the insert's
    /// statement), which numbers each record after the last one of the run that is durable, and a batch written
    /// again after its commit's answer was lost is the same rows, which the primary key `(run_id, first_seq)` skips.
    /// A row that overlaps an earlier one (a record not past the last one read) was written by something else, and
    /// which of the two copies is the run's cannot be told: it is refused, not skipped.
    /// - Throws: ``StoreError`` `damagedRecords` when the text is not a JSON array of objects with sequence numbers, or
    ///   when its records are not past every record read before them.
    static func decode(
        _ text: String, runID: String, after: Int, last: inout Int?, into records: inout [JournalRecord]
    ) throws(StoreError) {
        guard let document = try? JSONDocument.parse(text, file: "<store>"), case .array(let elements) = document.value
        else {
            throw StoreError(
                .damagedRecords,
                "a row of matterflow_record_batches of run \(runID) is not a JSON array of records; "
                    + "it was not written by MatterFlow")
        }
        for element in elements {
            guard let payload = element.objectValue else {
                throw StoreError(.damagedRecords, "a record of run \(runID) in the store is not a JSON object")
            }
            let record = JournalRecord(payload: payload, offset: 0)
            guard record.sequence >= 1 else {
                throw StoreError(.damagedRecords, "a record of run \(runID) in the store has no sequence number (`seq`)")
            }
            if let last, record.sequence <= last {
                throw StoreError(
                    .damagedRecords,
                    "the rows of matterflow_record_batches of run \(runID) overlap: record \(record.sequence) comes after "
                        + "record \(last); MatterFlow never writes a record twice, so a row was written by something else. "
                        + "Look at the run's rows (SELECT first_seq, last_seq FROM matterflow_record_batches WHERE run_id = "
                        + "'\(runID)') and delete the one that is not the run's")
            }
            last = record.sequence
            if record.sequence > after { records.append(record) }
        }
    }
}
