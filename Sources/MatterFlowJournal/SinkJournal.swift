import MatterFlow
import MatterFlowJSON

/// Journaled runs and recovery over a ``JournalSink`` instead of a journal directory: the same records, the same
/// intent-before-call and outcome-after-call rule, and the same reconcile-then-cancel-or-resume recovery as
/// ``RunJournal``, for run stores that keep records elsewhere (PostgreSQL).
public enum SinkJournal {
    /// Starts a journaled run whose records go to `sink`: like ``RunJournal/start(_:inputs:on:options:engine:testHook:)``.
    /// - Parameters:
    ///   - options: `runID` must be set (the sink belongs to that run).
    ///   - digestKey: The key the run's secret digests are made with, which must also be given to recover it
    ///     (``RecoveryOptions/digestKey``); nil keeps stretched digests, which whoever reads the records can search
    ///     (see ``SecretDigestKey``), so pass nil only for runs whose records stay as private as their secrets.
    ///   - remoteHub: The hub `hub` is, when it is one reached over the hub protocol, recorded so that recovery
    ///     settles the run only against it; nil for the simulated home.
    /// - Throws: `DiagnosticsError` for inputs that do not match the workflow.
    public static func start(
        _ workflow: Workflow, inputs: JSONObject = [:], on hub: any Hub, options: RunOptions,
        engine: WorkflowEngine = WorkflowEngine(), sink: any JournalSink, digestKey: SecretDigestKey?,
        remoteHub: RemoteHubIdentity? = nil
    ) throws -> RunHandle {
        let resolved = try workflow.resolveRunInputs(inputs)
        var options = options
        if options.runID == nil { options.runID = "run-" + options.random.hexDigits(12) }
        let writer = JournalWriter(sink: sink, nextSequence: 1, hook: nil)
        let digests = try SecretDigests.forRun(workflow: workflow, inputs: resolved.values, random: options.random) { digestKey }
        return RunJournal.start(
            workflow, resolved: resolved, on: hub, options: options, engine: engine, writer: writer, secretDigests: digests,
            remoteHub: remoteHub)
    }

    /// Settles one interrupted run from its records, as `matterflow recover` does for a journal file: reconciles
    /// its in-doubt calls by reading the hub, then takes its cancel path (or resumes it, with
    /// ``RecoveryOptions/resume``), and appends recovery's records to `sink`. The caller guarantees that no live
    /// process writes the run any more (a file journal's lock; a store's expired lease).
    public static func recover(
        runID: String, records: [JournalRecord], sink: any JournalSink, on hub: any Hub,
        options: RecoveryOptions = RecoveryOptions()
    ) async -> RunRecovery {
        await options.clock.working { await settle(runID: runID, records: records, sink: sink, on: hub, options: options) }
    }

    private static func settle(
        runID: String, records: [JournalRecord], sink: any JournalSink, on hub: any Hub, options: RecoveryOptions
    ) async -> RunRecovery {
        let contents = JournalContents(path: sink.name, records: records, validLength: 0, tornTail: nil, problems: [])
        var run = RunRecovery(runID: runID, path: sink.name, action: .unreadable, status: .unreadable)
        let writer = JournalWriter(sink: sink, nextSequence: (records.last?.sequence ?? 0) + 1, hook: options.testHook)
        defer { writer.close() }
        await RunRecoverer.settle(&run, contents: contents, writer: writer, hub: hub, options: options)
        return run
    }
}
