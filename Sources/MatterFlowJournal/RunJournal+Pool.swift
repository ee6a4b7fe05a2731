import MatterFlow
import MatterFlowJSON

extension RunJournal {
    /// Submits a journaled run to a ``RunPool``: the run waits as data, as the pool's others do, and its journal file
    /// is written as a single journaled run's is (``start(_:inputs:on:options:engine:testHook:)``): every event and
    /// checkpoint, an intent flushed before each hub call and an outcome after, `runFinished` flushed before the
    /// run's result is handed out. After a crash, ``recover(on:)`` settles or resumes it like any journaled run.
    ///
    /// The journal file is created (and locked for the run's lifetime) before the run starts, so a journal that
    /// cannot be written stops the run before it touches the hub; a write that fails later cancels the run. Each
    /// waiting journaled run holds its file open: mind the process's limit of open files.
    /// - Parameters:
    ///   - runID: The run's ID and journal file name; generated (`run-` and 12 hex digits) when nil.
    ///   - answers, observer: As for ``RunPool/submit(_:inputs:structureID:runID:answers:observer:recording:)``.
    /// - Throws: `DiagnosticsError` for inputs that do not match the workflow, ``JournalError`` when the journal
    ///   cannot be created.
    @discardableResult
    public func submit(
        _ workflow: Workflow, inputs: JSONObject = [:], to pool: RunPool, structureID: StructureID, runID: String? = nil,
        answers: [String: JSONValue] = [:], observer: (@Sendable (RunEvent) -> Void)? = nil
    ) throws -> RunPool.Run {
        // Inputs that do not fit stop the run before its journal file exists.
        let resolved = try workflow.resolveRunInputs(inputs)
        let runID = runID ?? "run-" + pool.random.hexDigits(12)
        let digests = try secretDigests(for: workflow, inputs: resolved.values, random: pool.random)
        let writer = try JournalWriter(creating: path(of: Self.checkedFileName(runID)), hook: nil)
        return Self.submit(
            workflow, resolved: resolved, to: pool, structureID: structureID, runID: runID, answers: answers, observer: observer,
            writer: writer, secretDigests: digests)
    }

    /// Submits a pool's run whose records go to `writer` (a file or a ``JournalSink``); `resolved` are its inputs as
    /// ``Workflow/resolveRunInputs(_:)`` resolved them (the pool does not resolve them again), and `secretDigests` its
    /// secrets' digests.
    static func submit(
        _ workflow: Workflow, resolved: ResolvedInputs, to pool: RunPool, structureID: StructureID, runID: String,
        answers: [String: JSONValue], observer: (@Sendable (RunEvent) -> Void)?, writer: JournalWriter,
        secretDigests: SecretDigests?
    ) -> RunPool.Run {
        let recorder = JournalRecorder(
            writer: writer, runID: runID, workflow: workflow, structureID: structureID, showSecrets: false, hub: pool.hub,
            secretDigests: secretDigests)
        let run = pool.submit(
            workflow, resolvedInputs: resolved, structureID: structureID, runID: runID, answers: answers, observer: observer,
            recording: recorder)
        recorder.onFailure { pool.cancel(run, reason: "its journal could not be written") }
        return run
    }
}
