import MatterFlowJSON

/// One record as a ``JournalSink`` receives it: its sequence number and type, and its payload already written as
/// compact JSON (`{"seq", "type", "wallTime", ...}`, the bytes a journal file frames), so that a sink stores the
/// text as it is.
public struct EncodedJournalRecord: Sendable, Hashable {
    /// The record's sequence number, from 1.
    public var sequence: Int
    /// The record's `type` member (``JournalEntry/Kind`` or an event name).
    public var type: String
    /// The payload's compact JSON text, as UTF-8 bytes.
    public var payload: [UInt8]

    /// Creates a record from its parts, taken as they are: nothing checks that `payload` holds the same `seq` and
    /// `type`.
    public init(sequence: Int, type: String, payload: [UInt8]) {
        self.sequence = sequence
        self.type = type
        self.payload = payload
    }

    /// The record of a payload object (its `seq` and `type` members), written as compact JSON.
    public init(_ record: JournalRecord) {
        var bytes: [UInt8] = []
        JSONWriter.appendCompact(.object(record.payload), to: &bytes)
        self.init(sequence: record.sequence, type: record.type, payload: bytes)
    }
}
