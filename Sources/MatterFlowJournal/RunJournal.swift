import MatterFlow
import MatterFlowJSON

/// A journal directory: one write-ahead journal file per run (`<runID>.journal`), written as the run goes, read
/// by `runs`, `history` and recovery. The format is documented in `docs/journal.md`.
///
/// ```swift
/// let journal = try RunJournal(directory: "/var/lib/app/journal")
/// let handle = try journal.start(workflow, inputs: inputs, on: hub, options: RunOptions(structureID: "home-1"))
/// let result = await handle.result
/// // At start-up, after a crash:
/// let report = await journal.recover(on: hub)
/// ```
public struct RunJournal: Sendable {
    /// The file name suffix of journal files.
    public static let fileExtension = ".journal"

    /// The journal directory.
    public let directory: String
    /// The directory the simulated home of the runs started here is kept in (`matterflow run --state`): recorded in
    /// each run's `runStarted`, so that recovery settles the run only against that home. Nil for any other hub.
    public var homeDirectory: String?
    /// The hub the runs started here call over the hub protocol (`matterflow run --hub`): recorded in each run's
    /// `runStarted`, so that recovery settles the run only against that hub (``RemoteHubIdentity``). Nil for the
    /// simulated home.
    public var remoteHub: RemoteHubIdentity?

    /// Opens a journal directory, creating it when missing.
    /// - Throws: ``JournalError`` `journalUnwritable` when it cannot be created.
    public init(directory: String) throws(JournalError) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        try JournalFile.createDirectory(self.directory)
    }

    /// Opens an existing journal directory to read or recover, creating nothing.
    /// - Throws: ``JournalError`` `journalNotFound` when the directory does not exist (a mistyped path),
    ///   `journalUnreadable` when the path is not a directory.
    public init(existingDirectory directory: String) throws(JournalError) {
        self.directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        try JournalFile.requireDirectory(self.directory)
    }

    /// The journal file of a run.
    public func path(of runID: String) -> String {
        directory + "/" + runID + Self.fileExtension
    }

    /// Starts a journaled run: like ``WorkflowEngine/start(_:inputs:on:options:)``, with every event recorded and
    /// every hub call preceded by a flushed intent record and followed by a flushed outcome record.
    ///
    /// The journal file is created (and locked for the run's lifetime) before the run starts, so a journal that
    /// cannot be written stops the run before it touches the hub. If a write fails later, the run is cancelled so
    /// that it takes its cancel path instead of carrying on unrecorded.
    /// - Parameters:
    ///   - options: As for the engine; a run ID is generated here when it has none (`run-` and 12 hex digits). Its
    ///     ``RunOptions/recording`` is the journal's.
    ///   - engine: Runs the workflow; the run's driver tells the journal of every report, checkpoint and call.
    ///   - testHook: Called at every journal boundary (crash tests); nil in production.
    /// - Throws: `DiagnosticsError` for inputs that do not match the workflow, ``JournalError`` when the journal
    ///   cannot be created.
    public func start(
        _ workflow: Workflow, inputs: JSONObject = [:], on hub: any Hub, options: RunOptions,
        engine: WorkflowEngine = WorkflowEngine(), testHook: JournalTestHook? = nil
    ) throws -> RunHandle {
        let resolved = try workflow.resolveRunInputs(inputs)
        var options = options
        let runID = try Self.checkedFileName(options.runID ?? "run-" + options.random.hexDigits(12))
        options.runID = runID
        let digests = try secretDigests(for: workflow, inputs: resolved.values, random: options.random)
        let writer = try JournalWriter(creating: path(of: runID), hook: testHook)
        return Self.start(
            workflow, resolved: resolved, on: hub, options: options, engine: engine, writer: writer, secretDigests: digests,
            homeDirectory: homeDirectory.map(JournalFile.directoryPath), remoteHub: remoteHub)
    }

    /// The secret digests of a run of `workflow` with these inputs (``SecretDigests/forRun(workflow:inputs:random:key:)``),
    /// keyed with the directory's key, made on first use; nil when the run keeps none.
    /// - Throws: ``JournalError`` when the key file cannot be created or read.
    func secretDigests(for workflow: Workflow, inputs: JSONObject, random: any RandomSource) throws(JournalError) -> SecretDigests? {
        try SecretDigests.forRun(workflow: workflow, inputs: inputs, random: random) { () throws(JournalError) in
            try SecretDigestKey.loadOrCreate(inDirectory: directory)
        }
    }

    /// A run ID that can name a journal file in the directory.
    /// - Throws: ``JournalError`` `journalUnwritable` for one that cannot.
    static func checkedFileName(_ runID: String) throws(JournalError) -> String {
        if let problem = RunIDRule.problem(with: runID) {
            throw JournalError(.journalUnwritable, "the run ID cannot name a journal file: \(problem)")
        }
        return runID
    }

    /// Starts a run whose records go to `writer` (a file or a ``JournalSink``), with its secrets' digests;
    /// `options.runID` is set.
    static func start(
        _ workflow: Workflow, resolved: ResolvedInputs, on hub: any Hub, options given: RunOptions,
        engine: WorkflowEngine, writer: JournalWriter, secretDigests: SecretDigests?, homeDirectory: String? = nil,
        remoteHub: RemoteHubIdentity? = nil
    ) -> RunHandle {
        var options = given
        let runID = options.runID ?? ""
        let recorder = JournalRecorder(
            writer: writer, runID: runID, workflow: workflow, structureID: options.structureID,
            showSecrets: options.showSecrets, hub: hub,
            secretDigests: secretDigests, homeDirectory: homeDirectory, remoteHub: remoteHub)
        options.recording = recorder
        let handle = engine.start(workflow, resolvedInputs: resolved, on: hub, options: options)
        recorder.onFailure { handle.cancel(reason: "its journal could not be written") }
        return handle
    }

    /// Runs a journaled workflow to its end (see ``start(_:inputs:on:options:engine:testHook:)``).
    public func run(
        _ workflow: Workflow, inputs: JSONObject = [:], on hub: any Hub, options: RunOptions,
        engine: WorkflowEngine = WorkflowEngine()
    ) async throws -> RunResult {
        var options = options
        options.eventBufferLimit = 0  // the handle stays here and its stream is never read
        let handle = try start(workflow, inputs: inputs, on: hub, options: options, engine: engine)
        return await withTaskCancellationHandler {
            await handle.result
        } onCancel: {
            handle.cancel(reason: "the task awaiting it was cancelled")
        }
    }

    /// The journal files in the directory, sorted by name.
    public func journalPaths() throws(JournalError) -> [String] {
        try JournalFile.list(directory).filter { $0.hasSuffix(Self.fileExtension) && !$0.hasPrefix(".") }.map { directory + "/" + $0 }
    }

    /// Reads one run's journal.
    /// - Throws: ``JournalError`` `runNotFound` when the directory has no journal for the run.
    public func read(runID: String) throws(JournalError) -> JournalContents {
        // An ID that cannot be a run's names no journal of this directory (`../elsewhere` would name one outside).
        if let problem = RunIDRule.problem(with: runID) {
            throw JournalError(.runNotFound, "no journal for run \"\(runID)\" in \(directory): that is no run ID (\(problem)); `matterflow runs --journal \(ShellWord.quoted(directory))` lists the runs")
        }
        do {
            return try JournalReader.read(path: path(of: runID))
        } catch where error.code == .runNotFound {
            throw JournalError(.runNotFound, "no journal for run \"\(runID)\" in \(directory); `matterflow runs --journal \(ShellWord.quoted(directory))` lists the runs")
        }
    }

    /// Every run in the directory with its status, oldest first. Files that are not journals are listed with
    /// their problem.
    public func runs() throws(JournalError) -> [JournalRunSummary] {
        try journalPaths().map(Self.summary(of:)).sorted { ($0.startedAt ?? .infinity, $0.path) < ($1.startedAt ?? .infinity, $1.path) }
    }

    /// What to tell a person when a run's journal does not end as the run did (a write failed: a full disk, a
    /// directory made read-only; or the hub's connection was lost during a call, which the journal leaves in doubt):
    /// the journal then reads as interrupted, and `recover` settles it. Nil when the journal records the run's end.
    public func unrecordedEnd(of runID: String, outcome: RunResult.Outcome) -> String? {
        guard let summary = run(runID) else {
            return "the journal \(path(of: runID)) is gone, so nothing records this \(outcome.rawValue) run; its effects on the hub stand"
        }
        guard summary.status.rawValue != outcome.rawValue else { return nil }
        let recover = "`matterflow recover --journal \(ShellWord.quoted(directory))`"
        if let loss = (try? JournalReader.read(path: path(of: runID)).entries())?.hubConnectionLoss {
            return "the journal \(path(of: runID)) stops at a call during which the hub's connection was lost (\(loss)); it reads "
                + "\(summary.status.rawValue), the run \(outcome.rawValue): once the hub answers, run \(recover) with the run's --hub "
                + "to settle it"
        }
        return "the journal \(path(of: runID)) could not record the run to its end (it reads \(summary.status.rawValue), the run "
            + "\(outcome.rawValue)): a write failed (a full disk, a read-only directory); once it can be written, run "
            + "\(recover) (with the run's --state or --hub) to settle it"
    }

    /// One run as ``runs()`` lists it, read from its journal alone; nil when the directory has no journal for it.
    public func run(_ runID: String) -> JournalRunSummary? {
        guard RunIDRule.problem(with: runID) == nil else { return nil }
        let file = path(of: runID)
        return JournalFile.exists(file) ? Self.summary(of: file) : nil
    }

    private static func summary(of file: String) -> JournalRunSummary {
        let running = JournalFile.isLockedByAnother(file)
        do {
            return JournalRunSummary(try JournalReader.read(path: file), running: running)
        } catch {
            return JournalRunSummary(unreadable: file, error: error)
        }
    }
}

/// Path helpers.
enum JournalDirectory {
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let head = String(path[..<slash])
        return head.isEmpty ? "/" : head
    }
}
