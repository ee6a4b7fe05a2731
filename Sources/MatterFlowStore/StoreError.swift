/// A run store problem, with a stable code and a message that says what to do (codes in `docs/store.md`).
public struct StoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable codes (documented in `docs/store.md`).
    public enum Code: String, Sendable, Hashable {
        /// The store cannot be reached, or is starting up or shutting down.
        case storeUnavailable
        /// The server is up and refused the connection (for as long as a command retries): a password or role it
        /// does not accept, a database it does not have, no connection slot free. The settings `--store` (or `PG*`)
        /// give, or the server's, must change: it is no outage.
        case storeRefused
        /// The store's schema is missing or older than this MatterFlow: run `matterflow store migrate`.
        case schemaOutdated
        /// The store's schema is newer than this MatterFlow knows: a newer MatterFlow migrated it; run that one.
        case schemaNewer
        /// A migration failed; nothing of it was kept.
        case migrationFailed
        /// `store migrate` held back: workers built for an older schema run against the store, and would go on
        /// claiming after the migration without knowing what it changed.
        case olderWorkersRunning
        /// `store migrate` waited too long for a table another session holds: nothing was migrated.
        case migrationBlocked
        /// A command the store sent failed (the message has the server's SQLSTATE).
        case storeFailed
        /// A command waited longer than its bound for a lock another session holds on the store's tables
        /// (``PostgresRunStore/boundLockWaits(seconds:)``): `VACUUM FULL`, `CLUSTER`, `REINDEX`, `ALTER TABLE`, `LOCK`.
        case storeLocked
        /// No run with that ID in the store.
        case runNotFound
        /// The run has a final status: it takes no answers.
        case runEnded
        /// A run with that ID is in the store already (`submit --run-id`).
        case runExists
        /// A run ID that cannot be a run's (``RunIDRule``): it would name files outside the secrets directory.
        case invalidRunID
        /// A `--store` value that names no store.
        case invalidStore
        /// A worker's options out of their range (``WorkerOptions/problem``).
        case invalidOptions
        /// ``StoreWorker/run(host:pid:)`` was called on a worker that runs, or ran, already: a worker runs once.
        case workerUsed
        /// Another live worker has the worker ID (its heartbeat is within its lease): two workers of one ID would
        /// write each other's runs, as the leases name the worker.
        case workerIDInUse
        /// A submission no worker could run: its workflow not loaded from a file every worker can read by its
        /// absolute path, or its inputs not what the workflow declares.
        case invalidSubmission
        /// A run's secret inputs are not where the worker looks for them (`--secrets DIR`).
        case secretsUnavailable
        /// The run's lease passed to another worker (or back to the fleet): this worker may no longer write it.
        case leaseLost
        /// The role `--store` connects as lacks a privilege the command needs on the store's tables (SQLSTATE 42501):
        /// `docs/store.md`, "Roles", lists the grants of the migrator, the workers and the readers.
        case permissionDenied
        /// A run's rows of records are not what MatterFlow writes (not records, or overlapping): reading them again
        /// will not help, a person must look at them.
        case damagedRecords
    }

    /// What kind of problem it is: a stable code scripts may rely on.
    public var code: Code
    /// What went wrong and what to do about it, for a person.
    public var message: String

    /// Creates an error with a stable code and a message for a person.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`, on one line.
    public var description: String { "\(code.rawValue): \(message)" }

    /// Whether the store could not be reached or refused the connection (`storeUnavailable`, `storeRefused`): a
    /// command may have been done before its answer was lost, and trying later may work. A pooler in front of a
    /// server that is down refuses as a live server does, so a caller that waits out an outage waits out both.
    public var isOutOfReach: Bool {
        switch code {
        case .storeUnavailable, .storeRefused: true
        case .schemaOutdated, .schemaNewer, .migrationFailed, .olderWorkersRunning, .migrationBlocked, .storeFailed, .storeLocked,
            .runNotFound, .runEnded, .runExists, .invalidRunID, .invalidStore, .invalidOptions, .workerUsed, .workerIDInUse,
            .invalidSubmission, .secretsUnavailable, .leaseLost, .permissionDenied, .damagedRecords:
            false
        }
    }

    /// `message; next`, or `message Next` when `message` ends in a question or a sentence (libpq's hint "Is the
    /// server running locally ...?" ends its message): a semicolon does not follow a question mark.
    static func sentence(_ message: String, then next: String) -> String {
        guard let last = message.last, ".?!".contains(last) else { return "\(message); \(next)" }
        return "\(message) \(next.prefix(1).uppercased())\(next.dropFirst())"
    }

    /// The store has no run `runID`.
    static func runNotFound(_ runID: String) -> StoreError {
        StoreError(.runNotFound, "no run \"\(runID)\" in the store; `matterflow runs --store URL` lists the runs")
    }

    /// Why a command bounded by ``PostgresRunStore/boundLockWaits(seconds:)`` got no answer, and how to see who holds the lock.
    public static let lockHeld =
        "another session holds a lock on its tables (VACUUM FULL, CLUSTER, REINDEX, ALTER TABLE or LOCK); "
        + "`SELECT a.pid, a.state, a.query_start, a.query, l.mode FROM pg_locks l JOIN pg_stat_activity a USING (pid) "
        + "WHERE l.relation::regclass::text LIKE 'matterflow%' AND l.granted` on the server shows who"

    /// What to do about a server that takes no writes.
    public static let readOnlyServer =
        "the server takes no writes: a standby (a failover may be under way), or a primary with default_transaction_read_only "
        + "on; " + readOnlyAdvice

    /// What to do about a server known to take no writes: how MatterFlow finds a writable one.
    public static let readOnlyAdvice =
        "MatterFlow asks for a writable server (target_session_attrs=read-write) unless --store, PGTARGETSESSIONATTRS or "
        + "a service file says otherwise: name the primary, or every host of the cluster (host=a,b)"

    /// A PostgreSQL failure while doing something, as a store error.
    public static func from(_ error: PostgresError, doing what: String, code: Code = .storeFailed) -> StoreError {
        switch error.code {
        // A connection no host would take because none takes writes (a failover under way): an outage. A write refused
        // on a connection made to a read-only server is the command's failure, said with what to do.
        case .connectionFailed where error.isReadOnlyOutage:
            return StoreError(.storeUnavailable, "\(what): \(sentence(error.message, then: readOnlyServer))")
        case .commandFailed where error.isReadOnlyServer:
            return StoreError(code, "\(what): \(sentence(error.description, then: readOnlyServer))")
        case .connectionFailed where error.refusedByServer:
            return StoreError(
                .storeRefused,
                "\(what): \(sentence(error.message, then: "the server is up and refused this connection: check the role, password and database that --store (or PGUSER, PGPASSWORD, PGDATABASE) names, and the server's connection limits"))")
        case .connectionFailed, .connectionLost:
            return StoreError(
                .storeUnavailable, "\(what): \(sentence(error.message, then: "check that PostgreSQL is running and --store names it"))")
        case .malformedConninfo:
            return StoreError(.invalidStore, "--store: \(error.message)")
        case .noAnswer:
            return StoreError(
                .storeUnavailable,
                "\(what): \(sentence(error.message, then: "`SHOW POOLS` on a pgbouncer console shows clients waiting; pg_stat_activity on the server shows what its sessions wait for"))")
        case .commandFailed:
            if error.sqlState == "55P03" {
                return StoreError(.storeLocked, "\(what): the store did not answer: \(lockHeld)")
            }
            if error.isCancelled {
                return StoreError(
                    code,
                    "\(what): the server cancelled the statement (\(error.message)): a statement_timeout set for the role or database "
                        + "(`SHOW statement_timeout` as that role), or pg_cancel_backend; MatterFlow's statements are short unless a lock "
                        + "holds them up, so give its roles none (`ALTER ROLE name SET statement_timeout = 0`) or find what held it "
                        + "(docs/store.md, Maintenance)")
            }
            // A prepared statement the connection should hold (26000), or holds already (42P05): its statements
            // went to other server connections, as a pooler in transaction or statement mode hands them out.
            if error.sqlState == "42P05" || error.sqlState == "26000" {
                return StoreError(
                    code,
                    "\(what): \(error.description); is --store a connection pooler in transaction mode? MatterFlow prepares "
                        + "statements on its connections and listens for notifications: connect directly, or through a pool in "
                        + "session mode (docs/store.md, Roles)")
            }
            if error.sqlState == "42P01" {
                return StoreError(.schemaOutdated, "\(what): \(error.message); run `matterflow store migrate --store URL` first")
            }
            if error.sqlState == "42501" {
                return StoreError(
                    .permissionDenied,
                    "\(what): \(sentence(error.message, then: "the role --store connects as lacks a grant this command needs (docs/store.md, Roles, lists them)"))")
            }
            return StoreError(code, "\(what): \(error.description)")
        }
    }
}
