import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The run store in PostgreSQL: runs, their journal records, the queue, leases and the fleet-wide commissioning
/// session per structure (schema and rules in `docs/store.md`).
///
/// Every command goes through one connection (serialized), with its values as parameters. A command that finds
/// the connection broken (the server restarted) opens it again and retries, for up to ``retryLimit``; the
/// commands that change state are written so that running one twice does what running it once does.
public final class PostgresRunStore: RunStore {
    /// How long a command keeps trying to reach a restarting server, unless the store is opened with another bound.
    public static let reconnectLimit: Duration = .seconds(30)
    /// How long each command of this store keeps trying to reach a restarting server before it throws
    /// `storeUnavailable`: ``reconnectLimit``, unless lowered by ``limitRetries(to:)``.
    public var retryLimit: Duration { retryBound.withLock { $0 } }
    private let retryBound = Mutex(PostgresRunStore.reconnectLimit)

    /// The connection string or `postgres://` URI the store was opened with, as given: it may hold a password
    /// (``name`` shows it redacted).
    public let conninfo: String
    /// What the store's connections are named in `pg_stat_activity` (nil: `matterflow`), unless the conninfo names
    /// them; a worker's connections, its own included, carry its ID.
    public let applicationName: String?
    /// How long each command waits for the server's answer (nil: as long as it takes).
    public let answerWithin: Duration?
    private let connection: Mutex<PostgresConnection?>
    /// The settings every connection of the store makes when it opens, by name: `lock_timeout`
    /// (``boundLockWaits(seconds:)``) and `statement_timeout` (``boundStatements(seconds:)``); those not set are the
    /// server's.
    private let sessionSettings = Mutex<[(name: String, value: String)]>([])
    /// The bound ``boundStatements(seconds:)`` set, for the message of a statement it cancelled.
    private let statementBound = Mutex<Double?>(nil)
    /// Whether the store can be reached, as this store's commands (and a worker's group commit) find it.
    public let connectivity = StoreConnectivity()

    /// Connects, and checks that the schema is current.
    /// - Throws: ``StoreError`` `invalidStore` (a connection string libpq cannot read, or a connection it could not
    ///   try), `storeUnavailable`, `storeRefused` (the server, or a pooler, answered and refused the connection),
    ///   `schemaOutdated` (run `matterflow store migrate`), or
    ///   `schemaNewer` (a newer MatterFlow migrated the store: this one might write what that one does not expect;
    ///   `asClient` accepts one whose newer migrations keep clients of this schema, for the commands that submit,
    ///   answer, cancel and read runs, never for a worker).
    /// `answerWithin`: how long each command waits for the server's answer before it fails `storeUnavailable`, not
    /// tried again (``PostgresConnection/init(_:applicationName:answerWithin:)``); nil: as long as it takes.
    public init(
        conninfo: String, requireSchema: Bool = true, asClient: Bool = false, applicationName: String? = nil,
        startupWait: Duration = PostgresRunStore.startupWait, answerWithin: Duration? = nil
    ) throws(StoreError) {
        self.conninfo = conninfo
        self.applicationName = applicationName
        self.answerWithin = answerWithin
        let opened = try Self.connect(conninfo, applicationName: applicationName, waitingForStartup: startupWait, answerWithin: answerWithin)
        connection = Mutex(opened)
        if requireSchema {
            let version = try StoreMigrator(connection: opened).version()
            let latest = StoreMigrations.latest
            guard version >= latest else {
                // No table at all may be a store in a schema the role's search_path misses: migrating would make a
                // second, empty store.
                let path = version == 0 ? (try? opened.execute("SHOW search_path"))?.rows.first?.first.flatMap { $0 } : nil
                let looked = path.map { " (no MatterFlow table in its search_path, \($0): if the store is in another schema, put that schema in the search_path instead)" } ?? ""
                throw StoreError(
                    .schemaOutdated,
                    "the store \(opened.target) has schema version \(version)\(looked), this MatterFlow needs \(latest); "
                        + "run `matterflow store migrate --store URL` first")
            }
            if version > latest {
                let kept = asClient ? try StoreMigrator(connection: opened).keepsClients(of: latest) : false
                guard kept else { throw StoreMigrator.newer(version, than: latest, target: opened.target) }
            }
        }
    }

    /// The schema version the store has been migrated to (which a client may be older than).
    public func schemaVersion() throws(StoreError) -> Int {
        let rows = try execute("SELECT coalesce(max(version), 0) FROM matterflow_migrations", doing: "reading the store's schema version")
        return rows.rows.first?.first.flatMap { $0.flatMap { Int($0) } } ?? 0
    }

    /// Where the store's connection goes (``PostgresConnection/server``): `user@host:port/database`; nil while it has
    /// none open.
    public var server: String? {
        connection.withLock { $0?.server ?? nil }
    }

    /// Lowers how long each later command keeps trying to reach the server (``retryLimit``), never raises it, for
    /// the rest of the store's life: a worker that stops gives its bookkeeping (heartbeats, marking itself stopping
    /// and stopped) a few seconds each, so a store out of reach does not hold its exit a reconnect limit per
    /// command (hand-backs keep the full limit); `watch`, which waits out outages itself, gives its reads a few
    /// seconds, to say that it waits.
    public func limitRetries(to limit: Duration) {
        retryBound.withLock { $0 = min($0, limit) }
    }

    /// Whether a `--store` value names PostgreSQL rather than a journal directory.
    public static func isPostgres(_ location: String) -> Bool {
        location.hasPrefix("postgres://") || location.hasPrefix("postgresql://") || location.contains("=")
    }

    /// `postgres` and the connection string with any password redacted, for messages.
    public var name: String { "postgres \(PostgresConnection.redacting(conninfo))" }

    /// Bounds how long each later command waits for a lock another session holds on the tables it reads (`lock_timeout`,
    /// also on connections opened again): a command that waited so long fails `storeLocked` at once, rather than
    /// blocking as long as the lock is held. For a monitoring probe, which must answer.
    public func boundLockWaits(seconds: Double) throws(StoreError) {
        try keep("lock_timeout", "\(Int(seconds * 1000))ms", doing: "bounding the store's lock waits")
    }

    /// Bounds how long the server runs each later statement (`statement_timeout`, also on connections opened again): a
    /// statement that ran so long is cancelled by the server, and the command fails `storeUnavailable` at once, saying
    /// so. For a monitoring probe, whose statement would otherwise go on running on the server after the probe gave
    /// up waiting for it (``init(conninfo:requireSchema:asClient:applicationName:startupWait:answerWithin:)``).
    public func boundStatements(seconds: Double) throws(StoreError) {
        statementBound.withLock { $0 = seconds }
        try keep("statement_timeout", "\(Int(seconds * 1000))ms", doing: "bounding the store's statements")
    }

    /// Sets `name` to `value` for the session, now and on every connection opened later.
    private func keep(_ name: String, _ value: String, doing what: String) throws(StoreError) {
        sessionSettings.withLock { settings in
            settings.removeAll { $0.name == name }
            settings.append((name, value))
        }
        try execute("SELECT set_config($1, $2, false)", [name, value], doing: what)
    }

    /// How long opening a store waits for a server that is starting up, shutting down or recovering (it refuses
    /// connections with SQLSTATE 57P03 meanwhile): a command run just as the server restarts waits for it.
    public static let startupWait: Duration = .seconds(30)

    /// A connection to the server, tried again for up to `wait` while the server is running but not ready
    /// (``PostgresError/isServerNotReady``), every 100 ms growing to 1 s; any other failure is thrown at once.
    static func connect(
        _ conninfo: String, applicationName: String?, waitingForStartup wait: Duration, answerWithin: Duration? = nil
    ) throws(StoreError) -> PostgresConnection {
        let deadline = ContinuousClock.now + wait
        var delay: Duration = .milliseconds(100)
        while true {
            do {
                return try PostgresConnection(conninfo, applicationName: applicationName, answerWithin: answerWithin)
            } catch where error.isServerNotReady && ContinuousClock.now < deadline {
                pause(min(delay, deadline - ContinuousClock.now))
                delay = min(delay * 2, .seconds(1))
            } catch {
                var failure = StoreError.from(error, doing: "connecting to the store")
                if error.isServerNotReady {
                    let tenths = Int(wait.components.seconds) * 10 + Int(wait.components.attoseconds / 100_000_000_000_000_000)
                    let seconds = tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
                    failure.message += " (the server refused connections for \(seconds) s: "
                        + "it is starting up, shutting down or recovering; its log says which)"
                }
                throw failure
            }
        }
    }

    /// Runs one command, reconnecting (bounded) when the connection broke; with `retrying` false, tried once.
    @discardableResult
    /// `retryingFor`: how long this command tries, whatever ``retryLimit`` is now (a hand-back, which a stopping
    /// worker gives the full reconnect limit: a run not handed back is taken over).
    func execute(
        _ sql: String, _ parameters: [String?] = [], doing what: String, retrying: Bool = true, retryingFor: Duration? = nil
    ) throws(StoreError) -> PostgresRows {
        try onConnection(doing: what, retrying: retrying, retryingFor: retryingFor) { open throws(PostgresError) in
            // Commands with parameters are single statements the store repeats: prepared once per connection.
            try parameters.isEmpty ? open.execute(sql) : open.execute(prepared: sql, parameters)
        }
    }

    /// Runs `body` on the store's connection, opening it when there is none or it broke; a transient failure is
    /// tried again (with `retrying`) for up to ``retryLimit`` on a new connection.
    func onConnection<Value: Sendable>(
        doing what: String, retrying: Bool, retryingFor: Duration? = nil, _ body: (PostgresConnection) throws(PostgresError) -> Value
    ) throws(StoreError) -> Value {
        let started = ContinuousClock.now
        var delay: Duration = .milliseconds(10)
        while true {
            let outcome = connection.withLock { held -> Result<(Value, PostgresConnection), PostgresError> in
                do throws(PostgresError) {
                    if held == nil || held?.isOpen == false {
                        let opened = try PostgresConnection(conninfo, applicationName: applicationName, answerWithin: answerWithin)
                        connectivity.connected(opened)
                        for setting in sessionSettings.withLock({ $0 }) { try opened.execute("SELECT set_config($1, $2, false)", [setting.name, setting.value]) }
                        held = opened
                    }
                    guard let open = held else { return .failure(PostgresError(.connectionLost, "no connection")) }
                    return .success((try body(open), open))
                } catch {
                    if error.isTransient {
                        held?.close()
                        held = nil
                    }
                    return .failure(error)
                }
            }
            // One statement runs in a transaction of its own: after a transient failure it is rolled back whole,
            // or (a commit whose answer was lost) done; every state-changing statement here is safe to repeat.
            switch outcome {
            case .success(let (value, used)):
                connectivity.reached(via: used)
                return value
            // The limit is read at each failure: one lowered meanwhile (a worker that began to stop) counts at once.
            case .failure(let error) where !error.isTransient || ContinuousClock.now >= started + (retrying ? retryingFor ?? retryLimit : .zero):
                if error.isOutage { connectivity.failed(error.message, doing: what, readOnly: error.isReadOnlyOutage, serverLost: error.serverLost) }
                if error.isCancelled, let bound = statementBound.withLock({ $0 }) {
                    throw StoreError(
                        .storeUnavailable,
                        "\(what): the statement ran longer than \(NumberRange.format(bound)) s, and the server cancelled it (\(error.message)); "
                            + "a store this slow to answer is under load, or its tables need VACUUM or ANALYZE (docs/store.md, Maintenance)")
                }
                throw StoreError.from(error, doing: what)
            case .failure(let error):
                if error.isOutage { connectivity.failed(error.message, doing: what, readOnly: error.isReadOnlyOutage, serverLost: error.serverLost) }
                Self.pause(delay)
                delay = min(delay * 2, .milliseconds(500))
            }
        }
    }

    /// Sleeps the calling thread (the store's commands block their thread anyway).
    static func pause(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    // MARK: - Reading

    /// The runs the filter keeps, oldest submitted first; with a `limit`, the newest that many of them.
    /// - Throws: ``StoreError`` when the store cannot be read.
    public func runs(_ filter: RunFilter) throws(StoreError) -> [StoredRun] {
        let parameters = [Self.textArrayLiteral(filter.statuses.sorted()), filter.since.map { String($0) }]
        let structures = Self.textArrayLiteral(filter.structures.sorted())
        guard let limit = filter.limit else {
            return Self.storedRuns(
                try execute(Self.keptRuns(structures: 3) + " ORDER BY r.submitted_at, r.run_id", parameters + [structures], doing: "listing the runs"))
        }
        return Self.storedRuns(try execute(Self.newestRuns, parameters + [String(max(0, limit)), structures], doing: "listing the runs"))
    }

    /// The runs the filter keeps, oldest submitted first, read `pageSize` at a time, each page a statement of its
    /// own that starts after the last run of the page before by submission time and run ID, which no run changes:
    /// a run kept throughout is listed once, whatever runs start or end meanwhile, and the listing never holds a
    /// large store's runs at once. With a `limit`, as ``runs(_:)`` (the newest that many).
    public func forEachRun(_ filter: RunFilter, _ body: (StoredRun) -> Void) throws(StoreError) {
        try forEachRun(filter, pageSize: 1000, body)
    }

    func forEachRun(_ filter: RunFilter, pageSize: Int, _ body: (StoredRun) -> Void) throws(StoreError) {
        guard filter.limit == nil else {
            for run in try runs(filter) { body(run) }
            return
        }
        let kept = [Self.textArrayLiteral(filter.statuses.sorted()), filter.since.map { String($0) }]
        let structures = Self.textArrayLiteral(filter.structures.sorted())
        var after: (submitted: String?, runID: String) = (nil, "")
        while true {
            let page = try execute(
                Self.pageOfRuns, kept + [after.submitted, after.runID, String(pageSize), structures], doing: "listing the runs")
            for run in Self.storedRuns(page) { body(run) }
            guard page.rows.count == pageSize, let last = page.rows.last, let submitted = last[17], let runID = last[0] else { return }
            after = (submitted, runID)
        }
    }

    /// The first `$5` of ``keptRuns(structures:)`` (structures `$6`) submitted after the microsecond `$3` since the Unix epoch (null: from the
    /// first) or at it with a greater run ID (`$4`), oldest first, each with that microsecond last, as the next
    /// page's `$3`: a whole number, exact on every server version, where a timestamp's text could be ambiguous under
    /// the session's DateStyle and TimeZone. The ended runs come from their index by submission (migration 18), the
    /// open ones from the queue's index and the few running.
    static let pageOfRuns = """
        SELECT page.*, \(microseconds("page.submitted_at")) FROM (
            (\(keptRuns(structures: 6)) AND r.status NOT IN ('queued', 'running') AND (r.submitted_at, r.run_id) > (\(pageStart), $4::text)
                ORDER BY r.submitted_at, r.run_id LIMIT $5::bigint)
            UNION ALL
            (\(keptRuns(structures: 6)) AND r.status IN ('queued', 'running') AND (r.submitted_at, r.run_id) > (\(pageStart), $4::text)
                ORDER BY r.submitted_at, r.run_id LIMIT $5::bigint)
        ) AS page ORDER BY page.submitted_at, page.run_id LIMIT $5::bigint
        """

    /// SQL: the moment a page starts after, exactly: the microsecond `$3` since the epoch, or minus infinity.
    private static let pageStart = "coalesce(\(moment("$3")), timestamptz '-infinity')"

    /// SQL: the timestamp `column` as a whole number of microseconds since the Unix epoch, exact on every server
    /// version, where a timestamp's text could read back as another moment under the session's DateStyle and TimeZone
    /// (`IST` is India's or Israel's).
    static func microseconds(_ column: String) -> String {
        "(extract(epoch FROM date_trunc('second', \(column)))::bigint * 1000000 + extract(microseconds FROM \(column))::bigint % 1000000)"
    }

    /// SQL: the moment `parameter` (microseconds since the Unix epoch, as ``microseconds(_:)`` gives them).
    static func moment(_ parameter: String) -> String {
        "(timestamptz 'epoch' + \(parameter)::bigint * interval '1 microsecond')"
    }

    /// The runs a filter keeps: `$1` the statuses (a text array, empty for any), `$2` the time they started since
    /// (seconds since the Unix epoch, or null), and the parameter numbered `structures` their structures (a text
    /// array, empty for any).
    static func keptRuns(structures parameter: Int) -> String {
        """
        \(runColumns)
        WHERE (cardinality($1::text[]) = 0 OR r.status = ANY($1::text[]))
          AND ($2::float8 IS NULL OR coalesce(r.started_at, r.submitted_at) >= to_timestamp($2::float8))
          AND (cardinality($\(parameter)::text[]) = 0 OR r.structure_id = ANY($\(parameter)::text[]))
        """
    }

    /// The newest `$3` of ``keptRuns(structures:)`` (structures `$4`), then oldest first: the newest ended ones, read backwards from their index by
    /// submission (migration 18), and the newest open ones (the queue's index, and the few running), so the cost
    /// follows the runs listed and the runs open, not the runs the store keeps.
    static let newestRuns = """
        SELECT * FROM (
            SELECT * FROM (
                (\(keptRuns(structures: 4)) AND r.status NOT IN ('queued', 'running') ORDER BY r.submitted_at DESC, r.run_id DESC LIMIT $3::bigint)
                UNION ALL
                (\(keptRuns(structures: 4)) AND r.status IN ('queued', 'running') ORDER BY r.submitted_at DESC, r.run_id DESC LIMIT $3::bigint)
            ) AS either ORDER BY submitted_at DESC, run_id DESC LIMIT $3::bigint
        ) AS kept ORDER BY submitted_at, run_id
        """

    /// The queued and running runs as ``runs()`` lists them, oldest first (from the partial indexes on either).
    func openRuns() throws(StoreError) -> [StoredRun] {
        Self.storedRuns(
            try execute(
                Self.runColumns + " WHERE r.status IN ('queued', 'running') ORDER BY r.submitted_at, r.run_id", doing: "listing the open runs"))
    }

    /// One run as ``runs()`` lists it, looked up by its key; nil when the store has no such run.
    public func run(_ runID: String) throws(StoreError) -> StoredRun? {
        Self.storedRuns(try execute(Self.runColumns + " WHERE r.run_id = $1", [runID], doing: "reading run \(runID)")).first
    }

    /// What ``StoredRun`` is read from, for `storedRuns(_:)`.
    private static let runColumns = """
        SELECT r.run_id, r.workflow, r.structure_id, r.status, r.worker_id,
               extract(epoch FROM coalesce(r.started_at, r.submitted_at))::float8 AS started,
               (SELECT coalesce(sum(m.last_seq - m.first_seq + 1), 0) FROM matterflow_record_batches m
                WHERE m.run_id = r.run_id) AS records,
               r.recovered, r.error::text, r.notes, r.cancel_requested_at IS NOT NULL, r.finished_by,
               r.status = 'running' AND r.lease_until < now(), r.submitted_at, extract(epoch FROM r.finished_at)::float8, r.output::text,
               r.hub_failures
        FROM matterflow_runs r
        """

    private static func storedRuns(_ rows: PostgresRows) -> [StoredRun] {
        rows.rows.map { row in
            var run = StoredRun(
                runID: row[0] ?? "", workflow: row[1], structureID: row[2], status: row[3] ?? "?", workerID: row[4],
                startedAt: row[5].flatMap(Double.init), recordCount: row[6].flatMap { Int($0) } ?? 0, recovered: row[7] == "t",
                error: row[8].flatMap { try? JSONDocument.parse($0, file: "<store>").value },
                notes: Self.textArray(row[9]), cancelRequested: row[10] == "t")
            run.finishedBy = row[11]
            run.leaseExpired = row[12] == "t"
            run.endedAt = row[14].flatMap(Double.init)
            run.output = row[15].flatMap { try? JSONDocument.parse($0, file: "<store>").value }.flatMap { $0.isNull ? nil : $0 }
            run.startFailures = row[16].flatMap { Int($0) } ?? 0
            return run
        }
    }

    /// One run's journal records, in order.
    /// - Throws: ``StoreError`` `runNotFound` when the store has no such run, or another code when it cannot be
    ///   read.
    public func records(of runID: String) throws(StoreError) -> [JournalRecord] {
        let exists = try execute("SELECT 1 FROM matterflow_runs WHERE run_id = $1", [runID], doing: "reading run \(runID)")
        guard !exists.rows.isEmpty else {
            throw StoreError.runNotFound(runID)
        }
        return try records(of: runID, after: 0)
    }

    /// A run's records after sequence number `sequence`, in order: those of every row of the run's batches that
    /// ends past it (``RecordBatchRows``).
    /// - Throws: ``StoreError`` `damagedRecords` when a row is not records MatterFlow wrote, or overlaps an earlier one.
    public func records(of runID: String, after sequence: Int) throws(StoreError) -> [JournalRecord] {
        let rows = try execute(
            "SELECT records FROM matterflow_record_batches WHERE run_id = $1 AND last_seq > $2::integer ORDER BY first_seq",
            [runID, String(sequence)], doing: "reading the records of run \(runID)")
        var records: [JournalRecord] = []
        var last: Int?
        for row in rows.rows {
            guard let text = row[0] else { throw StoreError(.damagedRecords, "a row of records of run \(runID) in the store is empty") }
            try RecordBatchRows.decode(text, runID: runID, after: sequence, last: &last, into: &records)
        }
        return records
    }

    /// The status of one run (`queued`, `running`, ...).
    public func status(of runID: String) throws(StoreError) -> String {
        let rows = try execute("SELECT status FROM matterflow_runs WHERE run_id = $1", [runID], doing: "reading run \(runID)")
        guard let status = rows.rows.first?.first ?? nil else {
            throw StoreError.runNotFound(runID)
        }
        return status
    }

    /// A run's output as the store keeps it (secrets redacted); nil while it has none (not ended, or it did not
    /// succeed, or its workflow gives none).
    /// - Throws: ``StoreError`` `runNotFound` when there is no such run.
    public func output(of runID: String) throws(StoreError) -> JSONValue? {
        let rows = try execute("SELECT output::text FROM matterflow_runs WHERE run_id = $1", [runID], doing: "reading run \(runID)")
        guard let row = rows.rows.first else {
            throw StoreError.runNotFound(runID)
        }
        return row.first.flatMap { $0 }.flatMap { try? JSONDocument.parse($0, file: "<store>").value }
    }

    // MARK: - Submitting

    /// Queues a run of a workflow. Secret inputs are not stored: their values are replaced by `"<redacted>"` and
    /// their names listed, so a worker knows to take them from its secrets directory; so are the inputs and answers
    /// that hold a secret's value (``MatterFlow/Workflow/secretNames(inputs:answers:)``). Submitting the same run again
    /// (same ID, workflow file, structure, inputs and answers) queues nothing more and says so.
    /// - Throws: ``StoreError`` `runExists` when another run has the ID, `invalidRunID` for an ID that cannot name
    ///   the run's files (``RunIDRule``), `invalidSubmission` when workers could not run it: the workflow was not
    ///   loaded from a file by its absolute path (workers load it again from there), or the inputs do not resolve
    ///   (``MatterFlow/Workflow/resolveInputs(_:source:)``).
    ///
    /// A run with secret inputs or answers needs their values where workers look for them before one claims it:
    /// write them first with ``SecretInbox/create(_:runID:kind:)`` (as `matterflow submit --secrets DIR` does), all
    /// of those ``MatterFlow/Workflow/secretNames(inputs:answers:)`` names: the declared secrets and the values holding
    /// one. A worker refuses to start a run whose file lacks one (`secretsUnavailable`).
    /// - Parameter secretsDigest: A keyed digest of the secret inputs' and answers' values
    ///   (``SecretDigestKey/digest(of:)``), kept in the submission: a submission sent again with other secret values
    ///   (another device's onboarding payload) is then another submission, refused with `runExists`. Without it, two
    ///   submissions that differ only in secret values are the same.
    /// - Parameter answers: Answers to the run's questions given in advance, by question or ask state name, as
    ///   `RunOptions.answers` takes them (a fleet's workers have nobody to ask). An answer to a secret question is
    ///   stored as `"<redacted>"` and named in `secret_answers`: the worker takes it from its secrets directory
    ///   (``SecretInbox/Kind/answers``).
    /// - Parameter worksInSession: Whether the workflow works in the structure's commissioning session; nil: as
    ///   ``MatterFlow/Workflow/worksInSession(catalog:)`` tells with the standard catalog (give it for a workflow
    ///   loaded with another). Workers start such runs one at a time per structure, oldest first: a second one would
    ///   find the session taken (`sessionBusy`).
    public func submit(
        _ workflow: Workflow, inputs: JSONObject, structureID: StructureID, runID: String, answers: [String: JSONValue] = [:],
        secretsDigest: String? = nil, worksInSession: Bool? = nil
    ) throws(StoreError) -> SubmittedRun {
        if let problem = RunIDRule.problem(with: runID) { throw StoreError(.invalidRunID, problem) }
        if let problem = Self.submissionProblem(workflow, inputs: inputs) { throw StoreError(.invalidSubmission, problem) }
        // Secret inputs and answers, and those holding a secret's value, are kept in the secrets directory only.
        let (secrets, secretAnswers) = workflow.secretNames(inputs: inputs, answers: answers)
        var stored = inputs
        for name in secrets { stored[name] = .string(RunOptions.redacted) }
        let storedAnswers = answers.sorted { $0.key < $1.key }.map { name, value in
            JSONObject.Member(key: name, value: secretAnswers.contains(name) ? .string(RunOptions.redacted) : value)
        }
        let parameters: [String?] = [
            runID, workflow.name, workflow.file, structureID, JSONWriter.compact(.object(stored)), Self.textArrayLiteral(secrets),
            JSONWriter.compact(.object(JSONObject(storedAnswers))), Self.textArrayLiteral(secretAnswers), secretsDigest,
        ]
        // A workflow built in code has no files to hash: its run is not checked.
        let hash = workflow.contentHash.isEmpty ? nil : workflow.contentHash
        let session = worksInSession ?? workflow.worksInSession()
        let queued = try execute(Self.queueStatement, parameters + [hash, session ? "t" : "f"], doing: "queueing run \(runID)")
        if !queued.rows.isEmpty { return SubmittedRun(runID: runID, queuedNow: true, status: "queued") }
        // A run with the ID already is this very submission when it was submitted with the same workflow file,
        // structure, inputs and answers: a submit sent again (its reply lost, or the command run again) queues nothing
        // twice. Read in a statement of its own, whose snapshot sees a row a concurrent submit committed meanwhile.
        // A run submitted before submissions were kept (migration 7) is compared column by column, and one submitted
        // before they included the secrets' digest by the digest without it (its secrets cannot be compared).
        let existing = try execute(
            """
            SELECT status, CASE WHEN submission IS NULL
                THEN workflow_file = $3 AND structure_id = $4 AND inputs = $5::jsonb AND answers = $7::jsonb
                     AND workflow = $2 AND secret_inputs = $6::text[] AND secret_answers = $8::text[]
                ELSE submission IN (\(Self.submissionDigest), \(Self.submissionDigestWithoutSecrets)) END
            FROM matterflow_runs WHERE run_id = $1
            """, parameters, doing: "queueing run \(runID)")
        guard let row = existing.rows.first, let status = row[0], row[1] == "t" else {
            throw StoreError(
                .runExists, "another run \(runID) is in the store already; choose another --run-id (or leave it out for a new one)")
        }
        return SubmittedRun(runID: runID, queuedNow: false, status: status)
    }

    /// Why workers could not run a submission of `workflow` with `inputs`; nil when they could.
    static func submissionProblem(_ workflow: Workflow, inputs: JSONObject) -> String? {
        guard workflow.file.hasPrefix("/") else {
            return "workflow \(workflow.name) was not loaded from a file by its absolute path (\(workflow.file)); workers load it again from there: load it with WorkflowEngine.load(path:) and an absolute path"
        }
        guard FileManager.default.isReadableFile(atPath: workflow.file) else {
            return "workflow file \(workflow.file) cannot be read here; workers load it from that path"
        }
        do {
            _ = try workflow.resolveInputs(inputs)
            return nil
        } catch {
            let problems = error.diagnostics.map(\.message).joined(separator: "; ")
            return "the inputs do not fit workflow \(workflow.name): \(problems)"
        }
    }

    /// The first statement of ``submit(_:inputs:structureID:runID:answers:secretsDigest:)``: `$1` run, `$2` workflow,
    /// `$3` its file, `$4` structure, `$5` inputs, `$6` secret inputs' names, `$7` answers, `$8` secret answers' names,
    /// `$9` the secret values' keyed digest, `$10` the workflow tree's content hash. One
    /// statement, one transaction: the notification is sent when, and only when, the run is queued.
    static let queueStatement = """
        WITH queued AS (
            INSERT INTO matterflow_runs
                (run_id, workflow, workflow_file, structure_id, inputs, secret_inputs, answers, secret_answers, status, submission,
                 workflow_hash, works_in_session)
            VALUES ($1, $2, $3, $4, $5::jsonb, $6::text[], $7::jsonb, $8::text[], 'queued', \(submissionDigest), $10, $11::boolean)
            ON CONFLICT (run_id) DO NOTHING
            RETURNING run_id
        )
        SELECT pg_notify('matterflow_queue', run_id) FROM queued
        """

    /// What a submission is, as SQL over the submit statement's parameters (workflow, its file, structure, inputs,
    /// answers and the secret ones' names, and the secret values' keyed digest when there is one, in a `jsonb` array,
    /// whose text is canonical), hashed: kept with the run, so that the same submission sent again is known as such
    /// after answers given since changed the run's `answers`. (Without a digest, the array is the one runs submitted
    /// before digests were kept have theirs of.)
    private static let submissionDigest = """
        encode(sha256(convert_to((
            jsonb_build_array($2::text, $3::text, $4::text, $5::jsonb, $6::text[], $7::jsonb, $8::text[])
            || CASE WHEN $9::text IS NULL THEN '[]'::jsonb ELSE jsonb_build_array($9::text) END)::text, 'UTF8')), 'hex')
        """

    /// ``submissionDigest`` as runs with secrets had it before it included their digest: a run queued then, sent
    /// again, is still known (a stored digest of this form is never one of a run queued since with a secrets digest).
    private static let submissionDigestWithoutSecrets = """
        encode(sha256(convert_to(
            jsonb_build_array($2::text, $3::text, $4::text, $5::jsonb, $6::text[], $7::jsonb, $8::text[])::text, 'UTF8')), 'hex')
        """

    // MARK: - Helpers

    /// A PostgreSQL `text[]` in its text form: `{"a","b"}`, quotes and backslashes escaped.
    static func textArrayLiteral(_ values: [String]) -> String {
        "{" + values.map { value in
            var quoted = "\""
            for character in value {
                if character == "\"" || character == "\\" { quoted.append("\\") }
                quoted.append(character)
            }
            return quoted + "\""
        }.joined(separator: ",") + "}"
    }

    /// Parses a `text[]` in its text form (as ``textArrayLiteral(_:)`` writes it, and PostgreSQL returns it).
    static func textArray(_ text: String?) -> [String] {
        guard let text, text.count >= 2 else { return [] }
        var values: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        var started = false
        for character in text.dropFirst().dropLast() {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
                started = true
            } else if character == "," && !quoted {
                values.append(current)
                current = ""
                started = false
            } else {
                current.append(character)
                started = true
            }
        }
        if started || !values.isEmpty { values.append(current) }
        return values
    }
}
