import Foundation
import MatterFlow
import MatterFlowJSON
@testable import MatterFlowStore
import Testing

/// How a takeover's recovery counts a run's claims before it gives up: a run `matterflow cancel` asked to be settled
/// again after it needed attention counts from the asking, as a run counts from its start.
extension PostgresStoreTests {
    @Test("the first claim after a run needing attention is asked to be settled again counts 2, as a first takeover's does; claims itself only grows")
    func reopenedClaimsCountAsTheFirstTime() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let first = "run-000000000a01"
        let reopened = "run-000000000a02"
        try TestPostgres.insertRunning([(run: first, structure: "s1", worker: "gone"), (run: reopened, structure: "s2", worker: "gone")], into: store)
        // One started once and lost its worker; the other needed attention after eight claims.
        try store.execute(
            "UPDATE matterflow_runs SET claims = 1, lease_until = now() - interval '1 minute' WHERE run_id = $1", [first], doing: "test setup")
        try store.execute(
            "UPDATE matterflow_runs SET claims = 8, status = 'needsAttention', worker_id = NULL, finished_at = now() WHERE run_id = $1",
            [reopened], doing: "test setup")
        let asked = await matterflow(["cancel", reopened, "--store", conninfo])
        #expect(asked.code == 0 && asked.stdout == "cancelling\n", "\(asked.stdout)\(asked.stderr)")

        let claimed = try store.claim(by: "w1", limit: 8, leaseSeconds: 60)
        let firstClaim = try #require(claimed.first { $0.runID == first })
        #expect(firstClaim.takeover && firstClaim.claims == 2 && firstClaim.claimsSinceReopen == 2)
        let again = try #require(claimed.first { $0.runID == reopened })
        #expect(again.takeover && again.claims == 9, "a worker's hold is its claim's count, which only grows")
        #expect(again.claimsSinceReopen == 2, "counted from the asking, as from a start")
    }
}
