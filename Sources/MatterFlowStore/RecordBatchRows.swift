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
    init(_ runIDs: [String], _ records: [JournalRecord]) {
        var groups: [String: [JournalRecord]] = [:]
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
                    JSONWriter.appendCompact(.object(record.payload), to: &bytes)
                }
                bytes.append(UInt8(ascii: "]"))
            }
        }
    }

    /// Appends the records of one row's text (`records`) whose sequence numbers come after `after` to `into`,
    /// in order; a record whose number is not past the last one kept is skipped, so the records read are
    /// strictly increasing whatever rows overlap.
    /// - Throws: ``StoreError`` `storeFailed` when the text is not a JSON array of objects.
    static func decode(
        _ text: String, runID: String, after: inout Int, into records: inout [JournalRecord]
    ) throws(StoreError) {
        guard let document = try? JSONDocument.parse(text, file: "<store>"), case .array(let elements) = document.value
        else {
            throw StoreError(
                .storeFailed,
                "a row of matterflow_record_batches of run \(runID) is not a JSON array of records; "
                    + "it was not written by MatterFlow")
        }
        for element in elements {
            guard let payload = element.objectValue else {
                throw StoreError(.storeFailed, "a record of run \(runID) in the store is not a JSON object")
            }
            let record = JournalRecord(payload: payload, offset: 0)
            guard record.sequence >= 1 else {
                throw StoreError(.storeFailed, "a record of run \(runID) in the store has no sequence number (`seq`)")
            }
            guard record.sequence > after else { continue }
            after = record.sequence
            records.append(record)
        }
    }
}
