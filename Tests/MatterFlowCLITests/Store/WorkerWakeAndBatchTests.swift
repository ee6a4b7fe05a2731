import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
@testable import MatterFlowStore
import Synchronization
import Testing

/// A worker's use of the store: the records of its concurrent runs share transactions (group commit awaited
/// without blocking a thread), and an idle worker wakes on `NOTIFY matterflow_queue` rather than polling.
extension PostgresStoreTests {
    @Test("group commit in a worker: 48 concurrent runs write their side-effect records in far fewer transactions")
    func workerGroupCommit() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let secrets = try Self.secretsDirectory(in: directory)
        for index in 0..<48 {
            let submitted = await matterflow(
                ["submit", Repository.workflow("commission-device"), "--store", conninfo, "--secrets", secrets,
                 "--structure", "batch-\(index)"] + commissionInputs(name: "Lamp \(index)"))
            try #require(submitted.code == 0, "\(submitted.stderr)")
        }
        let worker = await matterflowVirtual(
            ["worker", "--store", conninfo, "--secrets", secrets, "--exit-when-idle", "--concurrency", "48", "--worker-id", "batcher"])
        #expect(worker.code == 0, "\(worker.stderr)")
        #expect(worker.stderr.contains("finished: succeeded 48"), "\(worker.stderr)")

        let summary = try #require(worker.stderr.split(separator: "\n").last { $0.contains("records in") }, "\(worker.stderr)")
        let numbers = summary.split(separator: ";").last?.split(separator: " ").compactMap { Int($0) } ?? []
        try #require(numbers.count == 2, "no 'N records in M transactions' in: \(summary)")
        let (records, transactions) = (numbers[0], numbers[1])
        let store = try PostgresRunStore(conninfo: conninfo)
        let rows = try store.execute(
            "SELECT count(*) FROM matterflow_records WHERE type IN ('runStarted', 'intent', 'outcome', 'runFinished')", doing: "test")
        let boundaries = try #require(rows.rows.first?.first.flatMap { $0 }.flatMap { Int($0) })
        #expect(records >= boundaries)
        // A run waiting for its boundary record once held a pool thread, so a transaction released at most one
        // waiting run per core and there were at least boundaries / cores transactions. Suspended runs share them.
        let cores = max(ProcessInfo.processInfo.activeProcessorCount, 2)
        #expect(transactions * cores * 2 < boundaries, "\(records) records, \(boundaries) boundaries, \(transactions) transactions")
    }

    @Test("an idle worker claims a submitted run as soon as it is announced, long before its safety-net look")
    func idleWorkerWakesOnNotification() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let clock = VirtualClock()
        let waits = Mutex(0)
        let worker = StoreWorker(
            store: store,
            hubs: { structure in
                var home = HomeDescription.defaultHome
                home.structure.id = structure
                return try SimulatedHub(home: home, clock: clock)
            },
            options: WorkerOptions(
                workerID: "listener", pollMilliseconds: 120_000, clock: clock, idle: { waits.withLock { $0 += 1 } }))
        let working = Task { try await worker.run(host: "test", pid: 1) }
        let outcome: (idle: Bool, runID: String, claimed: Bool, elapsed: Duration)
        do {
            // The worker has looked once, found nothing and now waits; its safety net is 120 s away.
            let idle = await poll(timeout: .seconds(30), every: .milliseconds(10)) { waits.withLock { $0 } >= 1 }
            let started = ContinuousClock.now
            let submitted = await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--structure", "wake"])
            let runID = submitted.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            let claimed = await poll(timeout: .seconds(20), every: .milliseconds(10)) {
                (try? store.status(of: runID)) == "succeeded"
            }
            outcome = (idle, runID, claimed, ContinuousClock.now - started)
        }
        worker.stop()
        let summary = try await working.value
        #expect(outcome.idle, "the worker never went idle")
        #expect(outcome.claimed, "run \(outcome.runID) was not run within 20 s of its submission")
        #expect(outcome.elapsed < .seconds(20))
        #expect(summary.finished["succeeded"] == 1)
    }
}
