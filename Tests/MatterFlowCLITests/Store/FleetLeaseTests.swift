import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
@testable import MatterFlowStore
import Testing

/// Leases that run out under a worker still running the run, and runs handed back while a call is in flight.
extension PostgresStoreTests {
    @Test("a worker whose run's lease ran out while it still ran (the store out of reach) claims it again and goes on: the run is not settled as a dead worker's")
    func ownRunClaimedAgain() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try Self.secretsDirectory(in: directory)
        let runID = "run-00000e5e0001"
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device-interactive"), "--store", conninfo, "--secrets", secrets, "--run-id", runID,
             "--input", "onboardingPayload=\(Payloads.specQR)"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        // A lease of an hour: no heartbeat renews it during the test.
        let worker = TestWorker(
            store: store, options: WorkerOptions(workerID: "w1", leaseSeconds: 3600, secrets: SecretInbox(directory: secrets)), virtualTime: true)
        #expect(try await FleetAnswerTests.waitForRecord("questionAsked", of: runID, conninfo: conninfo))

        try store.execute("UPDATE matterflow_runs SET lease_until = now() - interval '1 second' WHERE run_id = $1", [runID], doing: "test")
        try store.execute("SELECT pg_notify('matterflow_queue', 'test')", doing: "test")
        #expect(await worker.waitForLine(containing: "claimed its own run(s) \(runID) again"), "\(worker.lines)")

        let answered = await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Kitchen", "--answer", "name=Lamp"])
        #expect(answered.code == 0, "\(answered.stderr)")
        let summary = try await worker.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 1], "\(worker.lines)")
        #expect(summary.takenOver == 0)
        let types = try store.records(of: runID).map(\.type)
        #expect(types.filter { $0 == "runFinished" }.count == 1)
        #expect(!types.contains("recoveryStarted"), "\(types)")
    }

    @Test("a run whose lease another worker took is fenced at the next heartbeat: no call, record or session release of it from this worker")
    func leaseLostToAnotherWorker() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try Self.secretsDirectory(in: directory)
        let runID = "run-00000e5e0002"
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device-interactive"), "--store", conninfo, "--secrets", secrets, "--run-id", runID,
             "--input", "onboardingPayload=\(Payloads.specQR)"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        let worker = TestWorker(
            store: store, options: WorkerOptions(workerID: "w1", leaseSeconds: 1, secrets: SecretInbox(directory: secrets)), virtualTime: true)
        #expect(try await FleetAnswerTests.waitForRecord("questionAsked", of: runID, conninfo: conninfo))
        let recorded = try store.records(of: runID).count

        // Another worker took it over (its lease ran out unseen).
        try store.execute("UPDATE matterflow_runs SET worker_id = 'w2', lease_until = now() + interval '1 hour' WHERE run_id = $1", [runID], doing: "test")
        #expect(await worker.waitForLine(containing: "lost the lease of run(s) \(runID) to another worker"), "\(worker.lines)")
        _ = await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Kitchen", "--answer", "name=Lamp"])
        #expect(await worker.waitForLine(containing: "run \(runID) was taken over by another worker", within: .seconds(10)), "\(worker.lines)")
        worker.worker.stop()
        let summary = try await worker.summary
        #expect(summary.finished.isEmpty, "\(worker.lines)")
        #expect(try store.records(of: runID).count == recorded)
        #expect(try store.sessions().map(\.runID) == [runID])
        let row = try store.execute("SELECT status, worker_id FROM matterflow_runs WHERE run_id = $1", [runID], doing: "test")
        #expect(row.rows == [["running", "w2"]])
    }

    @Test("a stopping worker hands a run with a call in flight back a lease later, not at once: the call is not taken for abandoned")
    func inFlightRunHandedBackALeaseLater() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try Self.secretsDirectory(in: directory)
        let runID = "run-00000e5e0003"
        let submitted = await matterflow(
            ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets, "--run-id", runID] + commissionInputs())
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo)
        // On the manual clock commissionDevice (a second on the built-in home) never ends: the run stays in that call,
        // its third.
        let worker = TestWorker(
            store: store, options: WorkerOptions(workerID: "w1", leaseSeconds: 30, secrets: SecretInbox(directory: secrets), drainSeconds: 0.2))
        #expect(try await FleetAnswerTests.waitForRecord("intent", of: runID, conninfo: conninfo, count: 3))
        worker.worker.stop()
        #expect(try await worker.summary.handedBack == 1, "\(worker.lines)")
        let row = try store.execute(
            "SELECT status, worker_id IS NULL, lease_until > now() + interval '20 seconds' FROM matterflow_runs WHERE run_id = $1",
            [runID], doing: "test")
        #expect(row.rows == [["running", "t", "t"]], "\(worker.lines)")
        #expect(try store.claim(by: "w2", limit: 1, leaseSeconds: 30).isEmpty)
    }
}
