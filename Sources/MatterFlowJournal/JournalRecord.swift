import MatterFlowJSON

/// One valid record of a journal: its sequence number, type and payload (documented in `docs/journal.md`).
public struct JournalRecord: Sendable, Hashable {
    /// The record types a journal holds.
    public enum Kind {
        /// The run began: workflow name, version, file and content hash, structure, inputs (secrets redacted).
        public static let runStarted = "runStarted"
        /// Before a hub call: operation, redacted arguments, attempt, idempotency key, effect. Flushed.
        public static let intent = "intent"
        /// After a hub call: whether it succeeded, its error or its result. Flushed.
        public static let outcome = "outcome"
        /// A call's result that arrived after its outcome was recorded (the call was abandoned, yet the hub did it).
        public static let lateResult = "lateResult"
        /// The run ended: outcome and error. Flushed.
        public static let runFinished = "runFinished"
        /// A recovery began examining the interrupted run. Flushed.
        /// Where a workflow level stood as it entered a state (``RunCheckpoint``): what recovery resumes from.
        public static let checkpoint = "checkpoint"
        public static let recoveryStarted = "recoveryStarted"
        /// A torn last record was cut off before recovery appended to the journal. Flushed.
        public static let tornTailDiscarded = "tornTailDiscarded"
        /// An in-doubt call, reconciled by reading the hub. Flushed.
        public static let resolution = "resolution"
        /// Recovery could not finish (for example, the hub could not be read); a later recovery tries again.
        public static let recoveryDeferred = "recoveryDeferred"
        /// Recovery finished; the run's final status is in the `runFinished` before it. Flushed.
        public static let recoveryFinished = "recoveryFinished"
    }

    /// The record's sequence number, from 1.
    public var sequence: Int
    /// The record's type (``Kind`` or an event name: `stateEntered`, `transitionTaken`, ...).
    public var type: String
    /// The whole payload, including `seq`, `type` and `wallTime`.
    public var payload: JSONObject
    /// Where the record starts in its file.
    public var offset: Int

    public init(payload: JSONObject, offset: Int) {
        self.payload = payload
        self.offset = offset
        sequence = payload["seq"]?.intValue ?? 0
        type = payload["type"]?.stringValue ?? ""
    }

    /// A string member of the payload.
    public func string(_ key: String) -> String? { payload[key]?.stringValue }

    /// When the record was written, in seconds since the Unix epoch.
    public var wallTime: Double? { payload["wallTime"]?.doubleValue }

    /// The idempotency key of an intent, outcome, late result or resolution.
    public var key: String? { string("key") }
}
