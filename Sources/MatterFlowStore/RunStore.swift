import Foundation
import MatterFlowJSON
import MatterFlowJournal

/// Where runs' durable state lives, as `matterflow runs` and `history` read it: a journal directory (one host) or
/// PostgreSQL (a fleet of workers). ``openRunStore(_:)`` picks one from a `--store` value.
public protocol RunStore: Sendable {
    /// What the store is, for messages (`journal directory /var/lib/mf`, `postgres host=/tmp/pg ...`).
    var name: String { get }
    /// The runs the filter keeps, with their status, oldest first.
    func runs(_ filter: RunFilter) throws(StoreError) -> [StoredRun]
    /// Calls `body` with each run ``runs(_:)`` returns for `filter`, in the same order, without holding them all at
    /// once where the store can read them a part at a time: for listings of every run of a large store.
    func forEachRun(_ filter: RunFilter, _ body: (StoredRun) -> Void) throws(StoreError)
    /// One run's journal records, in order.
    /// - Throws: ``StoreError`` `runNotFound` when the store has no such run.
    func records(of runID: String) throws(StoreError) -> [JournalRecord]
    /// The runs that wait for answers now, oldest first (``WaitingRun``).
    func waitingRuns() throws(StoreError) -> [WaitingRun]
    /// One run as ``runs()`` lists it; nil when the store has no such run.
    func run(_ runID: String) throws(StoreError) -> StoredRun?
    /// A run's output as the store keeps it (secrets redacted); nil when it keeps none.
    /// - Throws: ``StoreError`` `runNotFound` when the store has no such run.
    func output(of runID: String) throws(StoreError) -> JSONValue?
    /// Removes the runs a ``PruneRequest`` names, with their records; or, for a dry run, lists them. `removed` hears
    /// of the runs removed as each batch of them is (nothing for a dry run), so what went before a failure is known.
    func prune(_ request: PruneRequest, each removed: ([String]) -> Void) throws(StoreError) -> PruneReport
    /// The store's clock now, in seconds since the Unix epoch: what a span back from now (`runs --since 2h`) counts
    /// from, so that it agrees with the times the store keeps whatever this machine's clock says (PostgreSQL's
    /// clock; a journal directory's is this machine's).
    func currentTime() throws(StoreError) -> Double
}

extension RunStore {
    /// Every run with its status, oldest first.
    public func runs() throws(StoreError) -> [StoredRun] { try runs(RunFilter()) }

    /// This machine's clock now: for a store whose times are this machine's (PostgreSQL's are the server's).
    public func currentTime() throws(StoreError) -> Double {
        JournalFile.wallTime()
    }

    /// Reads ``runs(_:)`` whole, then hands over its runs one by one.
    public func forEachRun(_ filter: RunFilter, _ body: (StoredRun) -> Void) throws(StoreError) {
        for run in try runs(filter) { body(run) }
    }
}

/// Which runs a listing shows (`matterflow runs --status --since --limit`).
public struct RunFilter: Sendable, Hashable {
    /// Only runs with one of these statuses; empty: any.
    public var statuses: Set<String>
    /// Only runs that started (or, not started yet, were submitted) at or after this moment, in seconds since the
    /// Unix epoch.
    public var since: Double?
    /// Only the newest this many of the others (still listed oldest first).
    public var limit: Int?
    /// Only runs on one of these structures (homes); empty: any.
    public var structures: Set<String> = []

    /// A filter; members left empty or nil keep every run.
    public init(statuses: Set<String> = [], since: Double? = nil, limit: Int? = nil, structures: Set<String> = []) {
        self.statuses = statuses
        self.since = since
        self.limit = limit
        self.structures = structures
    }

    /// The runs of an oldest-first list that the filter keeps, for stores that read every run anyway.
    public func apply<Run>(
        to runs: [Run], status: (Run) -> String, startedAt: (Run) -> Double?, structure: (Run) -> String?
    ) -> [Run] {
        let kept = runs.filter { run in
            (statuses.isEmpty || statuses.contains(status(run))) && (since.map { since in (startedAt(run) ?? -.infinity) >= since } ?? true)
                && (structures.isEmpty || structure(run).map(structures.contains) == true)
        }
        guard let limit else { return kept }
        return Array(kept.suffix(max(0, limit)))
    }
}

/// What ``PostgresRunStore/submit(_:inputs:structureID:runID:answers:)`` did.
public struct SubmittedRun: Sendable, Hashable {
    /// The ID of the run submitted.
    public var runID: String
    /// False when the same submission was queued before (sent again): nothing was queued now.
    public var queuedNow: Bool
    /// The run's status: `queued` when queued now; for a submission sent again, its status now (it may have ended).
    public var status: String
}

/// One run as a store lists it.
public struct StoredRun: Sendable, Hashable {
    /// The ID that names the run in the store (`matterflow history RUN`).
    public var runID: String
    /// The name of the workflow the run runs; nil when the store does not know it (a journal without a readable
    /// `runStarted` record).
    public var workflow: String?
    /// The structure the run acts on; nil when the store does not know it.
    public var structureID: String?
    /// `queued`, `running`, `succeeded`, `failed`, `cancelled`, `needsAttention`; for a journal directory also
    /// `interrupted`, `notStarted` and `unreadable` (see `docs/journal.md`).
    public var status: String
    /// The worker that holds the run's lease (PostgreSQL, while it runs).
    public var workerID: String?
    /// When the run began, in seconds since the Unix epoch.
    public var startedAt: Double?
    /// How many journal records the run has (in a journal directory, its valid ones).
    public var recordCount: Int
    /// Whether recovery (or a worker's takeover) settled the run.
    public var recovered: Bool
    /// The final error, for failed and cancelled runs.
    public var error: JSONValue?
    /// Remarks on the run for a person (damage found in its journal, what recovery or a worker noted); empty when
    /// none.
    public var notes: [String]
    /// Whether a cancel was asked for (`matterflow cancel`; PostgreSQL): a queued or running run then takes its cancel
    /// path.
    public var cancelRequested: Bool
    /// The worker that ended the run (PostgreSQL, from migration 11; nil for a run cancelled while queued).
    public var finishedBy: String?
    /// When the run ended, in seconds since the Unix epoch; nil while it is open (or interrupted, in a journal
    /// directory).
    public var endedAt: Double?
    /// What the run ended with (a succeeded `commission-device`'s `deviceIDs`), secrets redacted; nil while it is
    /// open and when it has none.
    public var output: JSONValue?
    /// Whether the run is running under a lease that has run out (PostgreSQL): its worker stopped heartbeating, and
    /// another worker takes it over at its next look.
    public var leaseExpired = false
    /// How many times a worker that claimed the run could not start it (no hub for its structure, its secrets not in
    /// the worker's directory) and handed it back (PostgreSQL: `matterflow_runs.hub_failures`).
    public var startFailures = 0

    /// A run as a store lists it; ``finishedBy``, ``endedAt`` and ``output`` start nil, ``leaseExpired`` false and
    /// ``startFailures`` 0.
    public init(
        runID: String, workflow: String?, structureID: String?, status: String, workerID: String? = nil,
        startedAt: Double?, recordCount: Int, recovered: Bool, error: JSONValue?, notes: [String], cancelRequested: Bool = false
    ) {
        self.runID = runID
        self.workflow = workflow
        self.structureID = structureID
        self.status = status
        self.workerID = workerID
        self.startedAt = startedAt
        self.recordCount = recordCount
        self.recovered = recovered
        self.error = error
        self.notes = notes
        self.cancelRequested = cancelRequested
    }

    /// Whether a run with this status may still change: queued or running.
    public static func isOpen(_ status: String) -> Bool { status == "queued" || status == "running" }

    /// Whether the run may still change: queued or running.
    public var isOpen: Bool { Self.isOpen(status) }

    /// The run as JSON (`matterflow runs --json`).
    public var jsonValue: JSONValue {
        [
            "runID": .string(runID), "workflow": workflow.map(JSONValue.string) ?? .null,
            "structureID": structureID.map(JSONValue.string) ?? .null, "status": .string(status),
            "workerID": workerID.map(JSONValue.string) ?? .null, "startedAt": startedAt.map(JSONValue.double) ?? .null,
            "endedAt": endedAt.map(JSONValue.double) ?? .null, "output": output ?? .null, "records": .int(recordCount), "recovered": .bool(recovered), "error": error ?? .null,
            "notes": .array(notes.map(JSONValue.string)), "cancelRequested": .bool(cancelRequested),
            "finishedBy": finishedBy.map(JSONValue.string) ?? .null, "leaseExpired": .bool(leaseExpired),
            "startFailures": .int(startFailures),
        ]
    }
}

/// A journal directory seen as a run store (what `--journal DIR` names).
public struct JournalDirectoryStore: RunStore {
    /// The journal directory the store reads.
    public let journal: RunJournal

    /// Opens an existing journal directory, creating nothing.
    public init(directory: String) throws(StoreError) {
        do {
            journal = try RunJournal(existingDirectory: directory)
        } catch {
            throw StoreError(error.code == .journalNotFound ? .invalidStore : .storeUnavailable, error.message)
        }
    }

    /// `journal directory` and the directory's path, for messages.
    public var name: String { "journal directory \(journal.directory)" }

    /// The runs the filter keeps, read from every journal in the directory, oldest first.
    /// - Throws: ``StoreError`` `storeUnavailable` when the directory cannot be listed.
    public func runs(_ filter: RunFilter) throws(StoreError) -> [StoredRun] {
        do {
            return filter.apply(to: try journal.runs().map(Self.storedRun), status: \.status, startedAt: \.startedAt, structure: \.structureID)
        } catch {
            throw StoreError(.storeUnavailable, error.message)
        }
    }

    /// One run, read from its own journal (not by listing the directory).
    public func run(_ runID: String) throws(StoreError) -> StoredRun? {
        journal.run(runID).map(Self.storedRun)
    }

    private static func storedRun(_ summary: JournalRunSummary) -> StoredRun {
        var run = StoredRun(
            runID: summary.runID, workflow: summary.workflow, structureID: summary.structureID,
            status: summary.status.rawValue, startedAt: summary.startedAt, recordCount: summary.recordCount,
            recovered: summary.recovered, error: summary.error, notes: summary.notes)
        run.endedAt = summary.endedAt
        run.output = summary.output
        return run
    }

    /// One run's valid journal records, in order, read from its file (a torn last record left out).
    /// - Throws: ``StoreError`` `runNotFound` when the directory has no journal for the run, `storeUnavailable` when it
    ///   cannot be read.
    public func records(of runID: String) throws(StoreError) -> [JournalRecord] {
        do {
            return try journal.read(runID: runID).records
        } catch {
            throw StoreError(error.code == .runNotFound ? .runNotFound : .storeUnavailable, error.message)
        }
    }

    /// The output a recovery recorded with the run's end; a journal keeps none of a run that ended by itself (the
    /// command that ran it printed it).
    public func output(of runID: String) throws(StoreError) -> JSONValue? {
        let finished = try records(of: runID).last { $0.type == JournalEntry.Kind.runFinished.rawValue }
        return finished?.payload["output"].flatMap { $0.isNull ? nil : $0 }
    }
}

/// Opens the store a `--store` value names: `postgres://...` / `postgresql://...` or a libpq conninfo
/// (`host=... dbname=...`) is PostgreSQL; `file:DIR` or a plain path is a journal directory. `asClient`: a reader
/// (``PostgresRunStore/init(conninfo:requireSchema:asClient:)``).
public func openRunStore(_ location: String, asClient: Bool = false) throws(StoreError) -> any RunStore {
    if PostgresRunStore.isPostgres(location) { return try PostgresRunStore(conninfo: location, asClient: asClient) }
    // A URI of another scheme, or a PostgreSQL one mistyped, is not a directory anyone meant.
    if location.contains("://") || location.hasPrefix("postgres") {
        throw StoreError(
            .invalidStore,
            "'\(PostgresConnection.shownLocation(location))' is neither a PostgreSQL URI (postgres://USER@HOST/DB or postgresql://...) or conninfo (\"host=/run/pg dbname=mf\"), nor a journal directory")
    }
    let directory = location.hasPrefix("file:") ? String(location.dropFirst(5)) : location
    guard !directory.isEmpty else { throw StoreError(.invalidStore, "--store is empty; give postgres://... or a journal directory") }
    if let problem = ForeignDirectory.problem(with: directory) { throw problem }
    return try JournalDirectoryStore(directory: directory)
}
