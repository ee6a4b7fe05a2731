import MatterFlowJSON

extension RunMachine {
    /// A workflow level of the run: its place in the run's tree of workflows, the state it is in, what it has
    /// bound, and whether it is on a cancel path.
    struct Level: Sendable {
        /// The level's place, with its run model: one reference, so the level copies none of the workflow's structs.
        let place: LevelPlace
        /// Runs inside an outer level's cancel path: never cancelled again.
        let shielded: Bool
        var scope: Scope
        /// The number of the state the level is in (see ``RunModel/states``).
        var state: Int
        /// The state this level was cancelled in, once it is on its own cancel path.
        var cancelledIn: String?
        /// Which element of each enclosing map state the level runs for (`[2]`, `[2][0]` inside a nested map),
        /// empty outside maps: it keeps the idempotency keys of the body's calls apart per element.
        var elementTag = ""

        var model: RunModel { place.model }
        var path: [String] { place.path }
        /// The qualification of this level's states (`parent/`), empty at the top.
        var prefix: String { place.prefix }
        var onCancelPath: Bool { cancelledIn != nil || shielded }
        /// The state the level is in.
        var planned: PlannedState { place.model.states[state] }
        /// The name of the state the level is in.
        var current: String { place.model.states[state].name }
        var qualifiedCurrent: String { place.qualifiedNames[state] }
    }

    /// How far an action or sub-workflow state's work got: its attempt and the retries used so far.
    ///
    /// Retry counters belong to the state's entry, so they reset whenever the run leaves the state, as in Amazon
    /// States Language; a resumed run continues them from its checkpoint (``init(_:resuming:qualified:)``).
    struct StepProgress: Sendable {
        let state: PlannedState
        /// The attempt in progress, from 1 (for a repeat state, the iteration).
        var attempt = 1
        /// Retries used so far, by retrier.
        var retriesUsed: [Int]

        init(_ state: PlannedState) {
            self.state = state
            retriesUsed = [Int](repeating: 0, count: state.step?.retry.count ?? 0)
        }

        /// The progress a checkpoint of `state` records: a repeat state's iteration, or the attempt about to run
        /// after retries; the first attempt when it records neither.
        /// - Throws: ``FlowError`` `invalidArgumentValue` when the checkpoint's retries do not fit the state's
        ///   retriers (another number of them, or more retries than one allows).
        init(_ state: PlannedState, resuming checkpoint: RunCheckpoint, qualified: String) throws(FlowError) {
            self.init(state)
            if state.repeating != nil {
                if let iteration = checkpoint.repeatIteration { attempt = iteration }
                return
            }
            guard let retry = checkpoint.retry else { return }
            let retriers = state.step?.retry ?? []
            guard retry.isConsistent, retry.used.count == retriers.count,
                zip(retry.used, retriers).allSatisfy({ $0 <= $1.maxRetries })
            else {
                throw FlowError(
                    .invalidArgumentValue,
                    "the checkpoint of state \(qualified) records retries its retry rules do not allow (attempt \(retry.attempt), retries \(retry.used) for \(retriers.count) rules); the workflow files changed since the run")
            }
            attempt = retry.attempt
            retriesUsed = retry.used
        }

        /// The retries a checkpoint records, with the delay before the attempt when it is known: nil for a repeat
        /// state or before the step's first retry.
        func retries(delaySeconds: Double?) -> StepRetries? {
            state.repeating == nil && attempt > 1 ? StepRetries(attempt: attempt, used: retriesUsed, delaySeconds: delaySeconds) : nil
        }
    }

    /// A level waiting for its sub-workflow state's child level to end: that end is the outcome of `step`'s
    /// attempt.
    struct ParentLevel: Sendable {
        var level: Level
        var step: StepProgress
        /// For a map state: the elements and what became of those that ran (see ``MapProgress``).
        var map: MapProgress? = nil
    }

    /// Where the innermost level stands between two inputs. Each case carries what is valid in it only.
    ///
    /// The states that wait for an event, an answer or a delay, and a concurrent map state's, are boxed: their
    /// payloads are large and taken rarely, and unboxed they would make every phase as large as the largest, which
    /// each input moves.
    enum Phase: Sendable {
        /// Built, `start()` not fed yet. A resumed run may hold the result of the innermost state's finished work.
        case notStarted(Start)
        /// A state has been entered and reported; its work has not begun, so a cancel now takes effect first.
        case entered(PlannedState)
        /// Checking guard `index` (from 0) of the step's current attempt.
        case checkingGuard(StepProgress, index: Int)
        /// The step's current attempt calls the hub.
        case calling(StepProgress, RunCall)
        /// Waiting before the step's next attempt.
        case retryDelay(StepProgress)
        /// A wait state waits for its event.
        indirect case waitingEvent(WaitState)
        /// An ask state waits for the answer to its question.
        indirect case waitingAnswer(AskState, Question)
        /// A delay state waits for its time to pass.
        indirect case delaying(DelayState)
        /// A map state that runs elements at once waits for its running elements, each a machine of its own.
        indirect case mapping(ElementRuns)
        /// The run has reached its end, and a session-opening call of it ended unanswered: the driver waits for
        /// such calls the hub still runs, and releases a session the hub opened late that the run does not hold,
        /// before the run ends this way.
        indirect case ending(LevelEnd)
        /// The run has ended.
        case finished
    }

    /// How a machine starts.
    enum Start: Sendable {
        /// From the workflow's start state.
        case fresh
        /// From a journaled position; `completedStep` is the innermost state's result when its work had finished.
        case resumed(completedStep: JSONValue?)
        /// As the machine of one element of a concurrent map state: from its body's start state, reporting no
        /// `runStarted` (the run has started) and no `runFinished` (its end is the element's).
        case element
    }

    /// Where a state sends its level.
    enum Move {
        /// Along an edge of the level's model (its number in ``RunModel/edges``), to the state it leads to.
        case along(Int)
        /// The level ends (a terminal state, or an error nothing routes).
        case end(LevelEnd)
        /// The run was cancelled while in the state.
        case cancel
    }

    /// How one workflow level ended.
    ///
    /// The errors are boxed: a level ends with one rarely, and unboxed they would make every end, move and
    /// continuation (which the machine copies as it goes from state to state) three times as large.
    enum LevelEnd: Sendable {
        case succeeded(JSONValue?)
        indirect case failed(FlowError)
        /// Cancelled; the error explains where and what the cancel path did.
        indirect case cancelled(FlowError)
    }

    /// How an action or sub-workflow state's attempt ended (the error boxed, as a ``LevelEnd``'s is).
    enum StepOutcome {
        case finished(JSONValue)
        indirect case failed(FlowError)
        /// The run was cancelled; `late` holds the work's result when it still succeeded while winding down.
        case cancelled(late: JSONValue?)
    }

    /// What the machine does next within one input.
    enum Continuation {
        /// Take a move in the innermost level.
        case move(Move)
        /// Enter the innermost level's current state.
        case enterCurrent
        /// The innermost level ended.
        case levelEnded(LevelEnd)
        /// Work was handed to the driver (or the run finished): the input is done.
        case waiting
    }
}
