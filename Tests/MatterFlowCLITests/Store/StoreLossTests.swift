import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
@testable import MatterFlowStore
import Synchronization
import Testing

/// A store that, reached again after an outage, lacks what the worker had committed: a failover to a standby that
/// lacked the last commits (asynchronous replication), or a restore.
extension PostgresStoreTests {
    /// Ends every connection to the test's database but the store's own: the worker reconnects, as to a server
    /// promoted in a failover.
    static func endWorkerConnections(_ store: PostgresRunStore) throws {
        try store.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()",
            doing: "test")
    }

    @Test("a worker that finds, on reconnecting, records it had committed missing from the store says so as an error, goes on with the run, and notes the gap in the run")
    func lostRecordsAreSaid() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-00000000105e"
        let (conninfo, store, worker) = try await Self.runWaitingForItsRoom(runID, leaseSeconds: 3600, in: directory)
        let held = try store.records(of: runID).count
        try store.execute("DELETE FROM matterflow_record_batches WHERE run_id = $1 AND first_seq > 3", [runID], doing: "test")
        let kept = try store.records(of: runID).count
        #expect(kept < held)
        try Self.endWorkerConnections(store)

        let answered = await matterflow(["answer", runID, "--store", conninfo, "--answer", "room=Kitchen", "--answer", "name=Lamp"])
        #expect(answered.code == 0, "\(answered.stderr)")
        let summary = try await worker.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 1], "\(worker.lines)")
        // Counted for a monitoring system: one run, and the records it lost.
        #expect(summary.storeLosses == 1 && summary.recordsLost == held - kept, "\(summary)")
        let text = WorkerMetrics(
            workerID: "w1", startedAt: 0, summary: summary, active: 0, waiting: 0, claimedAhead: 0, storeReachable: true, stopping: true,
            reportedAt: 0
        ).prometheusText
        #expect(text.contains(#"matterflow_worker_store_losses_total{worker="w1"} 1"#), "\(text)")
        #expect(text.contains(#"matterflow_worker_records_lost_total{worker="w1"} \#(held - kept)"#), "\(text)")
        #expect(worker.worker.state.withLock { $0.takeovers.until } == nil, "connections closed and made again at once hold no takeover")
        let said = worker.entries.filter { $0.message.contains("the store lost records") }
        #expect(said.count == 1, "\(worker.lines)")
        #expect(said.first?.level == .error && said.first?.runIDs == [runID])
        let stored = try #require(try store.run(runID))
        #expect(stored.notes.contains { $0.contains("the store lost records \(kept + 1)-\(held) ") }, "\(stored.notes)")
        let history = await matterflow(["history", runID, "--store", conninfo])
        #expect(history.code == 0, "\(history.stderr)")
        #expect(history.stdout.contains("#\(kept + 1)-#\(held)  (missing: not in the store"), "\(history.stdout)")
        #expect(history.stdout.contains("the store lost records"), "the note is shown with the run's end: \(history.stdout)")
    }

    /// A run submitted to a new database and started by worker w1 on a manual clock, once it waits 60 s in a delay
    /// after which it fetches the rooms: the run, its worker, the clock that ends the delay and the hub that counts
    /// the calls.
    /// - Parameter anyServer: The worker takes any server its conninfo names, read-only or not.
    static func runWaitingOnADelay(
        _ runID: String, in directory: TemporaryDirectory, anyServer: Bool = false
    ) async throws -> (conninfo: String, store: PostgresRunStore, worker: TestWorker, clock: ManualClock, hub: CallCounting) {
        let conninfo = try TestPostgres.database()
        let workflow = try directory.write(
            #"""
            {"workflow": "pause", "version": 1, "start": "wait", "states": {
              "wait": {"type": "delay", "seconds": 60, "next": "rooms"},
              "rooms": {"type": "action", "operation": "fetchRooms", "next": "done"},
              "done": {"type": "succeed"}
            }}
            """#, to: "pause.json")
        let submitted = await matterflow(["submit", workflow, "--store", conninfo, "--run-id", runID])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        let store = try PostgresRunStore(conninfo: conninfo + (anyServer ? " target_session_attrs=any" : ""))
        let clock = ManualClock()
        let hub = CallCounting(simulated: try SimulatedHub(home: HomeDescription.defaultHome, clock: clock))
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1"), hubs: { _ in hub }, clock: clock)
        #expect(try await FleetAnswerTests.waitForRecord("delayStarted", of: runID, conninfo: conninfo))
        return (conninfo, store, worker, clock, hub)
    }

    @Test("a worker that finds, on reconnecting, that the store no longer has its run says so as an error and makes no further call of it, instead of taking it for taken over")
    func lostRunIsSaid() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-00000000105f"
        let (_, store, worker, clock, hub) = try await Self.runWaitingOnADelay(runID, in: directory)
        try store.execute("DELETE FROM matterflow_record_batches WHERE run_id = $1", [runID], doing: "test")
        try store.execute("DELETE FROM matterflow_runs WHERE run_id = $1", [runID], doing: "test")
        try Self.endWorkerConnections(store)

        clock.advance(by: .seconds(60))
        #expect(await worker.waitForLine(containing: "cannot be recorded, and it makes no further call"), "\(worker.lines)")
        #expect(worker.lines.contains { $0.contains("run \(runID) on structure \(HomeDescription.defaultHome.structure.id) stopped here") }, "\(worker.lines)")
        worker.worker.stop()
        let summary = try await worker.summary
        #expect(summary.storeLosses == 1 && summary.recordsLost > 0, "\(summary)")
        #expect(worker.entries.contains { $0.level == .error && $0.message.contains("the store no longer has run \(runID)") }, "\(worker.lines)")
        #expect(!worker.lines.contains { $0.contains("taken over by another worker") }, "\(worker.lines)")
        #expect(hub.calls.isEmpty, "no call of a run the store no longer has")
    }
}
