import Foundation
import MatterFlowJournal
@testable import MatterFlowStore
import Testing

/// The secrets files of runs the store no longer has, removed by `store prune --secrets`.
extension PostgresStoreTests {
    @Test("a cancelled run pruned without --secrets leaves its files; the next prune --secrets removes them once untouched for ten minutes, and keeps a fresh file of a run not queued yet, digest.key and other names")
    func pruneRemovesSecretsOfRunsTheStoreNoLongerHas() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try PostgresStoreTests.secretsDirectory(in: directory)
        let run = "run-0000000f0001"
        #expect(await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--run-id", run]
                + commissionInputs()).code == 0)
        #expect(await matterflow(["cancel", run, "--store", conninfo]).code == 0)
        // As an epskc-share run leaves its output and what it showed.
        for kind in ["output", "shown", "answers.partial"] { try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(secrets)/\(run).\(kind)")) }
        let pruned = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "0s"])
        #expect(pruned.stdout.hasPrefix("removed 1 run"), "\(pruned.stdout)")
        #expect(pruned.stderr.contains("note: without --secrets, files these runs left in the secrets directory given to submit"), "\(pruned.stderr)")
        let left = ["\(run).answers.partial", "\(run).output", "\(run).secrets", "\(run).shown"]
        #expect(try PostgresStoreTests.runFiles(in: secrets) == left)

        // Written just now: a submit under way writes its file before it queues its run.
        let submitting = "run-0000000f0002"
        try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(secrets)/\(submitting).secrets"))
        let fresh = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "0s", "--secrets", secrets])
        #expect(fresh.stdout.hasPrefix("removed 0 runs (0 records)") && !fresh.stdout.contains("no longer has"), "\(fresh.stdout)")
        #expect(try PostgresStoreTests.runFiles(in: secrets) == left + ["\(submitting).secrets"])

        // An hour later (by the files' times): the pruned run's files go, the others stay.
        let hourAgo = Date(timeIntervalSinceNow: -3_600)
        for name in left + ["notes.txt"] {
            if name == "notes.txt" { try Data("{}".utf8).write(to: URL(fileURLWithPath: "\(secrets)/notes.txt")) }
            try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: "\(secrets)/\(name)")
        }
        try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: "\(secrets)/\(SecretDigestKey.fileName)")
        let dry = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "0s", "--secrets", secrets, "--dry-run"])
        #expect(dry.stdout.hasSuffix("would remove from \(secrets) the files of 1 run the store no longer has (\(run))\n"), "\(dry.stdout)")
        #expect(try PostgresStoreTests.runFiles(in: secrets).count == 6)
        let swept = await matterflow(["store", "prune", "--store", conninfo, "--older-than", "0s", "--secrets", secrets])
        #expect(swept.code == 0, "\(swept.stderr)")
        #expect(swept.stdout.hasSuffix("removed from \(secrets) the files of 1 run the store no longer has (\(run))\n"), "\(swept.stdout)")
        #expect(try PostgresStoreTests.runFiles(in: secrets) == ["notes.txt", "\(submitting).secrets"])
        #expect(FileManager.default.fileExists(atPath: "\(secrets)/\(SecretDigestKey.fileName)"))
    }
}
