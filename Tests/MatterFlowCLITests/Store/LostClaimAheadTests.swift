import Foundation
import MatterFlow
@testable import MatterFlowCLI
import MatterFlowSimulator
@testable import MatterFlowStore
import Synchronization
import Testing

/// A worker held up past its lease (SIGSTOP, a paused VM) may find, once it goes on, that a run it had claimed ahead
/// was taken over and finished by another worker, its secrets removed. That is not this worker's failure.
@Suite(.serialized) struct LostClaimAheadTests {
    @Test("a run taken over while its worker was held up is left, said as such: not handed back, not blamed on --secrets, not counted as a failure")
    func takenOverMeanwhile() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        #expect(await matterflow(["submit", Repository.workflow("rooms"), "--store", conninfo, "--run-id", "run-0000000a0001"]).code == 0)
        #expect(await matterflow(["submit", Repository.workflow("rooms"), "--store", conninfo, "--run-id", "run-0000000a0002"]).code == 0)
        let claimed = try store.claim(by: "w1", limit: 2, leaseSeconds: 3)
        #expect(claimed.map(\.runID) == ["run-0000000a0001", "run-0000000a0002"])
        // The first was taken over and ended by w2 while w1 was held up; the second is still w1's.
        let lines = Mutex<[String]>([])
        let worker = try Self.heldUpWorker(store: store, afterEndingElsewhere: "run-0000000a0001") { line in lines.withLock { $0.append(line.text) } }
        let failure = (code: ErrorCode.failedPrecondition, cause: "secretsUnavailable", message: "no secrets file")
        for run in claimed {
            await worker.cannotStart(run, problem: "its secrets are unavailable here (no secrets file)", failure: failure)
        }
        let logged = lines.withLock { $0 }
        #expect(logged.count == 2, "\(logged)")
        #expect(logged.first?.contains("run run-0000000a0001 is no longer this worker's: another worker took it over") == true, "\(logged)")
        #expect(logged.last?.contains("run run-0000000a0002 is handed back") == true, "the run still held is handed back as before: \(logged)")
        let rows = try store.execute(
            "SELECT run_id, status, coalesce(worker_id, '-'), hub_failures FROM matterflow_runs ORDER BY run_id", doing: "test").rows
        #expect(rows.map { $0.map { $0 ?? "?" } } == [["run-0000000a0001", "succeeded", "-", "0"], ["run-0000000a0002", "running", "-", "1"]])
    }

    /// Worker w1, logging to `log`, once `runID` was taken over and ended by w2 while w1 was held up.
    static func heldUpWorker(
        store: PostgresRunStore, afterEndingElsewhere runID: String, log: @escaping @Sendable (WorkerLogLine) -> Void
    ) throws -> StoreWorker {
        try store.execute(
            """
            UPDATE matterflow_runs SET status = 'succeeded', worker_id = NULL, finished_by = 'w2', claims = claims + 1,
                finished_at = now() WHERE run_id = $1
            """, [runID], doing: "test")
        var options = WorkerOptions(workerID: "w1")
        options.log = log
        return StoreWorker(store: store, hubs: { _ in try SimulatedHub(home: .defaultHome) }, options: options)
    }

    @Test("a run with secrets taken over while its worker was held up is left with one line, not first warned about as missing its secrets")
    func takenOverWithSecrets() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        #expect(await matterflow(["submit", Repository.workflow("rooms"), "--store", conninfo, "--run-id", "run-0000000a0003"]).code == 0)
        var claimed = try #require(try store.claim(by: "w1", limit: 1, leaseSeconds: 3).first)
        // Its secret input was taken from the directory by the worker that took it over and ended it.
        claimed.secretInputs = ["setupCode"]
        let lines = Mutex<[String]>([])
        let worker = try Self.heldUpWorker(store: store, afterEndingElsewhere: "run-0000000a0003") { line in lines.withLock { $0.append(line.text) } }
        await worker.execute(claimed, idleness: RunIdleness())
        let logged = lines.withLock { $0 }
        #expect(logged.count == 1 && logged.first?.contains("run run-0000000a0003 is no longer this worker's") == true, "\(logged)")
        #expect(try store.run("run-0000000a0003")?.status == "succeeded")
    }
}
