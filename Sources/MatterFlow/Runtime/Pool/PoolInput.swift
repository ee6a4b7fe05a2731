import MatterFlowJSON

/// Hub work of a pool's run.
struct PoolJob: Sendable {
    enum Work: Sendable {
        case status(GuardCheck)
        case call(RunCall)
    }

    let number: Int
    let structure: StructureID
    let work: Work
    let signal: CancellationSignal
    /// The run's abandoned calls: the work waits for them first, and keeps its own call there if it abandons it.
    let abandoned: AbandonedCalls
}

/// An input the pool feeds a run.
enum PoolInput: Sendable {
    case start
    case statusChecked(RaceOutcome<HubStatus>)
    case callEnded(RaceOutcome<JSONValue>, duration: Duration)
    case delayEnded
    case waitEnded(WaitEnd)
    case answerEnded(AnswerEnd)
    case cancel
    /// Something the run reports as a warning (an abandoned call it waited for or gave up).
    case warning(String)

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
        case .cancel:
            return machine.cancelRequested()
        case .warning(let message):
            return try machine.warning(message)
        }
    }
}

/// What a pool does outside its lock once it has handled inputs.
struct PoolEffects {
    var reports: [RunEvent] = []
    var results: [(CheckedContinuation<RunResult?, Never>, RunResult?)] = []
    var jobs: [PoolJob] = []
}
