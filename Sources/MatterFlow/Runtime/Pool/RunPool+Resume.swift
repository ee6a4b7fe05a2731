import MatterFlowJSON

extension RunPool {
    /// What a resumed run does once it has ended and its recording has taken its end, before its result is handed
    /// out: given the run's result, it returns the result ``result(of:)`` hands out. Recovery uses it to release
    /// what a cancelled run still holds and to close its journal.
    public typealias Ending = @Sendable (RunResult) async -> RunResult

    /// Adds a run that continues from a journaled position, as ``WorkflowEngine/resume(_:from:on:options:)`` does
    /// for a single run: each level is built at its checkpoint, and a point marked ``ResumePoint/cancel`` starts on
    /// its cancel path. The run then waits as data like the pool's others: a service that restarts puts its
    /// interrupted runs back here (`RunJournal.recover(into:options:settled:)`) instead of holding a task per run.
    /// - Parameters:
    ///   - runID: The run's ID, as its journal knows it: its calls' idempotency keys continue from the point's.
    ///   - showSecrets: The run shows secrets in its events and checkpoints, as it did before it stopped.
    ///   - answers, observer, recording: As for ``submit(_:inputs:structureID:runID:answers:observer:recording:)``.
    ///   - ending: Runs once the run has ended and its end is recorded; the run's result is handed out after it.
    /// - Throws: ``FlowError`` when the point does not fit the workflow (a state it names is missing, a level is
    ///   not where the workflow runs it).
    @discardableResult
    public func resume(
        _ workflow: Workflow, from point: ResumePoint, structureID: StructureID, runID: String, showSecrets: Bool = false,
        answers: [String: JSONValue] = [:], observer runObserver: (@Sendable (RunEvent) -> Void)? = nil,
        recording: (any RunRecording)? = nil, ending: Ending? = nil
    ) throws(FlowError) -> Run {
        try point.check(against: workflow)
        let configuration = configuration(
            runID: runID, structureID: structureID, showSecrets: showSecrets, observed: runObserver != nil, recording: recording)
        let machine = try RunMachine(
            place: workflow.model.topPlace(catalog: catalog), resumingAt: point, configuration: configuration)
        return start(
            machine, of: workflow, structureID: structureID, answers: answers, observer: runObserver, recording: recording,
            ending: ending)
    }
}
