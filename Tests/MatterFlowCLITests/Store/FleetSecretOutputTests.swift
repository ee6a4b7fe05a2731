import Foundation
import MatterFlowJSON
import MatterFlowJournal
@testable import MatterFlowStore
import Testing

/// A fleet run whose output holds a secret: the store never keeps it.
extension PostgresStoreTests {
    @Test("epskc-share's ePSKc is redacted in the store's output and records, kept whole in the worker's secrets directory, and pruned with it")
    func secretOutputStaysOutOfTheStore() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try Self.secretsDirectory(in: directory)
        let runID = "run-00000e95c001"
        let submitted = await matterflow(
            ["submit", Repository.workflow("epskc-share"), "--store", conninfo, "--run-id", runID, "--structure", "home-br"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let worker = await matterflowVirtual([
            "worker", "--store", conninfo, "--home", Repository.root + "/Examples/border-router-home.json", "--state", directory.file("state"),
            "--secrets", secrets, "--exit-when-idle", "--worker-id", "w1",
        ])
        #expect(worker.stderr.contains("finished: succeeded 1"), "\(worker.stderr)")

        let store = try PostgresRunStore(conninfo: conninfo)
        let stored = try store.execute("SELECT output::text FROM matterflow_runs WHERE run_id = $1", [runID], doing: "test")
        let output = try JSONDocument.parse(try #require(stored.rows.first?.first ?? nil), file: "output").value
        #expect(output["epskc"] == "<redacted>", "\(JSONWriter.compact(output))")
        #expect(output["shared"] == true)
        let kept = try SecretInbox(directory: secrets).take(runID: runID, kind: .output)
        let key = try #require(kept["output"]?["epskc"]?.stringValue)
        #expect(!key.isEmpty && key.allSatisfy(\.isNumber), "\(key)")
        // The key was shown while valid: kept whole beside the output, and the store has no record of it.
        let shown = try SecretInbox(directory: secrets).take(runID: runID, kind: .shown)
        #expect(shown["shown"]?.arrayValue?.map { $0["epskc"] } == [.string(key)], "\(shown)")
        #expect(try !store.records(of: runID).contains { $0.type == "shown" })
        let everything = try store.execute(
            """
            SELECT coalesce((SELECT string_agg(records, '') FROM matterflow_record_batches), '')
                || coalesce((SELECT string_agg(coalesce(output::text, '') || coalesce(error::text, ''), '') FROM matterflow_runs), '')
            """, doing: "test")
        #expect(everything.rows.first?.first??.contains(key) == false)
        // The run's end record keeps the output as the store's column does, and runs --json shows it.
        #expect(try store.records(of: runID).last?.payload["output"]?["epskc"] == "<redacted>")
        let listed = await matterflow(["runs", "--store", conninfo, "--json"])
        #expect(try JSONDocument.parse(listed.stdout, file: "<out>").value.arrayValue?.first?["output"]?["epskc"] == "<redacted>", "\(listed.stdout)")
        let history = await matterflow(["history", runID, "--store", conninfo, "--json"])
        #expect(history.code == 0)
        #expect(!history.stdout.contains(key))

        let pruned = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "0s", "--secrets", secrets])
        #expect(pruned.stdout.hasPrefix("removed 1 run"), "\(pruned.stdout)")
        #expect(try PostgresStoreTests.runFiles(in: secrets).isEmpty)
    }
}
