import Foundation
import MatterFlow
import MatterFlowJSON
@testable import MatterFlowStore
import Synchronization
import Testing

/// Upgrading a fleet: `store migrate` holds back while workers built for an older schema run (they would claim on
/// by rules the migration changes), a worker that sees the store migrated under it stops claiming and exits 2, and
/// `workers` shows which version each runs.
@Suite(.serialized) struct StoreUpgradeTests {
    /// A migration after this MatterFlow's newest, as the next version would bring.
    static let next = StoreMigrations.Migration(version: StoreMigrations.latest + 1, name: "a later migration", sql: "SELECT 1")

    static func heartbeating(_ workerID: String, schema: String?, in store: PostgresRunStore) throws {
        try store.registerWorker(workerID, host: "host-\(workerID)", pid: 7, leaseSeconds: 10)
        try store.execute(
            "UPDATE matterflow_workers SET schema_version = $2::integer, matterflow_version = CASE WHEN $2 IS NULL THEN NULL ELSE '0.0.9' END WHERE worker_id = $1",
            [workerID, schema], doing: "test")
    }

    @Test("store migrate holds back while a worker built for an older schema heartbeats, naming it; stopped and silent ones, and --while-workers-run, do not hold it")
    func olderWorkersHoldTheMigrationBack() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try Self.heartbeating("w-current", schema: String(StoreMigrations.latest), in: store)
        try Self.heartbeating("w-before-13", schema: nil, in: store)
        try Self.heartbeating("w-stopped", schema: nil, in: store)
        try store.markStopped("w-stopped")
        try Self.heartbeating("w-silent", schema: nil, in: store)
        try store.execute("UPDATE matterflow_workers SET heartbeat_at = now() - interval '1 minute' WHERE worker_id = 'w-silent'", doing: "test")

        let connection = try PostgresConnection(conninfo)
        defer { connection.close() }
        let migrator = StoreMigrator(connection: connection)
        do {
            _ = try migrator.migrate(StoreMigrations.all + [Self.next])
            Issue.record("migrated while older workers run")
        } catch {
            #expect(error.code == .olderWorkersRunning)
            // Built for the schema before the next migration, as every live worker here is.
            #expect(error.message.contains("w-before-13 (host-w-before-13, pid 7, a MatterFlow from before schema 13)"), "\(error.message)")
            #expect(error.message.contains("w-current (host-w-current, pid 7, MatterFlow 0.0.9 for schema \(StoreMigrations.latest))"), "\(error.message)")
            #expect(!error.message.contains("w-stopped") && !error.message.contains("w-silent"), "\(error.message)")
            #expect(error.message.contains("--while-workers-run"))
        }
        #expect(try migrator.version() == StoreMigrations.latest, "nothing was migrated")
        // Nothing to apply: nothing to hold back.
        #expect(try migrator.migrate().applied == [])
        let forced = try migrator.migrate(StoreMigrations.all + [Self.next], whileWorkersRun: true)
        #expect(forced.applied == [Self.next.version])
    }

    @Test("store migrate on a store of schema 12 holds back for the workers already running (they record no schema), and migrates with --while-workers-run")
    func fromTwelve() async throws {
        let conninfo = try TestPostgres.database(migrated: false)
        let connection = try PostgresConnection(conninfo)
        defer { connection.close() }
        _ = try StoreMigrator(connection: connection).migrate(Array(StoreMigrations.all.prefix(12)))
        try connection.execute(
            "INSERT INTO matterflow_workers (worker_id, host, pid, lease_seconds) VALUES ('old-1', 'factory-a', 41, 10)")
        let held = await matterflow(["store", "migrate", "--store", conninfo])
        #expect(held.code == 2)
        #expect(held.stderr.contains("error[olderWorkersRunning]: workers built for an older schema run against the store"), "\(held.stderr)")
        #expect(held.stderr.contains("old-1 (factory-a, pid 41, a MatterFlow from before schema 13)"), "\(held.stderr)")
        #expect(try StoreMigrator(connection: connection).version() == 12)
        let forced = await matterflow(["store", "migrate", "--store", conninfo, "--while-workers-run"])
        #expect(forced.code == 0, "\(forced.stderr)")
        #expect(forced.stdout == "schema version \(StoreMigrations.latest) (applied \((13...StoreMigrations.latest).map(String.init).joined(separator: ", ")))\n")
    }

    @Test("a worker that sees the store migrated under it stops claiming, hands its runs back and exits 2 saying so; workers shows each worker's version", .timeLimit(.minutes(1)))
    func workerSeesTheSchemaChange() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A run waiting for an answer, on the worker when the store is migrated.
        let runID = "run-0000000009a1"
        let desk = try directory.write(FleetAnswerTests.desk, to: "desk.json")
        #expect(await matterflow(["submit", desk, "--store", conninfo, "--run-id", runID]).code == 0)
        let worker = Task { await matterflowVirtual(["worker", "--store", conninfo, "--worker-id", "w-upgrade", "--lease", "1"]) }
        let store = try PostgresRunStore(conninfo: conninfo)
        #expect(try await FleetAnswerTests.waitForRecord("questionAsked", of: runID, conninfo: conninfo))
        let listed = await matterflow(["workers", "--store", conninfo]).stdout
        let row = try #require(listed.split(separator: "\n").first { $0.hasPrefix("w-upgrade") }, "\(listed)")
        #expect(row.hasSuffix(" \(MatterFlowVersion.current)/\(StoreMigrations.latest)"), "\(listed)")
        let json = try JSONDocument.parse(await matterflow(["workers", "--store", conninfo, "--json"]).stdout, file: "<out>").value
        #expect(json.arrayValue?.first?["schemaVersion"]?.intValue == StoreMigrations.latest)
        #expect(json.arrayValue?.first?["matterflowVersion"] == .string(MatterFlowVersion.current))

        try store.execute(
            "INSERT INTO matterflow_migrations (version, name) VALUES ($1::integer, 'a later migration')", [String(Self.next.version)], doing: "test")
        let ended = await worker.value
        #expect(ended.code == 2, "\(ended.stderr)")
        #expect(
            ended.stderr.contains(
                "error[schemaNewer]: the store postgres \(PostgresConnection.redacting(conninfo)) was migrated to schema version \(Self.next.version) while this worker ran"),
            "\(ended.stderr)")
        // Its run went back to the queue where it waited, for a worker of the new version.
        #expect(ended.stderr.contains("handed back 1 run(s) at a checkpoint: \(runID)"), "\(ended.stderr)")
        #expect(try store.status(of: runID) == "queued")
        #expect(try store.workers(includingStopped: true).first?.state == .stopped)
    }
}

extension StoreUpgradeTests {
    @Test("a migration that waits too long for a table another session holds gives up, migrating nothing, and says what to do", .timeLimit(.minutes(1)))
    func blockedMigration() async throws {
        let conninfo = try TestPostgres.database(migrated: false)
        let connection = try PostgresConnection(conninfo)
        defer { connection.close() }
        _ = try StoreMigrator(connection: connection).migrate(Array(StoreMigrations.all.prefix(12)))
        // A reader in a long transaction, as a backup is.
        let reader = try PostgresConnection(conninfo)
        defer { reader.close() }
        try reader.execute("BEGIN")
        try reader.execute("SELECT count(*) FROM matterflow_workers")
        do {
            _ = try StoreMigrator(connection: connection).migrate(lockTimeoutSeconds: 0.2)
            Issue.record("migrated past a held lock")
        } catch {
            #expect(error.code == .migrationBlocked)
            #expect(error.message.contains("waited 0.2 s for a table another session holds"), "\(error.message)")
        }
        #expect(try StoreMigrator(connection: connection).version() == 12, "nothing was migrated")
        try reader.execute("COMMIT")
        #expect(try StoreMigrator(connection: connection).migrate().applied == Array(13...StoreMigrations.latest))
    }
}

extension StoreUpgradeTests {
    @Test("clients keep using a store whose newer migrations say they keep them; workers never do; a migration that says nothing refuses them")
    func clientsAcrossAnUpgrade() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let latest = StoreMigrations.latest
        try store.execute(
            "INSERT INTO matterflow_migrations (version, name, clients_from) VALUES ($1::integer, 'keeps clients', $2::integer)",
            [String(latest + 1), String(latest)], doing: "test")
        let submitted = await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--structure", "s1"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let runID = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let runs = await matterflow(["runs", "--store", conninfo])
        #expect(runs.code == 0, "\(runs.stderr)")
        #expect(runs.stdout.split(separator: "\n").contains { $0.hasPrefix(runID + " ") && $0.contains(" queued ") }, "\(runs.stdout)")
        let history = await matterflow(["history", runID, "--store", conninfo])
        #expect(history.code == 0 && history.stdout.contains("status: queued"), "\(history.stdout)\(history.stderr)")
        let workers = await matterflow(["workers", "--store", conninfo])
        #expect(workers.code == 0, "\(workers.stderr)")
        let worker = await matterflowVirtual(["worker", "--store", conninfo, "--exit-when-idle"])
        #expect(worker.code == 2)
        #expect(worker.stderr.contains("error[schemaNewer]"), "\(worker.stderr)")
        let migrate = await matterflow(["store", "migrate", "--store", conninfo])
        #expect(migrate.code == 2 && migrate.stderr.contains("error[schemaNewer]"), "\(migrate.stderr)")

        try store.execute(
            "INSERT INTO matterflow_migrations (version, name) VALUES ($1::integer, 'keeps no older client')", [String(latest + 2)], doing: "test")
        let refused = await matterflow(["runs", "--store", conninfo])
        #expect(refused.code == 2)
        #expect(refused.stderr.contains("error[schemaNewer]"), "\(refused.stderr)")
    }
}

extension StoreUpgradeTests {
    @Test("a migrator waits for another one however long it takes: the lock timeout bounds the tables' locks only", .timeLimit(.minutes(1)))
    func migratorsWaitForEachOther() async throws {
        let conninfo = try TestPostgres.database(migrated: false)
        let other = try PostgresConnection(conninfo)
        defer { other.close() }
        try other.execute("SELECT pg_advisory_lock($1::bigint)", [String(StoreMigrations.lockKey)])
        // The migrator blocks its thread in libpq: a thread of its own, never one of the suite's pool.
        let result = Mutex<Result<StoreMigrator.Report, any Error>?>(nil)
        Thread.detachNewThread {
            let outcome: Result<StoreMigrator.Report, any Error>
            do {
                let connection = try PostgresConnection(conninfo)
                defer { connection.close() }
                outcome = .success(try StoreMigrator(connection: connection).migrate(lockTimeoutSeconds: 0.2))
            } catch {
                outcome = .failure(error)
            }
            result.withLock { $0 = outcome }
        }
        // The migrator waits for the lock; well past its lock timeout, the other one lets go.
        let key = String(StoreMigrations.lockKey)
        let released = await act(within: .seconds(30), after: .milliseconds(600), when: {
            let waiting = try? other.execute(
                """
                SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted
                  AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """)
            return waiting?.rows.first?.first == "1"
        }) { _ = try? other.execute("SELECT pg_advisory_unlock($1::bigint)", [key]) }
        #expect(released != nil, "the migrator never waited for the lock")
        let ended = await act(within: .seconds(30), when: { result.withLock { $0 != nil } }) {}
        #expect(ended != nil, "the migrator did not end")
        let report = try #require(result.withLock { $0 }).get()
        #expect(report.applied == Array(1...StoreMigrations.latest))
        #expect(throws: StoreError.self) { _ = try StoreMigrator(connection: other).migrate(lockTimeoutSeconds: .infinity) }
    }
}
