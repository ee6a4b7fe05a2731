import MatterFlowJSON

/// One run of a ``RunPool``, or one running element of a run's concurrent map state: its machine and what it
/// waits for. A class, so the pool changes it in place; only touched under the pool's lock.
final class PoolEntry {
    var machine: RunMachine
    let structure: StructureID
    /// For an element of a concurrent map state: the entry of the run (or element) whose map started it, and the
    /// element's index in the map's items. Its end is fed to that entry, not handed out as a result.
    let parent: (number: Int, index: Int)?
    /// The entries of the elements this entry's concurrent map state runs now, by element index.
    var elements: [Int: Int] = [:]
    /// Receives this run's events, besides the pool's observer (an element's are its run's).
    let observer: (@Sendable (RunEvent) -> Void)?
    /// The run's workflow waits for hub events: events for its structure are kept for it.
    let listens: Bool
    var waiting: PoolWaiting = .nothing
    /// Hub events for the run's structure that no wait of the run has taken yet.
    var inbox: [HubEvent] = []
    /// Answers given in advance, by question or ask state name; each is used once.
    var answers: [String: JSONValue]
    /// The callers of ``RunPool/result(of:)`` waiting for the run to end, each with the number it was given.
    var resultWaiters: [(id: Int, continuation: CheckedContinuation<RunResult?, Never>)] = []
    /// The run's hub calls still running after the run stopped waiting for them; made at its first hub work.
    var abandoned: AbandonedCalls?

    init(
        machine: RunMachine, structure: StructureID, listens: Bool, answers: [String: JSONValue], parent: (number: Int, index: Int)? = nil,
        observer: (@Sendable (RunEvent) -> Void)? = nil
    ) {
        self.machine = machine
        self.observer = observer
        self.structure = structure
        self.parent = parent
        self.listens = listens
        self.answers = answers
    }
}

/// What a pool's run waits for between inputs.
enum PoolWaiting {
    /// Not started yet, or handling an input.
    case nothing
    /// A hub event, until the timer with this ID fires.
    case event(EventWait, timer: UInt64)
    /// A retry delay, until the timer with this ID fires.
    case delay(timer: UInt64)
    /// The answer to this question (given with ``RunPool/answer(_:to:of:)-(JSONValue,_,_)``), until the timer with
    /// this ID fires.
    case question(Question, timer: UInt64)
    /// Hub work in flight or queued; the signal stops it.
    case working(CancellationSignal)
    /// The ends of the elements its concurrent map state runs (entries of their own).
    case elements
    /// The run has ended, and its recording is writing its end (and its ending runs, for a run resumed with one):
    /// its result is handed out once that is done.
    case recordingEnd
    /// The run has ended; its result is not taken yet.
    case finished(RunResult)

    /// What is waited for, without the details.
    enum Kind {
        case event, delay, answer, other
    }

    var kind: Kind {
        switch self {
        case .event: .event
        case .delay: .delay
        case .question: .answer
        case .nothing, .working, .elements, .recordingEnd, .finished: .other
        }
    }
}
