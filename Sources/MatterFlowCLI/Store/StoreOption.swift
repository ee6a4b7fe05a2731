import MatterFlow
import MatterFlowStore

/// `--store URL` on the commands that work with a run store: `postgres://...` or a libpq conninfo for PostgreSQL,
/// or a journal directory (docs/store.md).
enum StoreOption {
    static let option = CommandSpec.Option(
        name: "store", valueName: "<url>",
        help: "The run store: postgres://USER@HOST/DB, a libpq conninfo (\"host=/run/pg dbname=mf\"), or a journal directory.")

    /// `--store` on a command that needs a run store, either kind.
    static let requiredOption = CommandSpec.Option(name: option.name, valueName: option.valueName, required: true, help: option.help)

    /// `--store` on the commands that need PostgreSQL (a fleet's queue, answers, workers, watchers).
    static let postgresOption = CommandSpec.Option(
        name: "store", valueName: "<url>", required: true,
        help: "The run store: postgres://USER@HOST/DB or a libpq conninfo (\"host=/run/pg dbname=mf\").")

    /// The `--store` value, required.
    static func value(_ arguments: ParsedArguments, command: String) throws(UsageError) -> String {
        guard let value = arguments.value("store"), !value.isEmpty else {
            throw UsageError(message: "Missing expected option '--store <url>'", command: command)
        }
        return value
    }

    /// The store of a command that reads runs from `--store` or from `--journal`: nil for the journal. Both at once
    /// is a usage error, since which was meant cannot be known.
    static func readingEither(_ arguments: ParsedArguments, command: String) throws(UsageError) -> String? {
        guard let store = arguments.value("store") else { return nil }
        if arguments.value("journal") != nil {
            throw UsageError(message: "--store and --journal both name where the runs are; give one of them", command: command)
        }
        return store
    }

    /// Refuses a `--store` that is not PostgreSQL (a journal directory, another scheme) for a command that needs the
    /// fleet's store.
    static func requirePostgres(_ location: String, command: String) throws(UsageError) {
        guard PostgresRunStore.isPostgres(location) else {
            let shown = PostgresConnection.shownLocation(location)
            let what = !location.contains("://") ? "the journal directory '\(shown)'" : "'\(shown)', whose scheme is not postgres:// or postgresql:// (written in lower case, with nothing before it)"
            throw UsageError(
                message: "`matterflow \(command)` needs a PostgreSQL store (postgres://... or a conninfo), not \(what)", command: command)
        }
    }

    /// How long a monitoring probe (`store metrics`, `workers`) waits for a server that is starting up or shutting
    /// down, where other commands wait ``PostgresRunStore/startupWait``: a probe must answer within its scraper's
    /// timeout.
    static let probeStartupWait: Duration = .seconds(5)

    /// How long each statement of a monitoring probe waits for a lock another session holds on the store's tables
    /// (a `VACUUM FULL`, a `LOCK TABLE`) before it fails `storeLocked`: a probe answers, and probes on a timer do not
    /// pile up behind the lock.
    static let probeLockWaitSeconds = 5.0

    /// How long each statement of a monitoring probe waits for the server's answer in all (a lock wait included,
    /// which ends first) before the probe fails `storeUnavailable`: a pooler holding statements (pgbouncer's
    /// `PAUSE`) or a stopped server would otherwise keep it, and every probe after it, waiting.
    static let probeAnswerWait: Duration = .seconds(10)

    /// The PostgreSQL store at `location` opened for a monitoring probe (`store metrics`, `workers`): it waits
    /// ``probeStartupWait`` for a server starting up, each later statement ``probeLockWaitSeconds`` for a lock and
    /// `answerWithin` (``probeAnswerWait``) for each answer, the server running it at most 80% of that, and its
    /// connection is named `matterflow COMMAND`.
    static func probe(_ location: String, command: String, answerWithin: Duration = probeAnswerWait) throws(StoreError) -> PostgresRunStore {
        let store = try PostgresRunStore(
            conninfo: location, asClient: true, applicationName: "matterflow \(command)", startupWait: probeStartupWait, answerWithin: answerWithin)
        try store.boundLockWaits(seconds: probeLockWaitSeconds)
        // The server cancels a statement running past most of the wait, so that one the probe gave up on does not go
        // on running there, and the failure says it was slow.
        try store.boundStatements(seconds: answerWithin.secondsValue * 0.8)
        return store
    }

    /// The PostgreSQL store `--store` names; nil (with the reason on `err`) when it cannot be opened. A journal
    /// directory is refused: the command needs the fleet's store.
    /// `asClient`: the command submits, answers, cancels or reads runs, and may use a store whose newer migrations
    /// keep its schema's clients (a worker may not); its connection is named `matterflow COMMAND` in
    /// `pg_stat_activity`, unless the conninfo or `PGAPPNAME` names it.
    static func postgres(
        _ location: String, command: String, err: any TextSink, asClient: Bool = true
    ) throws(UsageError) -> PostgresRunStore? {
        try requirePostgres(location, command: command)
        do {
            return try PostgresRunStore(
                conninfo: location, asClient: asClient, applicationName: asClient ? "matterflow \(command)" : nil)
        } catch {
            err.line("error[\(error.code.rawValue)]: \(error.message)")
            return nil
        }
    }
}
