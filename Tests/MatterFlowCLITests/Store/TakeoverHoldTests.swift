import Foundation
@testable import MatterFlowCLI
@testable import MatterFlowStore
import Testing

/// After the store was out of reach or failing, or a claim waited long behind a lock, every worker's leases may have
/// run out at once: live workers' runs must not be taken over (and cancelled) before they can renew them.
@Suite(.serialized) struct TakeoverHoldTests {
    @Test("after trouble, the next claim starts a hold of one lease in which nothing is taken over; without trouble, no hold")
    func hold() {
        var hold = TakeoverHold(lease: 10)
        let start = ContinuousClock.now
        var said = 0
        var answers: [Bool] = []
        answers.append(hold.mayTakeOver(at: start))
        hold.troubleSeen()
        answers.append(hold.mayTakeOver(at: start + .seconds(1)) { said += 1 })
        answers.append(hold.mayTakeOver(at: start + .seconds(10.9)))
        // More trouble within the hold pushes its end, said once.
        hold.troubleSeen()
        answers.append(hold.mayTakeOver(at: start + .seconds(5)) { said += 1 })
        answers.append(hold.mayTakeOver(at: start + .seconds(14.9)))
        answers.append(hold.mayTakeOver(at: start + .seconds(15)))
        let ended = hold.until == nil
        answers.append(hold.mayTakeOver(at: start + .seconds(16)))
        #expect(answers == [true, false, false, false, false, true, true])
        #expect(ended && said == 1)

        // The store reachable again starts a hold of a lease from then, whenever the next claim comes (a busy worker
        // claims nothing during an outage: a hold started by its last failed claim would be over).
        var back = TakeoverHold(lease: 4)
        back.troubleSeen()
        let early = back.mayTakeOver(at: start)  // a claim during the outage
        back.reachableAgain(at: start + .seconds(30))
        var told = 0
        let afterOutage = [
            back.mayTakeOver(at: start + .seconds(30.5)) { told += 1 }, back.mayTakeOver(at: start + .seconds(33.9)) { told += 1 },
            back.mayTakeOver(at: start + .seconds(34)) { told += 1 },
        ]
        #expect(!early && afterOutage == [false, false, true] && told == 1)
    }

    /// A run of a worker whose lease ran out, in a fresh store.
    static func expiredRun() throws -> (PostgresRunStore, String) {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try store.execute(
            """
            INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, worker_id, lease_until, claims, started_at)
            VALUES ('run-00000000a0e1', 'rooms', '/w.json', 'home-1', '{}', 'running', 'w-live', now() - interval '1 second', 1, now())
            """, doing: "test setup")
        return (store, conninfo)
    }

    @Test("a claim told not to take over takes no run whose lease ran out; the next one that may, does")
    func claimWithoutTakeovers() throws {
        let (store, _) = try Self.expiredRun()
        #expect(try store.claim(by: "w1", limit: 8, leaseSeconds: 10, takesOver: false).isEmpty)
        #expect(try store.claim(by: "w1", limit: 8, leaseSeconds: 10).map(\.runID) == ["run-00000000a0e1"])
    }

    @Test("a claim that waited more than half a lease behind a table lock takes nothing over: the live worker renews first")
    func claimAfterALongLockWait() async throws {
        let (store, conninfo) = try Self.expiredRun()
        // A worker's claim statement is prepared by its first claim: this one waits when it is run, not prepared.
        #expect(try store.claim(by: "w1", limit: 8, leaseSeconds: 0.4, takesOver: false).isEmpty)
        let locker = try PostgresConnection(conninfo)
        defer { locker.close() }
        try locker.execute("BEGIN")
        try locker.execute("LOCK TABLE matterflow_runs IN ACCESS EXCLUSIVE MODE")
        let claim = Task.detached { try store.claim(by: "w1", limit: 8, leaseSeconds: 0.4) }
        // The claim waits for the lock (seen in pg_locks), then longer than half its lease.
        let watcher = try PostgresConnection(conninfo)
        defer { watcher.close() }
        let deadline = ContinuousClock.now + .seconds(30)
        while try watcher.execute("SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = 'matterflow_runs'::regclass").rows.first?.first == "0" {
            try #require(ContinuousClock.now < deadline, "the claim never waited for the lock")
            try await Task.sleep(for: .milliseconds(10))
        }
        try await Task.sleep(for: .milliseconds(300))
        try locker.execute("COMMIT")
        #expect(try await claim.value.isEmpty, "the run of the worker whose lease ran out during the wait is not taken over")
        #expect(try store.run("run-00000000a0e1")?.workerID == "w-live")
        // A claim that did not wait may take it over.
        #expect(try store.claim(by: "w1", limit: 8, leaseSeconds: 0.4).map(\.runID) == ["run-00000000a0e1"])
    }
}
