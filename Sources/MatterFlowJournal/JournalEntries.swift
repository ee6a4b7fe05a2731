import MatterFlow
import MatterFlowJSON

/// A journal's records, typed (``JournalContents/entries()``), with the questions readers ask of them.
public struct JournalEntries: Sendable, RandomAccessCollection {
    /// The typed records, in journal order.
    public let records: [JournalEntryRecord]

    init(_ records: [JournalEntryRecord]) {
        self.records = records
    }

    /// The position of the first record: 0.
    public var startIndex: Int { records.startIndex }
    /// One past the position of the last record: the number of records.
    public var endIndex: Int { records.endIndex }
    /// The typed record at `position`, counted from 0 in journal order.
    public subscript(position: Int) -> JournalEntryRecord { records[position] }

    /// The run's `runStarted` entry and when it was written, if it was.
    public var started: (entry: RunStartedEntry, wallTime: Double)? {
        for record in records {
            if case .runStarted(let started) = record.entry { return (started, record.wallTime) }
        }
        return nil
    }

    /// The run's terminal entry, if it has one.
    public var finished: RunFinishedEntry? {
        records.lazy.reversed().compactMap { record -> RunFinishedEntry? in
            if case .runFinished(let finished) = record.entry { return finished }
            return nil
        }.first
    }

    /// How the run's hub was lost, when the journal stopped because its connection broke during a call (the
    /// `warning` record with `hubConnectionLost`): the failed call's message; nil otherwise.
    /// Only since the last recovery began: a run a recovery continued and whose process then stopped was stopped
    /// by that, not by the earlier loss.
    public var hubConnectionLoss: String? {
        for record in records.reversed() {
            switch record.entry {
            case .recoveryStarted: return nil
            case .event(let event) where event.name == .warning && event.details["hubConnectionLost"] == true:
                return event.details["reason"]?.stringValue ?? "during a call"
            default: continue
            }
        }
        return nil
    }

    /// Why the run stopped without its end recorded, as recovery's messages say it: its hub's connection lost, or
    /// its process stopped.
    var interruptionCause: String { interruptionCause(otherwise: nil) }

    /// As ``interruptionCause``, with `otherwise` (when given) in place of "its process stopped": what the one
    /// recovering knows of it (a fleet's worker: the run's lease ran out).
    func interruptionCause(otherwise: String?) -> String {
        hubConnectionLoss.map { "its hub's connection was lost: \($0)" } ?? otherwise ?? "its process stopped"
    }

    /// Every intent, in order, with its sequence number.
    public var intents: [(sequence: Int, intent: IntentEntry)] {
        records.compactMap { record in
            if case .intent(let intent) = record.entry { return (record.sequence, intent) }
            return nil
        }
    }

    /// Every outcome, in order.
    public var outcomes: [OutcomeEntry] {
        records.compactMap { record in
            if case .outcome(let outcome) = record.entry { return outcome }
            return nil
        }
    }

    /// Every resolution recovery recorded, in order.
    public var resolutions: [ResolutionEntry] {
        records.compactMap { record in
            if case .resolution(let resolution) = record.entry { return resolution }
            return nil
        }
    }

    /// Whether a recovery finished the run.
    public var recovered: Bool {
        records.contains { record in
            if case .recoveryFinished = record.entry { return true }
            return false
        }
    }

    /// Whether the last recovery record says recovery could not finish.
    public var lastRecoveryDeferred: Bool { lastRecoveryDeferral != nil }

    /// Why the last recovery could not finish: the reason of its `recoveryDeferred` record; nil when no recovery
    /// ran, or the last one finished.
    public var lastRecoveryDeferral: String? {
        for record in records.reversed() {
            switch record.entry {
            case .recoveryDeferred(let reason): return reason
            case .recoveryStarted, .recoveryFinished: return nil
            case .runStarted, .checkpoint, .intent, .outcome, .lateResult, .runFinished, .event, .tornTailDiscarded,
                .resolution:
                continue
            }
        }
        return nil
    }

    /// The messages of the `warning` events among `records`, in order (secrets redacted as the run's trace shows
    /// them): read from the records as they are, which a worker taking a run over holds before any decoding.
    public static func warnings(in records: some Sequence<JournalRecord>) -> [String] {
        records.compactMap { $0.type == JournalEventEntry.Name.warning.rawValue ? $0.payload["message"]?.stringValue : nil }
    }

    /// A run's warnings as the notes `runs` lists: `warning: MESSAGE`, each once (a state resumed after a crash may
    /// warn again of what it warned of before).
    public static func warningNotes(_ messages: [String]) -> [String] {
        var seen = Set<String>()
        return messages.filter { seen.insert($0).inserted }.map { "warning: \($0)" }
    }

    /// The last `stateEntered` event: the workflow path and state the run was last in.
    public var lastStateEntered: JournalEventEntry? {
        records.lazy.reversed().compactMap { record -> JournalEventEntry? in
            if case .event(let event) = record.entry, event.name == .stateEntered { return event }
            return nil
        }.first
    }

    /// The recorded results of calls of `operation` (successful outcomes, late results and resolutions' rebuilt
    /// results), in order, with the devices each created.
    func results(of operation: String) -> [(result: JSONValue?, devices: [String])] {
        records.compactMap { record in
            guard let call = record.entry.callResult, call.operation == operation else { return nil }
            return (call.result, call.devices)
        }
    }
}
