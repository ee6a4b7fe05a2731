import Foundation
import MatterFlowJSON
@testable import MatterFlowStore
import Testing

/// `workers --check` as a monitoring probe: it answers within a bound, and says what it sees.
@Suite(.serialized, .enabled(if: TestPostgres.available, "no PostgreSQL server binary (install postgresql; .ci/run does)"))
struct FleetProbeTests {
    @Test("workers --check while another session holds matterflow_runs locked: a problem within seconds naming the lock and how to find it, not a wait for the lock")
    func probeWithALockedTable() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try store.registerWorker("w-live", host: "host-a", pid: 11, leaseSeconds: 3600)
        let holder = try PostgresConnection(conninfo)
        defer { holder.close() }
        // As VACUUM FULL or CLUSTER would; the server ends the holder after 30 s, so a probe that waits for the lock
        // fails this test rather than hanging it.
        try holder.execute("SET idle_in_transaction_session_timeout = '30s'")
        try holder.execute("BEGIN")
        try holder.execute("LOCK TABLE matterflow_runs IN ACCESS EXCLUSIVE MODE")
        let started = ContinuousClock.now
        let probe = await matterflow(["workers", "--store", conninfo, "--check"])
        let waited = ContinuousClock.now - started
        let json = await matterflow(["workers", "--store", conninfo, "--check", "--json"])
        let listing = await matterflow(["workers", "--store", conninfo])
        // A scrape answers too, rather than waiting with every scrape after it, each holding a connection.
        let scrapeStarted = ContinuousClock.now
        let scrape = await matterflow(["store", "metrics", "--store", conninfo])
        let scrapeWaited = ContinuousClock.now - scrapeStarted
        try holder.execute("ROLLBACK")
        #expect(scrapeWaited < .seconds(20) && scrape.code == 2, "the scrape waited \(scrapeWaited): \(scrape.stderr)")
        #expect(scrape.stderr.hasPrefix("error[storeLocked]: reading the store's metrics: the store did not answer"), "\(scrape.stderr)")
        #expect(waited < .seconds(20), "the probe waited \(waited)")
        #expect(probe.code == 1, "\(probe.stdout)\(probe.stderr)")
        let lines = probe.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "1 problem: the store did not answer", "\(probe.stdout)")
        #expect(lines.dropFirst().first?.hasPrefix("problem: the store did not answer within 5 s: another session holds a lock on its tables") == true, "\(probe.stdout)")
        #expect(probe.stdout.contains("pg_locks") && probe.stdout.contains("pg_stat_activity"), "\(probe.stdout)")
        let report = try JSONDocument.parse(json.stdout, file: "<out>").value
        #expect(json.code == 1 && report["healthy"] == false && report["running"] == .null, "\(json.stdout)")
        #expect(listing.code == 2 && listing.stderr.hasPrefix("error[storeLocked]: listing the workers: the store did not answer"), "\(listing.stderr)")
        // Once the lock is gone, the probe sees the worker again.
        let after = await matterflow(["workers", "--store", conninfo, "--check"])
        #expect(after.code == 0 && after.stdout == "ok: 1 worker running, holding 0 runs\n", "\(after.stdout)")
    }

    @Test("workers --check --json with a store that cannot be read still answers in JSON, unhealthy, with why; exit 2 as without --json")
    func probeOfAnUnreachableStoreInJSON() async throws {
        let unreachable = "host=/nonexistent-socket-dir dbname=x"
        let json = await matterflow(["workers", "--store", unreachable, "--check", "--json"])
        #expect(json.code == 2, "\(json.stderr)")
        #expect(json.stderr.hasPrefix("error[storeUnavailable]: "), "\(json.stderr)")
        let report = try JSONDocument.parse(json.stdout, file: "<out>").value
        #expect(report["healthy"] == false && report["running"] == .null && report["held"] == .null, "\(json.stdout)")
        let problems = report["problems"]?.arrayValue ?? []
        #expect(problems.count == 1 && problems.first?.stringValue?.hasPrefix("the store cannot be read: error[storeUnavailable]: ") == true, "\(json.stdout)")
        // A store never migrated is unreadable as well; text output stays on stderr alone.
        let conninfo = try TestPostgres.database(migrated: false)
        let unmigrated = await matterflow(["workers", "--store", conninfo, "--check", "--json"])
        #expect(unmigrated.code == 2 && (try? JSONDocument.parse(unmigrated.stdout, file: "<out>").value["healthy"]) == false, "\(unmigrated.stdout)")
        let text = await matterflow(["workers", "--store", unreachable, "--check"])
        #expect(text.code == 2 && text.stdout.isEmpty && text.stderr.hasPrefix("error[storeUnavailable]: "), "\(text.stdout)\(text.stderr)")
    }

    @Test("workers --check without workers says whether runs are queued: none, or how many wait")
    func probeSaysWhetherRunsWait() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let empty = await matterflow(["workers", "--store", conninfo, "--check"])
        #expect(empty.code == 1)
        #expect(empty.stdout.contains("problem: 0 workers running, 1 wanted: no run is queued, runs submitted will wait; start workers"), "\(empty.stdout)")
        try PostgresStoreTests.queue(2, structures: 1, named: "s", store: store)
        let waiting = await matterflow(["workers", "--store", conninfo, "--check"])
        #expect(waiting.stdout.contains("problem: 0 workers running, 1 wanted: 2 queued runs wait; start workers"), "\(waiting.stdout)")
        // A worker that died a moment ago leaves a run no one can take over while no worker runs: said at once,
        // before it has waited the leases that make it a problem of its own.
        try store.registerWorker("w-dead", host: "host-c", pid: 13, leaseSeconds: 10)
        try TestPostgres.insertRunning([("run-orphan", "s9", "w-dead")], into: store)
        try store.execute("UPDATE matterflow_workers SET heartbeat_at = now() - interval '15 seconds' WHERE worker_id = 'w-dead'", doing: "test")
        try store.execute("UPDATE matterflow_runs SET lease_until = now() - interval '5 seconds' WHERE worker_id = 'w-dead'", doing: "test")
        let orphaned = await matterflow(["workers", "--store", conninfo, "--check"])
        #expect(orphaned.code == 1)
        #expect(
            orphaned.stdout.contains("problem: 0 workers running, 1 wanted: 2 queued runs wait, and 1 run of workers gone waits for a takeover; start workers"),
            "\(orphaned.stdout)")
    }
}
