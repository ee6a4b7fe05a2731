import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
@testable import MatterFlowStore
import Testing

/// The store commands that ride the group committer's transactions: the fleet's session lock and a run's final
/// status, answered as the store's own commands would.
extension PostgresStoreTests {
    @Test("session takes in the committer's batches: of runs racing for one structure exactly one gets it, the others learn who")
    func batchedSessionTakes() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        for index in 0..<8 {
            try store.execute(
                """
                INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, worker_id)
                VALUES ($1, 'w', '/w.json', $2, '{}', 'running', 'me')
                """, ["run-\(index)", index < 6 ? "home-a" : "home-\(index)"], doing: "test setup")
        }
        let committer = GroupCommitter(conninfo: conninfo, workerID: "me")
        defer { committer.shutdown() }
        // Six runs take home-a at once (their takes reach the committer together); two take structures of their own.
        let answers = try await withThrowingTaskGroup(of: (String, StoreCommandAnswer).self) { group in
            for index in 0..<8 {
                group.addTask {
                    let runID = "run-\(index)"
                    let structure = index < 6 ? "home-a" : "home-\(index)"
                    return (runID, try await committer.perform(.acquireSession(structure: structure, runID: runID), runID: runID))
                }
            }
            var answers: [String: StoreCommandAnswer] = [:]
            for try await (runID, answer) in group { answers[runID] = answer }
            return answers
        }
        let winners = (0..<6).map { "run-\($0)" }.filter { answers[$0] == .acquired }
        #expect(winners.count == 1, "\(answers)")
        let winner = try #require(winners.first)
        for index in 0..<6 where "run-\(index)" != winner {
            #expect(answers["run-\(index)"] == .busy(holder: winner))
        }
        #expect(answers["run-6"] == .acquired)
        #expect(answers["run-7"] == .acquired)
        let held = try store.sessions()
        #expect(held.map(\.structure) == ["home-6", "home-7", "home-a"])
        #expect(held.first { $0.structure == "home-a" }?.runID == winner)

        // The winner gives the session up; a loser then gets it in a later batch.
        #expect(try await committer.perform(.releaseSession(structure: "home-a", runID: winner), runID: winner) == .released)
        let loser = winner == "run-0" ? "run-1" : "run-0"
        #expect(try await committer.perform(.acquireSession(structure: "home-a", runID: loser), runID: loser) == .acquired)
    }

    @Test("a final status in the committer's batch keeps output, error and notes; released sessions go; a run not leased is refused")
    func batchedFinalStatus() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        for (runID, worker) in [("run-ok", "me"), ("run-failed", "me"), ("run-theirs", "someone-else")] {
            try store.execute(
                """
                INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, worker_id)
                VALUES ($1, 'w', '/w.json', $1, '{}', 'running', $2)
                """, [runID, worker], doing: "test setup")
            _ = try store.acquireSession(structure: runID, runID: runID)
        }
        let committer = GroupCommitter(conninfo: conninfo, workerID: "me")
        defer { committer.shutdown() }
        let succeeded = RunConclusion(
            runID: "run-ok", status: "succeeded", output: ["deviceIDs": ["device-1"]], error: nil, recovered: false, notes: [])
        let failed = RunConclusion(
            runID: "run-failed", status: "failed", output: nil, error: ["code": "sessionBusy", "message": "busy"], recovered: true,
            notes: ["settled after takeover", "a \"quoted\" note"])
        let theirs = RunConclusion(runID: "run-theirs", status: "succeeded", output: nil, error: nil, recovered: false, notes: [])
        // A succeeded run keeps its session (release nil), as a workflow that ends holding it on purpose does.
        #expect(try await committer.perform(.finish(succeeded, release: nil), runID: "run-ok") == .finished(recorded: true))
        #expect(try await committer.perform(.finish(failed, release: "run-failed"), runID: "run-failed") == .finished(recorded: true))
        #expect(try await committer.perform(.finish(theirs, release: nil), runID: "run-theirs") == .finished(recorded: false))

        let rows = try store.execute(
            """
            SELECT run_id, status, output::text, error IS NULL, error->>'code', recovered, notes, worker_id IS NULL
            FROM matterflow_runs ORDER BY run_id
            """, doing: "reading the runs")
        let byRun = Dictionary(uniqueKeysWithValues: rows.rows.map { ($0[0] ?? "", $0) })
        #expect(byRun["run-ok"]?[1] == "succeeded")
        #expect(byRun["run-ok"]?[2] == #"{"deviceIDs": ["device-1"]}"#)
        #expect(byRun["run-ok"]?[3] == "t")
        #expect(byRun["run-ok"]?[7] == "t")
        #expect(byRun["run-failed"]?[1] == "failed")
        #expect(byRun["run-failed"]?[2] == nil)
        #expect(byRun["run-failed"]?[4] == "sessionBusy")
        #expect(byRun["run-failed"]?[5] == "t")
        #expect(PostgresRunStore.textArray(byRun["run-failed"]?[6]) == ["settled after takeover", "a \"quoted\" note"])
        #expect(byRun["run-theirs"]?[1] == "running")
        #expect(try store.sessions().map(\.structure) == ["run-ok", "run-theirs"])
    }
}
