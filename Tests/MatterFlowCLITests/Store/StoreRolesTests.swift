import Foundation
@testable import MatterFlowCLI
@testable import MatterFlowStore
import Testing

/// The roles docs/store.md, "Roles", recommends: the owner migrates; a worker role that may only use the tables runs
/// the fleet; a reader role monitors it.
@Suite(.serialized) struct StoreRolesTests {
    /// docs/store.md's grants, for roles `worker` and `reader`.
    static func grants(worker: String, reader: String) -> [String] {
        [
            "GRANT USAGE ON SCHEMA public TO \(worker), \(reader)",
            "GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO \(worker)",
            "GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO \(worker)",
            "GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(reader)",
        ]
    }

    @Test("a worker role with the documented grants runs the fleet and finds the schema current; a reader monitors it; what a role lacks is permissionDenied, naming the grants")
    func leastPrivilege() async throws {
        let conninfo = try TestPostgres.database()
        let owner = try PostgresConnection(conninfo)
        defer { owner.close() }
        let suffix = UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(10)
        let worker = "mf_worker_\(suffix)"
        let reader = "mf_reader_\(suffix)"
        try owner.execute("CREATE ROLE \(worker) LOGIN")
        try owner.execute("CREATE ROLE \(reader) LOGIN")
        defer {
            for role in [worker, reader] {
                _ = try? owner.execute("DROP OWNED BY \(role)")
                _ = try? owner.execute("DROP ROLE \(role)")
            }
        }
        for grant in Self.grants(worker: worker, reader: reader) { try owner.execute(grant) }
        let asWorker = conninfo.split(separator: " ").filter { !$0.hasPrefix("user=") }.joined(separator: " ") + " user=\(worker)"
        let asReader = conninfo.split(separator: " ").filter { !$0.hasPrefix("user=") }.joined(separator: " ") + " user=\(reader)"

        // A current schema needs no CREATE: the worker role may run `store migrate` as a check before it starts.
        let migrate = await matterflow(["store", "migrate", "--store", asWorker])
        #expect(migrate.code == 0 && migrate.stdout == "schema version \(StoreMigrations.latest) (already current)\n", "\(migrate.stderr)")
        let submitted = await matterflow(["submit", Repository.workflow("prepare"), "--store", asWorker, "--structure", "s1"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let ran = await matterflowVirtual(["worker", "--store", asWorker, "--exit-when-idle", "--worker-id", "w-least"])
        #expect(ran.code == 0 && ran.stderr.contains("succeeded"), "\(ran.stderr)")

        // The reader lists and scrapes, and may not watch (watching registers in matterflow_watchers).
        let runs = await matterflow(["runs", "--store", asReader])
        #expect(runs.code == 0 && runs.stdout.contains(" succeeded "), "\(runs.stderr)")
        let metrics = await matterflow(["store", "metrics", "--store", asReader])
        #expect(metrics.code == 0 && metrics.stdout.contains(#"matterflow_workers{state="stopped"} 1"#), "\(metrics.stderr)")
        let runID = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let watch = await matterflow(["watch", runID, "--store", asReader])
        #expect(watch.code == 2, "\(watch.stdout)")
        #expect(watch.stderr.hasPrefix("error[permissionDenied]: watching run \(runID): "), "\(watch.stderr)")
        #expect(watch.stderr.contains("docs/store.md, Roles"), "\(watch.stderr)")
        // A migration to apply needs the owner.
        let connection = try PostgresConnection(asWorker)
        defer { connection.close() }
        let next = StoreMigrations.Migration(version: StoreMigrations.latest + 1, name: "a later table", sql: "CREATE TABLE matterflow_later (a integer)")
        let refused = #expect(throws: StoreError.self) { _ = try StoreMigrator(connection: connection).migrate(StoreMigrations.all + [next]) }
        #expect(refused?.code == .permissionDenied, "\(String(describing: refused))")
        #expect(refused?.message.hasPrefix("migrating the store's schema: ") == true, "\(String(describing: refused))")
    }
}
