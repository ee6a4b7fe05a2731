import MatterFlowJSON

/// One run of a ``RunPool``: its machine and what it waits for. A class, so the pool changes it in place; only
/// touched under the pool's lock.
final class PoolEntry {
    var machine: RunMachine
    let structure: StructureID
    /// The run's workflow waits for hub events: events for its structure are kept for it.
    let listens: Bool
    var waiting: PoolWaiting = .nothing
    /// Hub events for the run's structure that no wait of the run has taken yet.
    var inbox: [HubEvent] = []
    /// Answers given in advance, by question or ask state name; each is used once.
    var answers: [String: JSONValue]
    var resultWaiter: CheckedContinuation<RunResult?, Never>?
    /// The run's hub calls still running after the run stopped waiting for them; made at its first hub work.
    var abandoned: AbandonedCalls?

    init(machine: RunMachine, structure: StructureID, listens: Bool, answers: [String: JSONValue]) {
        self.machine = machine
        self.structure = structure
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
        case .nothing, .working, .finished: .other
        }
    }
}
