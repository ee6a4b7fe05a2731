import Foundation
import MatterFlow
import MatterFlowCLI
import MatterFlowJSON
import MatterFlowJournal
@testable import MatterFlowStore
import Testing

/// A worker removes the secrets files no worker removed: of runs cancelled before they began without `--secrets`,
/// of runs ended elsewhere while its directory is a copy, and of runs the store no longer has once untouched for ten
/// minutes; never a fresh file of a run the store does not have yet, nor a run's output.
@Suite("Sweeping the secrets of ended runs", .serialized, .enabled(if: TestPostgres.available, "no PostgreSQL server binary (install postgresql; .ci/run does)"))
struct FleetSecretsSweepTests {
    @Test("a worker starting removes the secret inputs and answers of a run cancelled before it began without --secrets, and every file of a run pruned from the store; it leaves a fresh file of a run not queued yet, an old one of a run this store never had (another store's), a run's output, digest.key and other names")
    func sweepAtStart() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try PostgresStoreTests.secretsDirectory(in: directory)
        let cancelled = "run-0000000e0001"
        #expect(await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--run-id", cancelled]
                + commissionInputs()).code == 0)
        let noted = await matterflow(["cancel", cancelled, "--store", conninfo])
        #expect(noted.stderr.contains("note: run \(cancelled) has secrets files"), "\(noted.stderr)")
        // An answer to a secret question given after submit, a run another store has (or a submit under way), and the
        // output an ended run left for its owner.
        try Data(#"{"code":"123456"}"#.utf8).write(to: URL(fileURLWithPath: secrets + "/\(cancelled).answers"))
        let unknown = "run-0000000e0009"
        try Data(#"{"onboardingPayload":"MT:Y.K9042C00KA0648G00"}"#.utf8).write(to: URL(fileURLWithPath: secrets + "/\(unknown).secrets"))
        try Data(#"{"output":{"epskc":"123456789"}}"#.utf8).write(to: URL(fileURLWithPath: secrets + "/\(cancelled).output"))
        #expect(try PostgresStoreTests.runFiles(in: secrets) == ["\(cancelled).answers", "\(cancelled).output", "\(cancelled).secrets", "\(unknown).secrets"])
        // A run pruned an hour ago without --secrets: every file it left goes, what a writer left half-written too.
        // A file of another name stays, however old.
        // A run of another store sharing the directory (or this worker pointed at another database): as old, it stays.
        let pruned = "run-0000000e0008"
        let foreign = "run-0000000e0007"
        let hourAgo = Date(timeIntervalSinceNow: -3_600)
        for name in ["\(pruned).secrets", "\(pruned).output", "\(pruned).shown", "\(pruned).answers.partial", "notes.txt", "\(foreign).secrets"] {
            try Data("{}".utf8).write(to: URL(fileURLWithPath: secrets + "/" + name))
            try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: secrets + "/" + name)
        }

        let store = try PostgresRunStore(conninfo: conninfo)
        try store.execute("INSERT INTO matterflow_pruned_runs (run_id) VALUES ($1)", [pruned], doing: "test: as store prune leaves it")
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1", secrets: SecretInbox(directory: secrets)))
        #expect(try await worker.summary.finished.isEmpty)
        #expect(try PostgresStoreTests.runFiles(in: secrets) == ["notes.txt", "\(cancelled).output", "\(foreign).secrets", "\(unknown).secrets"])
        #expect(FileManager.default.fileExists(atPath: secrets + "/" + SecretDigestKey.fileName))
        #expect(
            worker.lines.contains(
                "worker w1: removed from \(secrets) the secret inputs and answers of 1 run that had ended without a worker removing them (\(cancelled))"),
            "\(worker.lines)")
        #expect(
            worker.lines.contains(
                "worker w1: removed from \(secrets) the files of 1 run pruned from the store, untouched for 10 minutes (\(pruned))"),
            "\(worker.lines)")
        #expect(!worker.lines.joined().contains("MT:"))
    }

    @Test("a pruned run's old file that a submit sent again has just touched stays: the run is being queued again")
    func aResubmittedFileStays() throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try PostgresStoreTests.secretsDirectory(in: directory)
        let inbox = SecretInbox(directory: secrets)
        let store = try PostgresRunStore(conninfo: conninfo)
        let runID = "run-0000000e0011"
        let values: JSONObject = ["onboardingPayload": .string(Payloads.specQR)]
        #expect(try inbox.create(values, runID: runID))
        let file = secrets + "/\(runID).secrets"
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3_600)], ofItemAtPath: file)
        try store.execute("INSERT INTO matterflow_pruned_runs (run_id) VALUES ($1)", [runID], doing: "test: pruned before, its ID used again")
        // The submit sent again finds its own values and touches the file; the sweep then leaves it.
        #expect(try inbox.create(values, runID: runID) == false)
        let now = Date().timeIntervalSince1970
        #expect(try store.sweepSecrets(inbox, now: now).orphaned.isEmpty)
        #expect(FileManager.default.fileExists(atPath: file))
        // Untouched again for an hour: it goes.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -3_600)], ofItemAtPath: file)
        #expect(try store.sweepSecrets(inbox, now: now).orphaned == [runID])
        #expect(!FileManager.default.fileExists(atPath: file))
    }

    @Test("the secrets of open runs stay: one running on another worker, and one queued behind it for its structure's session")
    func openRunsKeepTheirSecrets() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try PostgresStoreTests.secretsDirectory(in: directory)
        let store = try PostgresRunStore(conninfo: conninfo)
        // Running on a live worker elsewhere (its lease runs for a minute), holding the structure's turn.
        let running = "run-0000000e0005"
        try TestPostgres.insertRunning([(running, "home-open", "elsewhere")], into: store)
        try store.execute("UPDATE matterflow_runs SET lease_until = now() + interval '60 seconds' WHERE run_id = $1", [running], doing: "test")
        try Data(#"{"onboardingPayload":"MT:Y.K9042C00KA0648G00"}"#.utf8).write(to: URL(fileURLWithPath: secrets + "/\(running).secrets"))
        let queued = "run-0000000e0006"
        #expect(await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--run-id", queued,
             "--structure", "home-open"] + commissionInputs()).code == 0)
        // And one that ended, so that the sweep is seen to have been made.
        let ended = "run-0000000e0007"
        #expect(await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--run-id", ended,
             "--structure", "home-ended"] + commissionInputs()).code == 0)
        #expect(await matterflow(["cancel", ended, "--store", conninfo]).code == 0)

        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1", secrets: SecretInbox(directory: secrets)))
        #expect(await worker.waitForLine(containing: "(\(ended))"), "\(worker.lines)")
        worker.worker.stop()
        _ = try await worker.summary
        #expect(try PostgresStoreTests.runFiles(in: secrets) == ["\(running).secrets", "\(queued).secrets"])
        #expect(try store.status(of: queued) == "queued")
    }

    @Test("a worker waiting for work removes the secrets a copied directory brought of a run that ended on another machine")
    func sweepWhileIdle() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let here = try PostgresStoreTests.secretsDirectory(in: directory, named: "here")
        let elsewhere = try PostgresStoreTests.secretsDirectory(in: directory, named: "elsewhere")
        // Ended on another machine (before this worker started, so that it never claimed it), whose directory this
        // one's copy brings up to date later.
        let ended = "run-0000000e0003"
        #expect(await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", elsewhere, "--run-id", ended,
             "--structure", "home-elsewhere"] + commissionInputs()).code == 0)
        #expect(await matterflow(["cancel", ended, "--store", conninfo, "--secrets", elsewhere]).stdout == "cancelled\n")
        // A run that waits for an answer keeps the worker alive, finding nothing more to claim.
        let desk = try directory.write(FleetAnswerTests.desk, to: "desk.json")
        let waiting = "run-0000000e0002"
        #expect(await matterflow(["submit", desk, "--store", conninfo, "--run-id", waiting]).code == 0)
        let store = try PostgresRunStore(conninfo: conninfo)
        var options = WorkerOptions(workerID: "w1", secrets: SecretInbox(directory: here))
        options.secretsSweepSeconds = 0
        let worker = TestWorker(store: store, options: options)
        #expect(try await FleetAnswerTests.waitForRecord("questionAsked", of: waiting, conninfo: conninfo))
        try Data(#"{"onboardingPayload":"MT:Y.K9042C00KA0648G00"}"#.utf8).write(to: URL(fileURLWithPath: here + "/\(ended).secrets"))
        // The worker's next sweep comes when it next finds nothing to claim: a queued run woken by NOTIFY.
        #expect(await matterflow(["submit", desk, "--store", conninfo, "--run-id", "run-0000000e0004", "--structure", "home-2"]).code == 0)
        #expect(await worker.waitForLine(containing: "of 1 run that had ended without a worker removing them (\(ended))"), "\(worker.lines)")
        #expect(try PostgresStoreTests.runFiles(in: here).isEmpty)
        worker.worker.stop()
        #expect(try await worker.summary.handedBack == 2, "\(worker.lines)")
    }
}
