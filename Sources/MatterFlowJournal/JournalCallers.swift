import MatterFlow

/// A run's journal grouped by caller, in one pass over its records: the run's own checkpoints and calls, and those
/// of each element of a concurrent map state, which number their calls apart (``HubCallContext/element``).
struct JournalCallers {
    /// What the journal holds for one caller: the run itself, or one element.
    struct Caller {
        /// The checkpoints of the levels the caller was in when the run stopped, outermost first.
        var checkpoints: [RunCheckpoint] = []
        /// The sequence of the caller's last checkpoint (0 without one).
        var lastCheckpoint = 0
        /// The caller's intents, in order, with their sequences.
        var intents: [(sequence: Int, intent: IntentEntry)] = []
        /// The highest call number of the caller's keys: its next call is numbered after it.
        var callsBefore = 0
    }

    /// The run's own checkpoints and calls (keys `<runID>/<n>`). Recovery's own calls (`<runID>/recovery-<n>`) are
    /// among its intents but not numbered among its calls.
    private(set) var run = Caller()
    /// Each element's, by the element as its checkpoints and keys name it (`readDevices[2]`).
    private(set) var elements: [String: Caller] = [:]
    /// The last outcome of each call, by key.
    private(set) var outcomes: [String: OutcomeEntry] = [:]

    init(_ entries: JournalEntries, runID: String) {
        for record in entries {
            switch record.entry {
            case .checkpoint(let checkpoint):
                Self.add(checkpoint, sequence: record.sequence, to: &self[checkpoint.element])
            case .intent(let intent):
                let element = ResumePlanner.element(ofKey: intent.key, runID: runID)
                self[element].intents.append((record.sequence, intent))
                if let number = intent.key.split(separator: "/").last.flatMap({ Int($0) }) {
                    self[element].callsBefore = max(self[element].callsBefore, number)
                }
            case .outcome(let outcome):
                outcomes[outcome.key] = outcome
            case .runStarted, .lateResult, .runFinished, .event, .recoveryStarted, .tornTailDiscarded, .resolution, .recoveryDeferred,
                .recoveryFinished:
                break
            }
        }
    }

    private subscript(element: String?) -> Caller {
        get { element.map { elements[$0] ?? Caller() } ?? run }
        set {
            if let element { elements[element] = newValue } else { run = newValue }
        }
    }

    /// A checkpoint replaces those of its level and of the levels inside it. A map state's checkpoint that lists
    /// only the results new since the map's previous one is folded onto that one (its level's, replaced); when it
    /// does not fold, it is kept as it is, and resuming from it fails with the reason.
    private static func add(_ checkpoint: RunCheckpoint, sequence: Int, to caller: inout Caller) {
        var replaced: RunCheckpoint?
        while let top = caller.checkpoints.last, top.workflowPath.count >= checkpoint.workflowPath.count {
            replaced = caller.checkpoints.removeLast()
        }
        caller.checkpoints.append(replaced.flatMap { checkpoint.folded(onto: $0) } ?? checkpoint)
        caller.lastCheckpoint = sequence
    }
}
