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
        // Between a recovery's start and the resumed run's first work, its levels enter their states again, outermost
        // first, each the state it stood in: such an entry continues the map the run stood in, it does not start the
        // map afresh. An entry of any other state (the resumed state's work began without a record, as a retried
        // sub-workflow state's next attempt does) ends the re-entry.
        var reentering = false
        var stoodIn: [(path: [String], state: String)] = []
        for record in entries {
            switch record.entry {
            case .checkpoint(let checkpoint):
                if reentering, checkpoint.element == nil {
                    let depth = checkpoint.workflowPath.count
                    if depth == 0 || depth > stoodIn.count || stoodIn[depth - 1].path != checkpoint.workflowPath || stoodIn[depth - 1].state != checkpoint.state {
                        reentering = false
                    }
                }
                Self.add(checkpoint, sequence: record.sequence, to: &self[checkpoint.element])
                if checkpoint.element == nil, checkpoint.map == nil, !reentering, !elements.isEmpty {
                    forgetEarlierElements(of: Self.map(at: run.checkpoints))
                }
                continue
            case .recoveryStarted:
                reentering = true
                stoodIn = run.checkpoints.map { ($0.workflowPath, $0.state) }
                continue
            case .event(let event) where event.name == .stateEntered:
                continue
            case .resolution, .tornTailDiscarded:
                continue
            case .intent(let intent):
                let element = ResumePlanner.element(ofKey: intent.key, runID: runID)
                self[element].intents.append((record.sequence, intent))
                if let number = intent.key.split(separator: "/").last.flatMap({ Int($0) }) {
                    self[element].callsBefore = max(self[element].callsBefore, number)
                }
            case .outcome(let outcome):
                outcomes[outcome.key] = outcome
            case .runStarted, .lateResult, .runFinished, .event, .recoveryDeferred, .recoveryFinished:
                break
            }
            reentering = false
        }
    }

    /// The map at the innermost of `levels` as its elements' names begin (`poll/readAll#2`): the levels' states
    /// joined, then, for each outer level, its one-at-a-time map's index (`[i]`) or its repeat's iteration from the
    /// second (`#n`), outermost first, as the run tags its levels.
    static func map(at levels: [RunCheckpoint]) -> String {
        let qualified = levels.map(\.state).joined(separator: "/")
        let tag = levels.dropLast().compactMap { level in
            level.map.map { "[\($0.index)]" } ?? level.repeatIteration.flatMap { $0 > 1 ? "#\($0)" : nil }
        }.joined()
        return qualified + tag
    }

    /// The map an element belongs to: its name without its last `[index]`.
    static func map(ofElement element: String) -> String {
        element.lastIndex(of: "[").map { String(element[..<$0]) } ?? element
    }

    /// A map state entered afresh (a retried sub-workflow state around it runs it again): the checkpoints its
    /// elements wrote before belong to the earlier run of the map, and an element of this one that has entered no
    /// state yet starts afresh rather than from them. Their calls still count, so the next ones are numbered after.
    private mutating func forgetEarlierElements(of map: String) {
        for (element, caller) in elements where !caller.checkpoints.isEmpty && Self.map(ofElement: element) == map {
            elements[element]?.checkpoints = []
            elements[element]?.lastCheckpoint = 0
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
