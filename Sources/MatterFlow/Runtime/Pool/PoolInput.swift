import MatterFlowJSON

/// Hub work of a pool's run.
struct PoolJob: Sendable {
    enum Work: Sendable {
        case status(GuardCheck)
        case call(RunCall)
        /// The run's end: wait for its abandoned calls and release the sessions the hub opened late
        /// (``RunAction/settleLateSessions(_:)``); the run's ID names the releases' calls.
        indirect case settleLateSessions(LateSettlement, runID: String)
    }

    let number: Int
    let structure: StructureID
    let work: Work
    let signal: CancellationSignal
    /// The run's abandoned calls: the work waits for them first, and keeps its own call there if it abandons it.
    let abandoned: AbandonedCalls
    /// The run reports events, so its calls' durations are measured.
    let timed: Bool
    /// The run's recording, told of each call before the hub sees it and after its race.
    let recording: (any RunRecording)?
}

/// An input the pool feeds a run.
enum PoolInput: Sendable {
    case start
    case statusChecked(RaceOutcome<HubStatus>)
    case callEnded(RaceOutcome<JSONValue>, duration: Duration)
    case delayEnded
    case waitEnded(WaitEnd)
    case answerEnded(AnswerEnd)
    case elementEnded(ElementEnd)
    /// The run is cancelled, saying why when the canceller did.
    case cancel(reason: String?)
    /// Something the run reports as a warning (an abandoned call it waited for or gave up).
    case warning(String)
    /// The sessions the hub opened late, as the run's end released them.
    case lateSessionsSettled([LateSession])

    /// Feeds the input to a machine; a stopped piece of work is preceded by the cancel that stopped it.
    func apply(to machine: inout RunMachine) throws(RunMachineError) -> RunActions {
        switch self {
        case .start:
            return try machine.start()
        case .statusChecked(let outcome):
            if case .cancelled = outcome { _ = machine.cancelRequested() }
            return try machine.statusChecked(outcome)
        case .callEnded(let outcome, let duration):
            if case .cancelled = outcome { _ = machine.cancelRequested() }
            return try machine.callEnded(outcome, duration: duration)
        case .delayEnded:
            return try machine.delayEnded(elapsed: true)
        case .waitEnded(let end):
            return try machine.waitEnded(end)
        case .answerEnded(let end):
            return try machine.answerEnded(end)
        case .elementEnded(let end):
            return try machine.elementEnded(end)
        case .cancel(let reason):
            return machine.cancelRequested(reason: reason)
        case .warning(let message):
            return try machine.warning(message)
        case .lateSessionsSettled(let sessions):
            return try machine.lateSessionsSettled(sessions)
        }
    }
}

/// What a pool does outside its lock once it has handled inputs.
struct PoolEffects {
    /// Events to report: to the pool's observer, and to the run's own when it has one.
    var reports: [(event: RunEvent, runObserver: (@Sendable (RunEvent) -> Void)?)] = []
    var results: [(CheckedContinuation<RunResult?, Never>, RunResult?)] = []
    var jobs: [PoolJob] = []
    /// Recorded runs' ends, recorded outside the lock before their results are handed out.
    var finishes: [(number: Int, recording: any RunRecording, event: RunEvent)] = []
    /// Recorded runs (and runs with an ending) that have ended, with their results: handed out once ``finishes``
    /// are recorded and the endings have run.
    var recordedEnds: [(number: Int, result: RunResult)] = []
    /// Cancel signals of elements' hub work, fired outside the lock.
    var cancels: [CancellationSignal] = []
    /// Ended elements whose abandoned calls must end before their ends reach their maps.
    var settles: [PoolElementSettle] = []
}

/// An element of a concurrent map state that ended while calls it abandoned still run on the hub: the map does not
/// end before they do, so the pool waits for them (each wait a warning, as a run's next call does) before it feeds
/// the element's end to the entry whose map started it.
struct PoolElementSettle: Sendable {
    let parent: Int
    let end: ElementEnd
    let abandoned: AbandonedCalls
    /// The element's machine as it ended, which shows its warnings as its reports are shown.
    let machine: RunMachine
    /// Where the element's warnings go besides the pool's observer.
    let recording: (any RunRecording)?
    let runObserver: (@Sendable (RunEvent) -> Void)?
}
