import Foundation
@testable import MatterFlowCLI
@testable import MatterFlowStore
import Synchronization
import Testing

/// After the store was out of reach or failing, or a claim waited long behind a lock, every worker's leases may have
/// run out at once: live workers' runs must not be taken over (and cancelled) before they can renew them.
@Suite(.serialized) struct TakeoverHoldTests {
    @Test("trouble of half a lease or more, or the store out of reach however briefly, holds takeovers for a lease from when the store answers again; other brief trouble none; none while trouble lasts")
    func hold() {
        let start = ContinuousClock.now
        var said = 0
        // A 30 s outage, lease 4: no takeover during it, then none for 4 s after the store answered, said once.
        var outage = TakeoverHold(lease: 4)
        outage.troubleSeen(at: start)
        outage.troubleSeen(at: start + .seconds(20))  // more trouble does not move its start
        let during = outage.mayTakeOver(at: start + .seconds(25)) { said += 1 }
        outage.answered(at: start + .seconds(30))
        let after = [30.5, 33.9, 34].map { outage.mayTakeOver(at: start + .seconds($0)) { said += 1 } }
        #expect(!during && after == [false, false, true] && said == 1)
        #expect(outage.until == nil)
        // A statement that failed once (under half a lease): the next claim after the store answered may take over.
        var brief = TakeoverHold(lease: 4)
        brief.troubleSeen(at: start)
        let whileBrief = brief.mayTakeOver(at: start + .seconds(1))
        brief.answered(at: start + .seconds(1.9))
        #expect(!whileBrief && brief.mayTakeOver(at: start + .seconds(2)) && brief.until == nil)
        // The store out of reach for a second (a failover to a standby that may lack the last heartbeats): a hold.
        var failover = TakeoverHold(lease: 4)
        failover.troubleSeen(at: start, outage: true)
        failover.troubleSeen(at: start + .milliseconds(100))
        failover.answered(at: start + .seconds(1))
        let held = failover.mayTakeOver(at: start + .seconds(2))
        let ended = failover.mayTakeOver(at: start + .seconds(5))
        #expect(!held && ended)
        // The outage is over with its trouble: brief trouble after it holds nothing.
        failover.troubleSeen(at: start + .seconds(6))
        failover.answered(at: start + .seconds(6.5))
        let afterBrief = failover.mayTakeOver(at: start + .seconds(7))
        #expect(afterBrief)
        // Brief outages that keep coming back (a server restarting in a loop) hold takeovers for two leases or so from
        // the first, not for as long as they come back.
        var restarting = TakeoverHold(lease: 4)
        var allowedAt: [Double] = []
        for second in stride(from: 0.0, to: 60, by: 3) {
            restarting.troubleSeen(at: start + .seconds(second), outage: true)
            restarting.answered(at: start + .seconds(second + 1))
            if restarting.mayTakeOver(at: start + .seconds(second + 2)) { allowedAt.append(second + 2) }
        }
        #expect(allowedAt.first.map { $0 <= 14 } == true && allowedAt.count >= 15, "\(allowedAt)")
        // Trouble that keeps coming back briefly never holds takeovers past its own moments.
        var flapping = TakeoverHold(lease: 4)
        var allowed = 0
        for second in stride(from: 0.0, to: 60, by: 3) {
            flapping.troubleSeen(at: start + .seconds(second))
            flapping.answered(at: start + .seconds(second + 1))
            if flapping.mayTakeOver(at: start + .seconds(second + 2)) { allowed += 1 }
        }
        #expect(allowed == 20)
        // Without trouble, no hold; a lease out of range makes none.
        var calm = TakeoverHold(lease: .nan)
        #expect(calm.mayTakeOver(at: start) && calm.length == .zero)
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
        // A run handed back has no worker to protect: it is taken whatever the claim says.
        try store.execute("UPDATE matterflow_runs SET worker_id = NULL", doing: "test")
        #expect(try store.claim(by: "w1", limit: 8, leaseSeconds: 10, takesOver: false).map(\.runID) == ["run-00000000a0e1"])
        try store.execute("UPDATE matterflow_runs SET worker_id = 'w-live', lease_until = now() - interval '1 second'", doing: "test")
        #expect(try store.claim(by: "w1", limit: 8, leaseSeconds: 10).map(\.runID) == ["run-00000000a0e1"])
    }

    @Test(
        "a claim that waited more than half a lease behind a table lock takes nothing over: the live worker renews first",
        arguments: [false, true])
    func claimAfterALongLockWait(onANewConnection: Bool) async throws {
        let (existing, conninfo) = try Self.expiredRun()
        // A worker's claim statement is prepared by its first claim, in a transaction before the claim's own: a new
        // worker's claim waits there; one that claimed before waits when it is run.
        let store = onANewConnection ? try PostgresRunStore(conninfo: conninfo) : existing
        if !onANewConnection { #expect(try store.claim(by: "w1", limit: 8, leaseSeconds: 0.4, takesOver: false).isEmpty) }
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

extension TakeoverHoldTests {
    @Test("a claim or heartbeat that came back after half a lease or more holds takeovers as a failed one does; a quick one does not")
    func slowStatementHolds() throws {
        let store = try PostgresRunStore(conninfo: try TestPostgres.database())
        let worker = StoreWorker(
            store: store, hubs: { _ in throw StoreError(.storeUnavailable, "no hub in this test") },
            options: WorkerOptions(workerID: "w-slow", leaseSeconds: 10))
        worker.answered(after: .now - .milliseconds(100))
        #expect(worker.state.withLock { $0.takeovers.mayTakeOver(at: .now) })
        // Six seconds behind a lock: other workers could not renew their leases meanwhile either.
        worker.answered(after: .now - .seconds(6))
        #expect(!worker.state.withLock { $0.takeovers.mayTakeOver(at: .now) })
        #expect(worker.state.withLock { $0.takeovers.mayTakeOver(at: .now + .seconds(11)) })
    }
}
