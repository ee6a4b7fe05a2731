import MatterFlowJSON

/// One valid record of a journal as its frame holds it: sequence number, type and the raw payload
/// (documented in `docs/journal.md`). Readers use its typed form, ``JournalContents/entries()``.
public struct JournalRecord: Sendable, Hashable {
    /// The record's sequence number, from 1 (0 when the payload has none, or one past ``maximumSequence``).
    public var sequence: Int
    /// The largest sequence number a record may carry: far beyond any run's records, and far enough below the
    /// integers' limit that the next number can always be counted.
    public static let maximumSequence = 1 << 48
    /// The record's `type` member (``JournalEntry/Kind`` or an event name); empty when the payload has none.
    public var type: String
    /// The whole payload, including `seq`, `type` and `wallTime`, as written.
    public var payload: JSONObject
    /// Where the record starts in its file.
    public var offset: Int

    /// A record of a decoded payload that starts at byte `offset` of its file (0 for records read from a run
    /// store). ``sequence`` and ``type`` are read from the payload: 0 and empty when it has none or they are out of
    /// range.
    public init(payload: JSONObject, offset: Int) {
        self.payload = payload
        self.offset = offset
        sequence = payload["seq"]?.intValue.flatMap { (1...Self.maximumSequence).contains($0) ? $0 : nil } ?? 0
        type = payload["type"]?.stringValue ?? ""
    }

    /// When the record was written, in seconds since the Unix epoch; nil when the payload does not say.
    public var wallTime: Double? { payload["wallTime"]?.doubleValue }
}

extension JournalRecord {
    /// Whether the record is the intent of a call that releases the structure's commissioning session
    /// (`cancelCommissioning`, `completeCommissioning`): the run asked its hub to end the session.
    public var isSessionReleaseIntent: Bool {
        guard type == JournalEntry.Kind.intent.rawValue, case .intent(let intent)? = try? JournalEntryCodec.decode(self, path: "").entry
        else { return false }
        return intent.releasesSession
    }
}
