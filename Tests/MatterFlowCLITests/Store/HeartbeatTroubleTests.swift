import MatterFlow
import MatterFlowSimulator
@testable import MatterFlowStore
import Synchronization
import Testing

/// A worker whose heartbeats fail or crawl says so in a few lines an operator can act on, not one every lease/3.
@Suite struct HeartbeatTroubleTests {
    @Test("failed heartbeats are said at the 1st, 2nd, 4th, 8th ... in a row, and once when they work again")
    func failures() {
        var trouble = HeartbeatTrouble(leaseSeconds: 10)
        var said: [Int] = []
        for count in 1...1100 where trouble.failed("cannot execute UPDATE in a read-only transaction") != nil { said.append(count) }
        // An hour of a read-only store at a heartbeat every 3.3 s: 11 lines, not 1,100.
        #expect(said == [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024])
        var fresh = HeartbeatTrouble(leaseSeconds: 10)
        #expect(fresh.failed("disk full") == "heartbeat failed: disk full; leases run out after 10 s of failures")
        #expect(fresh.failed("disk full") == "heartbeat failed 2 times in a row: disk full")
        let lines = fresh.succeeded(took: .milliseconds(12))
        #expect(lines.map(\.0) == [.info] && lines.map(\.1) == ["heartbeats work again after 2 failed heartbeats"])
        #expect(fresh.failedInARow == 0 && fresh.succeeded(took: .milliseconds(12)).isEmpty)
    }

    @Test("a heartbeat that took half a lease or more is said once, as what it means for the leases, until one is quick again")
    func slow() {
        var trouble = HeartbeatTrouble(leaseSeconds: 10)
        #expect(trouble.succeeded(took: .seconds(4.9)).isEmpty)
        let long = trouble.succeeded(took: .milliseconds(40_060))
        #expect(long.map(\.0) == [.warning])
        #expect(long.first?.1.hasPrefix("a heartbeat took 40.1 s to renew this worker's leases, longer than the lease (10 s): its runs' leases ran out meanwhile") == true)
        #expect(long.first?.1.contains("a lock holds matterflow_runs (`matterflow workers --store URL --check` names it)") == true)
        #expect(trouble.succeeded(took: .seconds(30)).isEmpty, "said once while they stay slow")
        let quick = trouble.succeeded(took: .milliseconds(8))
        #expect(quick.map(\.0) == [.info] && quick.first?.1 == "heartbeats renew leases in time again (0 s)")
        let half = trouble.succeeded(took: .seconds(6))
        #expect(half.first?.1.contains("half the lease (10 s) or more: its runs' leases may run out before the next one") == true)
    }

    @Test("a heartbeat slow because it waited out an outage (said already) blames the outage, not a lock")
    func slowThroughAnOutage() {
        var trouble = HeartbeatTrouble(leaseSeconds: 10)
        let long = trouble.succeeded(took: .seconds(23.5), storeWasLost: true)
        #expect(long.map(\.0) == [.warning])
        #expect(long.first?.1.hasSuffix("longer than the lease (10 s): its runs' leases ran out meanwhile, and other workers may have taken them over; the store was out of reach meanwhile") == true, "\(long)")
        #expect(long.first?.1.contains("lock") == false)
    }

    @Test("an outage counts as the server lost (what holds takeovers) when connections could not be made, or were made to another server than before; not when one was closed and made again to the same")
    func serverLostInAnOutage() {
        let connectivity = StoreConnectivity()
        connectivity.connected(to: "2026-12-06 09:00:00+00")
        connectivity.failed("server closed the connection unexpectedly", doing: "claiming runs")
        connectivity.connected(to: "2026-12-06 09:00:00+00")
        connectivity.reached()
        #expect(!connectivity.lastOutageLostServer, "an idle connection closed and made again")
        connectivity.failed("server closed the connection unexpectedly", doing: "claiming runs")
        connectivity.connected(to: "2026-12-06 10:30:00+00")
        connectivity.reached()
        #expect(connectivity.lastOutageLostServer, "a standby promoted, or a server restarted, behind the same conninfo")
        connectivity.failed("connection refused", doing: "claiming runs", serverLost: true)
        connectivity.reached()
        #expect(connectivity.lastOutageLostServer, "no connection could be made")
        connectivity.failed("server closed the connection unexpectedly", doing: "claiming runs")
        connectivity.reached()
        #expect(!connectivity.lastOutageLostServer, "each outage on its own")
    }

    @Test("a listener is told with each reachable-again line whether that outage lost the server, as of the line: another outage ending before it looks does not change what it is told")
    func lostServerTravelsWithTheLine() {
        let connectivity = StoreConnectivity()
        let told = Mutex<[(line: String, lostServer: Bool)]>([])
        _ = connectivity.listen { reachable, line, lostServer in
            guard reachable else { return }
            let first = told.withLock { told in
                told.append((line, lostServer))
                return told.count == 1
            }
            // Another outage, a connection closed and made again to the same server, ends before this listener is done.
            if first {
                connectivity.failed("server closed the connection unexpectedly", doing: "heartbeat")
                connectivity.reached()
            }
        }
        connectivity.failed("connection refused", doing: "claiming runs", serverLost: true)
        connectivity.reached()
        #expect(told.withLock { $0.map(\.lostServer) } == [true, false], "the failover's line, then the reconnect's")
        #expect(!connectivity.lastOutageLostServer, "what the property says by then: the second outage")
    }

    @Test("the store's connectivity tells whether it was lost at some moment since an instant: lost now, or found again since")
    func lostSince() {
        let connectivity = StoreConnectivity()
        let before = ContinuousClock.now
        #expect(!connectivity.wasLost(since: before))
        connectivity.failed("refused", doing: "heartbeat")
        #expect(connectivity.wasLost(since: .now))
        connectivity.reached()
        #expect(connectivity.wasLost(since: before), "found again after the instant")
        #expect(!connectivity.wasLost(since: .now + .seconds(1)), "reached since")
    }
}

extension PostgresStoreTests {
    @Test("the line that the store is reachable again names the server when the command ran on a connection opened during the outage: with several hosts, the one that takes writes now")
    func reachedAgainNamesTheServer() throws {
        let connectivity = StoreConnectivity()
        let lines = Mutex<[String]>([])
        _ = connectivity.listen { _, line in lines.withLock { $0.append(line) } }
        let before = try PostgresConnection(try TestPostgres.server())
        defer { before.close() }
        connectivity.failed("server closed the connection unexpectedly", doing: "claiming runs")
        let after = try PostgresConnection(try TestPostgres.server())
        defer { after.close() }
        connectivity.reached(via: after)
        let server = try #require(after.server)
        #expect(lines.withLock { $0.last }?.hasSuffix(", connected to \(server)") == true, "\(lines.withLock { $0 })")
        // An outage ended by a statement on a connection opened before it names nothing.
        connectivity.failed("could not serialize access", doing: "heartbeat")
        connectivity.reached(via: before)
        #expect(lines.withLock { $0.last }?.contains("connected to") == false, "\(lines.withLock { $0 })")
    }

    @Test("a worker whose heartbeat waited behind a table lock longer than its lease says so, with what it means and where to look")
    func heartbeatBehindALock() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let lines = Mutex<[String]>([])
        let worker = StoreWorker(
            store: store, hubs: { _ in try SimulatedHub(home: HomeDescription.defaultHome, clock: VirtualClock()) },
            options: WorkerOptions(workerID: "w-slow", leaseSeconds: 2, log: { line in lines.withLock { $0.append(line.text) } }))
        let running = Task { try await worker.run(host: "test", pid: 1) }
        defer { running.cancel() }
        let holder = try PostgresConnection(conninfo)
        defer { holder.close() }
        let deadline = ContinuousClock.now + .seconds(30)
        while !lines.withLock({ $0.contains { $0.contains("claiming runs from") } }) {
            try #require(ContinuousClock.now < deadline, "the worker did not start: \(lines.withLock { $0 })")
            try await Task.sleep(for: .milliseconds(10))
        }
        try holder.execute("SET idle_in_transaction_session_timeout = '30s'")
        try holder.execute("BEGIN")
        try holder.execute("LOCK TABLE matterflow_runs, matterflow_workers IN ACCESS EXCLUSIVE MODE")
        try await Task.sleep(for: .seconds(4))
        try holder.execute("ROLLBACK")
        while !lines.withLock({ $0.contains { $0.contains("heartbeats renew leases in time again") } }) {
            try #require(ContinuousClock.now < deadline, "no heartbeat came back: \(lines.withLock { $0 })")
            try await Task.sleep(for: .milliseconds(10))
        }
        worker.stop()
        _ = try await running.value
        let said = lines.withLock { $0 }
        // A heartbeat slowed before the lock (a loaded machine) may have been said first, as half the lease or more.
        let slow = said.filter { $0.contains("a heartbeat took") }
        #expect(!slow.isEmpty && slow.allSatisfy { $0.contains("to renew this worker's leases") }, "\(said)")
        #expect(slow.contains { $0.contains("longer than the lease (2 s)") || $0.contains("half the lease (2 s) or more") }, "\(said)")
    }
}

@Suite struct RunEndLevelTests {
    @Test("a run's end is logged at the level an operator's filter expects: needsAttention an error, a failure or a cancel after takeover a warning")
    func levels() {
        #expect(StoreWorker.level(ofEnd: "needsAttention", recovered: false) == .error)
        #expect(StoreWorker.level(ofEnd: "failed", recovered: false) == .warning)
        #expect(StoreWorker.level(ofEnd: "failed", recovered: true) == .warning)
        #expect(StoreWorker.level(ofEnd: "cancelled", recovered: true) == .warning)
        #expect(StoreWorker.level(ofEnd: "cancelled", recovered: false) == .info)
        #expect(StoreWorker.level(ofEnd: "succeeded", recovered: true) == .info)
    }
}
