import Foundation
import MatterFlow
import MatterFlowCLI
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
@testable import MatterFlowStore
import Testing

/// `matterflow cancel`: a fleet run cancelled from another process, before it began, while a worker runs it, and
/// while it waits in the queue where its worker handed it back.
@Suite("Cancelling fleet runs", .serialized, .enabled(if: TestPostgres.available, "no PostgreSQL server binary (install postgresql; .ci/run does)"))
struct FleetCancelTests {
    @Test("a queued run that has not begun ends cancelled at once: no worker runs it, its secrets files go with --secrets; asking again says the same; unknown and ended runs are refused")
    func cancelBeforeItBegan() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try PostgresStoreTests.secretsDirectory(in: directory)
        let runID = "run-0000000c0001"
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--run-id", runID] + commissionInputs())
        #expect(submitted.code == 0, "\(submitted.stderr)")

        let cancelled = await matterflow(["cancel", runID, "--store", conninfo, "--secrets", secrets])
        #expect(cancelled.code == 0, "\(cancelled.stderr)")
        #expect(cancelled.stdout == "cancelled\n")
        #expect(try PostgresStoreTests.runFiles(in: secrets).isEmpty)
        let store = try PostgresRunStore(conninfo: conninfo)
        let run = try #require(try store.runs().first { $0.runID == runID })
        #expect(run.status == "cancelled")
        #expect(run.error?.objectValue?["code"] == "cancelled")
        #expect(run.error?.objectValue?["cause"] == "runCancelled")
        #expect(run.error?.objectValue?["state"] == .null, "the shape of every stored error")
        #expect(try store.records(of: runID).isEmpty)
        // history says why a run with no records ended.
        let history = await matterflow(["history", runID, "--store", conninfo])
        #expect(history.stdout == "status: cancelled\nerror: runCancelled: cancelled before it began (matterflow cancel); it made no call\n", "\(history.stdout)")
        // watch says so too, as text and as JSON, though the run has no record to print.
        let watched = await matterflow(["watch", runID, "--store", conninfo])
        #expect(watched.code == 1)
        #expect(watched.stdout.hasPrefix("status: cancelled\nerror: runCancelled: cancelled before it began (matterflow cancel); it made no call\n"), "\(watched.stdout)")
        let watchedJSON = await matterflow(["watch", runID, "--store", conninfo, "--json"])
        #expect(watchedJSON.code == 1)
        let end = try JSONDocument.parse(watchedJSON.stdout, file: "stdout").value
        #expect(end["type"] == "status" && end["status"] == "cancelled", "\(watchedJSON.stdout)")
        #expect(end["error"]?["cause"] == "runCancelled", "\(watchedJSON.stdout)")
        // Asked again (its reply lost): the same answer.
        #expect(await matterflow(["cancel", runID, "--store", conninfo]).stdout == "cancelled\n")

        // A worker finds nothing to run.
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1"))
        #expect(try await worker.summary.finished.isEmpty)

        // Without --secrets, the files of a run that ends at once are named for removal.
        let other = "run-0000000c0002"
        #expect(await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--run-id", other] + commissionInputs()).code == 0)
        let noted = await matterflow(["cancel", other, "--store", conninfo])
        #expect(noted.code == 0)
        #expect(noted.stderr.contains("note: run \(other) has secrets files in the directory submit was given"), "\(noted.stderr)")
        #expect(!noted.stderr.contains(Payloads.specQR))
        // Cancelled again with --secrets, the files go: also when the first cancel's reply was lost.
        #expect(await matterflow(["cancel", other, "--store", conninfo, "--secrets", secrets]).stdout == "cancelled\n")
        #expect(try PostgresStoreTests.runFiles(in: secrets).isEmpty)

        let unknown = await matterflow(["cancel", "run-nope", "--store", conninfo])
        #expect(unknown.code == 2)
        #expect(unknown.stderr.hasPrefix("error[runNotFound]"), "\(unknown.stderr)")
        let ended = "run-0000000c0003"
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", ended]).code == 0)
        let finisher = TestWorker(store: store, options: WorkerOptions(workerID: "w2"))
        #expect(try await finisher.summary.finished == ["succeeded": 1])
        let late = await matterflow(["cancel", ended, "--store", conninfo])
        #expect(late.code == 2)
        #expect(late.stderr.hasPrefix("error[runEnded]: run \(ended) has ended (succeeded)"), "\(late.stderr)")
        #expect(await matterflow(["cancel", ended, "--store", directory.path]).code == 64)
    }

    @Test("a running run waiting for an answer after commissioning takes its cancel path when cancelled from elsewhere: the commissioning is cancelled on the hub and the session released, in the store too")
    func cancelWhileRunning() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try PostgresStoreTests.secretsDirectory(in: directory)
        let runID = "run-0000000c0004"
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device-interactive"), "--store", conninfo, "--secrets", secrets, "--run-id", runID,
             "--input", "onboardingPayload=\(Payloads.specQR)"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1", secrets: SecretInbox(directory: secrets)), virtualTime: true)
        #expect(try await FleetAnswerTests.waitForRecord("questionAsked", of: runID, conninfo: conninfo))
        #expect(try store.sessions().map(\.structure) == [HomeDescription.defaultHome.structure.id])

        let cancelling = await matterflow(["cancel", runID, "--store", conninfo])
        #expect(cancelling.code == 0, "\(cancelling.stderr)")
        #expect(cancelling.stdout == "cancelling\n")
        let summary = try await worker.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["cancelled": 1], "\(worker.lines)")
        #expect(worker.lines.contains("worker w1: run \(runID): cancel asked for; taking its cancel path"), "\(worker.lines)")
        let operations = try store.records(of: runID).filter { $0.type == "intent" }.compactMap { $0.payload["operation"]?.stringValue }
        #expect(operations.last == "cancelCommissioning", "\(operations)")
        let undone = try store.records(of: runID).filter { $0.type == "outcome" && $0.payload["operation"] == "cancelCommissioning" }
        #expect(undone.map { $0.payload["succeeded"] } == [true])
        #expect(try store.sessions().isEmpty)
        #expect(try PostgresStoreTests.runFiles(in: secrets).isEmpty)
        #expect(await matterflow(["cancel", runID, "--store", conninfo]).stdout == "cancelled\n")
    }

    @Test("a run handed back where it waited is queued again having begun: cancelled, the next worker takes its cancel path instead of resuming it")
    func cancelHandedBack() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(FleetAnswerTests.desk, to: "desk.json")
        let runID = "run-0000000c0005"
        #expect(await matterflow(["submit", workflow, "--store", conninfo, "--run-id", runID]).code == 0)
        let store = try PostgresRunStore(conninfo: conninfo)
        let first = TestWorker(store: store, options: WorkerOptions(workerID: "w1", leaseSeconds: 2, drainSeconds: 120))
        #expect(try await FleetAnswerTests.waitForRecord("questionAsked", of: runID, conninfo: conninfo))
        first.worker.stop()
        #expect(try await first.summary.handedBack == 1, "\(first.lines)")
        #expect(try store.status(of: runID) == "queued")

        let cancelling = await matterflow(["cancel", runID, "--store", conninfo])
        #expect(cancelling.stdout == "cancelling\n", "\(cancelling.stderr)")
        let listed = await matterflow(["runs", "--store", conninfo])
        #expect(listed.stdout.split(separator: "\n").contains { $0.hasPrefix(runID) && $0.contains(" queued ") && $0.hasSuffix("cancel asked for") }, "\(listed.stdout)")
        #expect(try store.runs().map(\.cancelRequested) == [true])
        let second = TestWorker(store: store, options: WorkerOptions(workerID: "w2"))
        let summary = try await second.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["cancelled": 1], "\(second.lines)")
        #expect(second.lines.contains("worker w2: taking the cancel path of run \(runID) (cancel asked for)"), "\(second.lines)")
        // Its question was not asked again: the run was not resumed.
        #expect(try store.records(of: runID).filter { $0.type == "questionAsked" }.count == 1)
        #expect(try store.runs().first?.notes.contains("cancel path taken: cancel asked for") == true)
        let history = await matterflow(["history", runID, "--store", conninfo])
        // Handed back, then cancelled as asked: no takeover, and said as information.
        #expect(history.stdout.hasSuffix("status: cancelled\nnote: cancel path taken: cancel asked for\n"), "\(history.stdout)")
        #expect(second.lines.contains { $0.hasPrefix("worker w2: run \(runID) cancelled") }, "\(second.lines)")
        #expect(try store.run(runID)?.status == "cancelled")
        #expect(try store.run("run-nope") == nil)
    }

    @Test("a run that ended cancelled, or ended otherwise after its cancel was asked for, is refused as ended; a stopping worker hands its runs no cancel")
    func cancelOfEndedRunsAndStoppingWorkers() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let workflow = try directory.write(FleetAnswerTests.desk, to: "desk.json")
        let store = try PostgresRunStore(conninfo: conninfo)
        for (runID, status, asked) in [("run-0000000c0006", "cancelled", false), ("run-0000000c0007", "failed", true)] {
            #expect(await matterflow(["submit", workflow, "--store", conninfo, "--run-id", runID]).code == 0)
            try store.execute(
                "UPDATE matterflow_runs SET status = $2, claims = 1, cancel_requested_at = CASE WHEN $3::boolean THEN now() END WHERE run_id = $1",
                [runID, status, asked ? "true" : "false"], doing: "test")
            let refused = await matterflow(["cancel", runID, "--store", conninfo])
            #expect(refused.code == 2)
            #expect(refused.stderr.hasPrefix("error[runEnded]: run \(runID) has ended (\(status))"), "\(refused.stderr)")
        }

        let relay = CancelRelay(store: store) { _, _, _ in }
        let run = try WorkflowEngine().start(
            try WorkflowEngine().load(text: FleetAnswerTests.desk, baseDirectory: "/"),
            on: try SimulatedHub(home: HomeDescription.defaultHome, clock: ManualClock()),
            options: RunOptions(structureID: "maple-street", clock: ManualClock(), runID: "run-8"))
        relay.hold(["run-8"])
        relay.attach(run, to: "run-8")
        relay.close()
        relay.announced(["run-8"])
        _ = try run.give("Hall", to: "room")
        _ = try run.give(true, to: "confirm")
        #expect(await run.result.outcome == .succeeded)
    }

    @Test("a cancel announced before the worker knows it holds the run, or before the run has a handle, is not lost; one announced while it runs cancels it at once")
    func cancelAnnouncedEarly() async throws {
        let store = try PostgresRunStore(conninfo: try TestPostgres.database())
        let relay = CancelRelay(store: store) { _, _, _ in }
        // The announcement and the claim's reply cross: the cancel waits for the claim.
        relay.announced(["run-1"])
        relay.hold(["run-1"])
        #expect(relay.takePending("run-1"))
        #expect(!relay.takePending("run-1"))

        let workflow = try WorkflowEngine().load(text: FleetAnswerTests.desk, baseDirectory: "/")
        func waitingRun(_ runID: String) throws -> RunHandle {
            let hub = try SimulatedHub(home: HomeDescription.defaultHome, clock: ManualClock())
            return try WorkflowEngine().start(workflow, on: hub, options: RunOptions(structureID: "maple-street", clock: ManualClock(), runID: runID))
        }
        // Held, announced, then started: cancelled as it is attached.
        relay.hold(["run-2"])
        relay.announced(["run-2"])
        let second = try waitingRun("run-2")
        relay.attach(second, to: "run-2")
        #expect(await second.result.outcome == .cancelled)
        // Attached, then announced.
        relay.hold(["run-3"])
        let third = try waitingRun("run-3")
        relay.attach(third, to: "run-3")
        relay.announced(["run-3"])
        #expect(await third.result.outcome == .cancelled)
    }
}
