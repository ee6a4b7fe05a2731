import MatterFlowJSON

/// The PostgreSQL schema of the run store, as numbered migrations (documented in `docs/store.md`).
///
/// ``StoreMigrator`` applies the ones a database lacks, in order, each in its own transaction with its row in
/// `matterflow_migrations`; all of it under a transaction-scoped advisory lock, so workers that start together
/// migrate once and never half-way.
public enum StoreMigrations {
    /// One migration: its version (1, 2, ...), a name and its SQL.
    public struct Migration: Sendable {
        /// The migration's number, from 1; migrations apply in its order, and `matterflow_migrations` records it.
        public var version: Int
        /// What the migration changes, in a few words, as `matterflow_migrations` records it.
        public var name: String
        /// The SQL the migration runs, one or more statements.
        public var sql: String
        /// The oldest schema whose clients (`submit`, `answer`, `cancel`, `runs`, `history`, `watch`, `workers`) may
        /// go on using a store this migration changed, as it records in `matterflow_migrations` (a migration that
        /// only adds what older clients neither read nor must write); nil: only clients of its own schema on. Workers,
        /// `store prune` and `store migrate` always need the store's own schema.
        public var clientsFrom: Int? = nil
    }

    /// The advisory lock key every migration holds (`pg_advisory_xact_lock`): "MFMIGRAT" as a 64-bit number.
    static let lockKey: Int64 = 0x4D46_4D49_4752_4154

    /// Every migration, oldest first. A released migration is never edited: a change is a new migration.
    public static let all: [Migration] = [
        Migration(
            version: 1, name: "runs, records, sessions and workers",
            sql: """
                CREATE TABLE matterflow_runs (
                    run_id        text PRIMARY KEY,
                    workflow      text NOT NULL,
                    workflow_file text NOT NULL,
                    structure_id  text NOT NULL,
                    inputs        jsonb NOT NULL,
                    secret_inputs text[] NOT NULL DEFAULT '{}',
                    status        text NOT NULL CHECK (status IN
                                      ('queued', 'running', 'succeeded', 'failed', 'cancelled', 'needsAttention')),
                    worker_id     text,
                    lease_until   timestamptz,
                    claims        integer NOT NULL DEFAULT 0,
                    recovered     boolean NOT NULL DEFAULT false,
                    submitted_at  timestamptz NOT NULL DEFAULT now(),
                    started_at    timestamptz,
                    finished_at   timestamptz,
                    output        jsonb,
                    error         jsonb,
                    notes         text[] NOT NULL DEFAULT '{}'
                );
                CREATE INDEX matterflow_runs_queue ON matterflow_runs (submitted_at) WHERE status = 'queued';
                CREATE INDEX matterflow_runs_leases ON matterflow_runs (lease_until) WHERE status = 'running';
                CREATE INDEX matterflow_runs_worker ON matterflow_runs (worker_id) WHERE status = 'running';

                CREATE TABLE matterflow_records (
                    run_id  text NOT NULL REFERENCES matterflow_runs (run_id) ON DELETE CASCADE,
                    seq     integer NOT NULL CHECK (seq >= 1),
                    type    text NOT NULL,
                    payload jsonb NOT NULL,
                    PRIMARY KEY (run_id, seq)
                );

                CREATE TABLE matterflow_sessions (
                    structure_id text PRIMARY KEY,
                    run_id       text NOT NULL,
                    acquired_at  timestamptz NOT NULL DEFAULT now()
                );

                CREATE TABLE matterflow_workers (
                    worker_id    text PRIMARY KEY,
                    host         text NOT NULL,
                    pid          integer NOT NULL,
                    started_at   timestamptz NOT NULL DEFAULT now(),
                    heartbeat_at timestamptz NOT NULL DEFAULT now(),
                    stopping     boolean NOT NULL DEFAULT false
                );
                """),
        // The records are written and read whole, never queried inside: the payload is the record's JSON text, which
        // the server stores without parsing it. The foreign key checked each inserted row against matterflow_runs
        // (a trigger and a lookup per record); the insert itself only takes rows of runs it finds leased to the
        // writing worker (locking them FOR SHARE in the same statement), and a run is deleted only when it has ended (`store prune`), when nobody writes its records.
        Migration(
            version: 2, name: "records as JSON text, without a foreign key",
            sql: """
                ALTER TABLE matterflow_records DROP CONSTRAINT IF EXISTS matterflow_records_run_id_fkey;
                ALTER TABLE matterflow_records ALTER COLUMN payload TYPE text USING payload::text;
                """),
        // A run's records of one group-commit batch are one row: its first and last sequence numbers and the records
        // as one JSON array text, so the server stores (a heap row, an index entry and their WAL) once per run and
        // batch instead of once per record. Each old record becomes a row of its own, its JSON text kept. The view
        // `matterflow_records` shows one row per record, as the table of migrations 1 and 2 did, for SQL readers.
        // `matterflow_watchers` names the runs a `watch` follows (its connection's server process): only their
        // batches are announced, since each notification wakes every listening connection of the database.
        Migration(
            version: 3, name: "a run's records of one batch in one row; watchers",
            sql: """
                CREATE TABLE matterflow_record_batches (
                    run_id    text NOT NULL,
                    first_seq integer NOT NULL CHECK (first_seq >= 1),
                    last_seq  integer NOT NULL CHECK (last_seq >= first_seq),
                    records   text NOT NULL,
                    PRIMARY KEY (run_id, first_seq)
                );
                INSERT INTO matterflow_record_batches (run_id, first_seq, last_seq, records)
                SELECT run_id, seq, seq, '[' || payload || ']' FROM matterflow_records;
                DROP TABLE matterflow_records;
                CREATE TABLE matterflow_watchers (
                    run_id      text NOT NULL,
                    backend_pid integer NOT NULL,
                    since       timestamptz NOT NULL DEFAULT now(),
                    PRIMARY KEY (run_id, backend_pid)
                );
                CREATE VIEW matterflow_records AS
                SELECT b.run_id, (r.value->>'seq')::integer AS seq, r.value->>'type' AS type, r.value::text AS payload
                FROM matterflow_record_batches b CROSS JOIN LATERAL jsonb_array_elements(b.records::jsonb) AS r(value);
                """),
        // A row of records (2-3 KB of JSON text) is compressed as it is stored; with pglz, the default, that was
        // the server's largest single cost per record batch. lz4 compresses as well as that several times faster;
        // rows stored before keep their compression and read as before. Servers without lz4 (before PostgreSQL 14,
        // or built without it) keep pglz.
        Migration(
            version: 4, name: "records compressed with lz4",
            sql: """
                DO $$
                BEGIN
                    IF current_setting('server_version_num')::integer >= 140000 AND EXISTS (
                        SELECT 1 FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals))
                    THEN
                        ALTER TABLE matterflow_record_batches ALTER COLUMN records SET COMPRESSION lz4;
                    END IF;
                END
                $$;
                """),
        // Answers to a run's questions given at submit (`matterflow submit --answer`), as `matterflow run --answer`
        // gives them: a fleet's workers have nobody to ask. A secret question's answer is `"<redacted>"` here and named
        // in `secret_answers`, as secret inputs are; its value waits in the secrets directory.
        Migration(
            version: 5, name: "answers given in advance",
            sql: """
                ALTER TABLE matterflow_runs ADD COLUMN answers jsonb NOT NULL DEFAULT '{}'::jsonb,
                    ADD COLUMN secret_answers text[] NOT NULL DEFAULT '{}';
                """),
        // Answers given after submit (`matterflow answer`), one row each, numbered in the order they commit, for the
        // worker running the run to read past the last one it has seen (`NOTIFY matterflow_answers` with the run's ID
        // tells it to). Each is also merged into `answers`, with its number in `answered_through`: a claim reads both
        // from the same row version, so the number it hands the worker covers exactly the answers it holds. An
        // answer's `answer_id` (chosen by the one giving it) makes a statement repeated after a lost reply add nothing.
        Migration(
            version: 6, name: "answers given while a run is queued or running",
            sql: """
                CREATE SEQUENCE matterflow_answer_numbers;
                CREATE TABLE matterflow_answers (
                    seq       bigint PRIMARY KEY,
                    answer_id text NOT NULL UNIQUE,
                    run_id    text NOT NULL REFERENCES matterflow_runs (run_id) ON DELETE CASCADE,
                    name      text NOT NULL,
                    value     jsonb NOT NULL,
                    secret    boolean NOT NULL,
                    given_at  timestamptz NOT NULL DEFAULT now()
                );
                CREATE INDEX matterflow_answers_run ON matterflow_answers (run_id, seq);
                ALTER TABLE matterflow_runs ADD COLUMN answered_through bigint NOT NULL DEFAULT 0;
                """),
        // A cancel asked for with `matterflow cancel`: a run that had not begun ends at once; one that has keeps the
        // time it was asked, which the worker running it is told of (`NOTIFY matterflow_cancels` with the run's ID),
        // and a worker that claims it later (handed back, or taken over) finds in its claim. And a digest of what
        // was submitted, so that `submit --run-id` sent again is known as the same submission after answers given
        // since changed `answers` (runs submitted before have none: sent again, they are refused as another's).
        Migration(
            version: 7, name: "cancels asked for, submissions known again",
            sql: """
                ALTER TABLE matterflow_runs ADD COLUMN cancel_requested_at timestamptz, ADD COLUMN submission text;
                """),
        // The claim that leased a run, and whether it took the run over (a run whose lease had run out) rather than
        // from the queue: a worker whose claim's reply was lost (the connection broke after the commit) asks for the
        // runs of that claim again with its next claim, and gets each as that claim took it, instead of leaving them
        // leased to it unseen until their lease runs out.
        Migration(
            version: 8, name: "claim tokens",
            sql: """
                ALTER TABLE matterflow_runs ADD COLUMN claim_token text, ADD COLUMN claim_takeover boolean;
                """),
        // How many times a worker found no hub for the run's structure: a run that has not begun fails after a few,
        // counted apart from its claims, which grow for other reasons too (hand-backs at a worker's stop, takeovers).
        Migration(
            version: 9, name: "hub failures",
            sql: """
                ALTER TABLE matterflow_runs ADD COLUMN hub_failures integer NOT NULL DEFAULT 0;
                """),
        // The content hash of the workflow tree submit validated: a worker runs a queued run only on those files, and
        // refuses it when they changed since (null for runs submitted before: not checked).
        Migration(
            version: 10, name: "the workflow as submitted",
            sql: """
                ALTER TABLE matterflow_runs ADD COLUMN workflow_hash text;
                """),
        // What `matterflow workers` tells: each worker's lease length (how long a silent one is given before it counts
        // as gone) and when it stopped cleanly; and the worker that ended each run, after it let go of the lease.
        Migration(
            version: 11, name: "worker lifecycle, the worker that ended a run",
            sql: """
                ALTER TABLE matterflow_workers ADD COLUMN lease_seconds float8, ADD COLUMN stopped_at timestamptz;
                ALTER TABLE matterflow_runs ADD COLUMN finished_by text;
                """),
        // Whether a run's workflow works in its structure's commissioning session (opens, uses or releases it): the
        // fleet runs those one at a time per structure, oldest first (null, for runs submitted before: as if it does).
        // The index serves the claim's look for another such run of the structure, queued before or running.
        Migration(
            version: 12, name: "runs working in a structure's session, one at a time",
            sql: """
                ALTER TABLE matterflow_runs ADD COLUMN works_in_session boolean;
                CREATE INDEX matterflow_runs_structure_open ON matterflow_runs (structure_id, submitted_at, run_id)
                    WHERE status IN ('queued', 'running');
                """),
        // The schema each worker was built for and its MatterFlow version: `store migrate` holds back while workers
        // built for an older schema run (they would claim on after it, not knowing what it changed), and
        // `matterflow workers` shows which version each runs, so a rolling upgrade can be seen through. And from
        // which schema on the clients may use the store each later migration leaves (`clients_from`).
        Migration(
            version: 13, name: "the schema and MatterFlow version each worker runs; clients each migration keeps",
            sql: """
                ALTER TABLE matterflow_workers ADD COLUMN schema_version integer, ADD COLUMN matterflow_version text;
                ALTER TABLE matterflow_migrations ADD COLUMN clients_from integer;
                """),
        // The runs that ended needing a person, found from an index: `store metrics` counts them at every scrape, and
        // `runs --status needsAttention` lists them, however many ended runs the store keeps. Clients of schema 13
        // neither read nor write it.
        Migration(
            version: 14, name: "an index of the runs that need attention",
            sql: """
                CREATE INDEX matterflow_runs_attention ON matterflow_runs (finished_at) WHERE status = 'needsAttention';
                """, clientsFrom: 13),
        // The queued runs whose workflow leaves its structure's session alone, in queue order: a claim takes them
        // from here, and each structure's turn from the structure's open runs, instead of walking every run queued
        // behind a structure's turn (docs/store.md, "What a claim costs"). Clients of schema 13 and 14 neither read
        // nor write it.
        Migration(
            version: 15, name: "an index of the queued runs that leave the session alone",
            sql: """
                CREATE INDEX matterflow_runs_queue_sessionless ON matterflow_runs (submitted_at, run_id)
                    WHERE status = 'queued' AND works_in_session IS FALSE;
                """, clientsFrom: 13),
        // The runs `store prune` removed, for a while: a secrets sweep removes the files of a run the store does not
        // have only when the run is here, so a worker pointed at another (or an empty) database, or a directory two
        // stores share, never takes files that are not this store's to take. Clients neither read nor write it.
        Migration(
            version: 16, name: "the runs prune removed, for the secrets sweep",
            sql: """
                CREATE TABLE matterflow_pruned_runs (
                    run_id    text PRIMARY KEY,
                    pruned_at timestamptz NOT NULL DEFAULT now()
                );
                """, clientsFrom: 13),
        // A lease renewal changes only `lease_until`: with no index on it, and room left in each page, the new row
        // version goes in the same page and no index gets an entry (a HOT update), so renewing every running run's
        // lease every few seconds no longer bloats the table's indexes. Expired leases are found among the running
        // runs, from the index of their workers, as few as the workers run at once. The fill factor holds for pages
        // written from now on (`VACUUM FULL` or `pg_repack` rewrite the others, with the workers stopped: "Maintenance").
        // An index a DBA dropped by hand is no reason to fail the migration.
        Migration(
            version: 17, name: "lease renewals that touch no index",
            sql: """
                DROP INDEX IF EXISTS matterflow_runs_leases;
                ALTER TABLE matterflow_runs SET (fillfactor = 70);
                """, clientsFrom: 13),
        // Looks that read a whole backlog. Two of every claim: whether a run of the structure working in the session
        // is running (the index of open runs holds the queued ones too, thousands on a busy structure, when none is),
        // and the queue's head when runs were queued at the same moment (one transaction queueing many: the queue
        // index's order stopped at the time, and the head was sorted from every queued run). And `runs`, whose newest
        // runs were sorted from every run the store keeps: the ended runs get an index by submission of their own (of
        // every run, it would draw the claim's looks for a structure's first queued run into walking the whole queue).
        // And `store prune --older-than`, which read every run to find the few that ended long enough ago.
        Migration(
            version: 18, name: "claims and listings that read no backlog",
            sql: """
                CREATE INDEX matterflow_runs_structure_running ON matterflow_runs (structure_id)
                    WHERE status = 'running' AND works_in_session IS NOT FALSE;
                CREATE INDEX matterflow_runs_queue_order ON matterflow_runs (submitted_at, run_id) WHERE status = 'queued';
                DROP INDEX IF EXISTS matterflow_runs_queue;
                CREATE INDEX matterflow_runs_ended ON matterflow_runs (submitted_at, run_id) WHERE status NOT IN ('queued', 'running');
                CREATE INDEX matterflow_runs_finished ON matterflow_runs (finished_at) WHERE finished_at IS NOT NULL;
                """, clientsFrom: 13),
        // When a run was last queued: set when a worker hands a run back at a checkpoint (NULL: when it was
        // submitted). The queue's age counts from it, so a run handed back after ten minutes of work is not at once
        // ten minutes old. A column without a default: no table rewrite. Two small indexes let a scrape find the
        // longest-waiting run that could start without reading the queue: the queued runs handed back, by when; and
        // the queued runs that work in the session, by structure (each structure's next, skipping the runs that leave
        // the session alone). Clients neither read nor write them.
        Migration(
            version: 19, name: "when a run was last queued",
            sql: """
                ALTER TABLE matterflow_runs ADD COLUMN queued_at timestamptz;
                CREATE INDEX matterflow_runs_requeued ON matterflow_runs (queued_at) WHERE status = 'queued' AND queued_at IS NOT NULL;
                CREATE INDEX matterflow_runs_session_queue ON matterflow_runs (structure_id, submitted_at, run_id)
                    WHERE status = 'queued' AND works_in_session IS NOT FALSE;
                """, clientsFrom: 13),
        // The claims a run had when `matterflow cancel` last asked for it to be settled again after it needed
        // attention (NULL: never): a takeover's recovery counts its claims from then (the asking counted as the
        // run's first claim), not from when the run began, so a run settled again is tried as often as the first time. `claims` itself only grows: a
        // worker's hold on a run is its claim's count. No default: no rewrite. Older clients reopen a run without
        // setting it, as before.
        Migration(
            version: 20, name: "the claims a run had when settled again",
            sql: """
                ALTER TABLE matterflow_runs ADD COLUMN claims_at_reopen integer;
                """, clientsFrom: 13),
        // A map state's checkpoints after its first list only the results of the elements that ended since the one
        // before (`newResults`, `earlier`), which the reader folds back. A worker of an older schema reads such a
        // record as malformed and could not settle the run: this migration stops it at its next heartbeat, as any
        // does. Clients only show records, and older ones show such a record with its problem.
        Migration(
            version: 21, name: "map checkpoints that list only new results",
            sql: """
                COMMENT ON TABLE matterflow_record_batches IS
                    'A run''s journal records, one row per group-commit batch. A map state''s checkpoint after its first lists only the results new since the one before (newResults, earlier): fold each onto the one before it.';
                """, clientsFrom: 13),
    ]

    /// The newest schema version: the one this MatterFlow needs.
    public static let latest = all.map(\.version).max() ?? 0

    /// The migration that added `matterflow_migrations.clients_from`.
    static let clientsColumn = 13
}

/// Creates and upgrades the run store's schema.
public struct StoreMigrator: Sendable {
    /// What a migration pass did.
    public struct Report: Sendable, Hashable {
        /// Versions this pass applied, in order (empty when the schema was current).
        public var applied: [Int]
        /// The schema's version afterwards.
        public var version: Int
    }

    /// The connection the migrator's commands run on.
    public let connection: PostgresConnection

    /// A migrator that works through `connection`.
    public init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// How long a migration waits for a table another session holds (a long transaction, a backup) before it gives
    /// up, by default: while it waits, every worker's next statement on that table waits behind it.
    public static let lockTimeoutSeconds = 10.0

    /// Applies every migration the database lacks. Safe to run any number of times, from any number of processes
    /// at once: each waits for the migration lock, then finds what the others applied.
    ///
    /// With migrations to apply, it holds back while workers built for an older schema run against the store
    /// (heartbeating, not stopped): they would go on claiming after it, by rules it may change. `whileWorkersRun`
    /// migrates all the same; workers built for a schema that records it see the change at their next heartbeat and
    /// stop claiming.
    /// - Throws: ``StoreError`` `storeUnavailable`, `migrationFailed` (nothing of a failed migration stays),
    ///   `olderWorkersRunning` (naming them), or `migrationBlocked` (a table stayed locked by another session for
    ///   `lockTimeoutSeconds`, by default ``lockTimeoutSeconds``; nothing was migrated).
    public func migrate(
        _ migrations: [StoreMigrations.Migration] = StoreMigrations.all, whileWorkersRun: Bool = false,
        lockTimeoutSeconds: Double = StoreMigrator.lockTimeoutSeconds
    ) throws(StoreError) -> Report {
        guard lockTimeoutSeconds.isFinite, (0.001...86_400).contains(lockTimeoutSeconds) else {
            throw StoreError(.invalidOptions, "the migration's lock timeout must be 0.001...86400 seconds, not \(lockTimeoutSeconds)")
        }
        let latest = migrations.map(\.version).max() ?? 0
        // A store with every migration recorded needs nothing: seen without the lock and without creating anything, so
        // that a role that may only use the tables (a worker's) can run this check as part of its start.
        if let present = try? recordedVersions(), migrations.allSatisfy({ present.contains($0.version) }) {
            let version = present.max() ?? 0
            guard version <= latest else { throw Self.newer(version, than: latest, target: connection.target) }
            return Report(applied: [], version: version)
        }
        var applied: [Int] = []
        var olderWorkers: [String] = []
        let version: Int
        do throws(PostgresError) {
            try connection.execute("BEGIN")
            // Other migrators are waited for without limit (a long migration is theirs to finish); only the tables'
            // locks are bounded, from here on.
            try connection.execute("SELECT pg_advisory_xact_lock($1::bigint)", [String(StoreMigrations.lockKey)])
            try connection.execute("SELECT set_config('lock_timeout', $1, true)", ["\(Int(lockTimeoutSeconds * 1000))ms"])
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS matterflow_migrations (
                    version    integer PRIMARY KEY,
                    name       text NOT NULL,
                    applied_at timestamptz NOT NULL DEFAULT now()
                )
                """)
            let rows = try connection.execute("SELECT version FROM matterflow_migrations")
            let present = Set(rows.rows.compactMap { $0[0].flatMap { Int($0) } })
            let pending = migrations.filter { !present.contains($0.version) }
            if !pending.isEmpty, !whileWorkersRun {
                olderWorkers = try self.olderWorkers(present: present, target: pending.map(\.version).max() ?? 0)
            }
            for migration in pending where olderWorkers.isEmpty {
                try connection.execute(migration.sql)
                if migration.version >= StoreMigrations.clientsColumn {
                    try connection.execute(
                        "INSERT INTO matterflow_migrations (version, name, clients_from) VALUES ($1::integer, $2, $3::integer)",
                        [String(migration.version), migration.name, migration.clientsFrom.map(String.init)])
                } else {
                    try connection.execute(
                        "INSERT INTO matterflow_migrations (version, name) VALUES ($1::integer, $2)",
                        [String(migration.version), migration.name])
                }
                applied.append(migration.version)
            }
            version = (present.union(applied)).max() ?? 0
            try connection.execute(olderWorkers.isEmpty ? "COMMIT" : "ROLLBACK")
        } catch {
            _ = try? connection.execute("ROLLBACK")
            if error.sqlState == "55P03" {
                throw StoreError(
                    .migrationBlocked,
                    "migrating the store's schema waited \(NumberRange.format(lockTimeoutSeconds)) s for a table another session holds "
                        + "(a long transaction or a backup; `SELECT pid, state, query_start, query FROM pg_stat_activity` on the "
                        + "server shows it), and stopped: nothing was migrated, and the workers' statements no longer wait "
                        + "behind it. Run it again once that session has ended")
            }
            throw StoreError.from(error, doing: "migrating the store's schema", code: .migrationFailed)
        }
        guard olderWorkers.isEmpty else {
            throw StoreError(
                .olderWorkersRunning,
                "workers built for an older schema run against the store \(connection.target): \(olderWorkers.joined(separator: ", ")); "
                    + "they would go on claiming runs after the migration without knowing what it changes. Stop them "
                    + "(SIGTERM hands their runs back), migrate, then start this version's workers; or pass "
                    + "--while-workers-run to migrate now")
        }
        // A schema past this MatterFlow's newest migration had nothing to apply (every version is present).
        guard version <= latest else { throw Self.newer(version, than: latest, target: connection.target) }
        return Report(applied: applied, version: version)
    }

    /// The workers heartbeating against the store (not stopped, heard from within their lease) built for a schema
    /// older than `target`, as `ID (host, pid N, MatterFlow V for schema S)`: what the columns the store has at
    /// `present` can tell (a worker registered before migration 13 says no schema: it is older).
    private func olderWorkers(present: Set<Int>, target: Int) throws(PostgresError) -> [String] {
        let exists = try connection.execute("SELECT to_regclass('matterflow_workers') IS NOT NULL")
        guard exists.rows.first?.first == "t" else { return [] }
        let lifecycle = present.contains(11)
        let versions = present.contains(13)
        let lease = lifecycle ? "coalesce(w.lease_seconds, \(WorkerOptions.defaultLeaseSeconds))" : "\(WorkerOptions.defaultLeaseSeconds)"
        let rows = try connection.execute(
            """
            SELECT w.worker_id, w.host, w.pid, \(versions ? "w.schema_version, w.matterflow_version" : "NULL::integer, NULL::text")
            FROM matterflow_workers w
            WHERE \(lifecycle ? "w.stopped_at IS NULL" : "true") AND w.heartbeat_at >= now() - make_interval(secs => \(lease))
              AND \(versions ? "coalesce(w.schema_version, 0)" : "0") < $1::integer
            ORDER BY w.worker_id
            """, [String(target)])
        return rows.rows.map { row in
            let built = row[3].map { "MatterFlow \(row[4] ?? "?") for schema \($0)" } ?? "a MatterFlow from before schema 13"
            return "\(row[0] ?? "?") (\(row[1] ?? "?"), pid \(row[2] ?? "?"), \(built))"
        }
    }

    /// The error for a store whose schema version is past the newest migration this MatterFlow has.
    static func newer(_ version: Int, than latest: Int, target: String) -> StoreError {
        StoreError(
            .schemaNewer,
            "the store \(target) has schema version \(version), newer than this MatterFlow knows (\(latest)); a newer MatterFlow "
                + "migrated it: run that version (this one might write what the newer schema does not expect)")
    }

    /// Whether a client of schema `latest` (`submit`, `runs`, ...) may use a store whose schema is newer: every
    /// migration past `latest` says it keeps clients of `latest` (`clients_from`).
    public func keepsClients(of latest: Int) throws(StoreError) -> Bool {
        do {
            let rows = try connection.execute(
                "SELECT coalesce(max(coalesce(clients_from, version)), 0) FROM matterflow_migrations WHERE version > $1::integer",
                [String(latest)])
            return (rows.rows.first?.first.flatMap { $0.flatMap { Int($0) } } ?? .max) <= latest
        } catch {
            throw StoreError.from(error, doing: "reading which clients the store keeps", code: .storeUnavailable)
        }
    }

    /// The versions `matterflow_migrations` records; empty when the table does not exist.
    private func recordedVersions() throws(PostgresError) -> Set<Int> {
        let exists = try connection.execute("SELECT to_regclass('matterflow_migrations') IS NOT NULL")
        guard exists.rows.first?.first == "t" else { return [] }
        let rows = try connection.execute("SELECT version FROM matterflow_migrations")
        return Set(rows.rows.compactMap { $0[0].flatMap { Int($0) } })
    }

    /// The schema's version: 0 for a database the store never touched.
    public func version() throws(StoreError) -> Int {
        do {
            return try recordedVersions().max() ?? 0
        } catch {
            throw StoreError.from(error, doing: "reading the store's schema version", code: .storeUnavailable)
        }
    }
}
