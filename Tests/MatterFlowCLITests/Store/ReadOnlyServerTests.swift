import Foundation
import MatterFlow
import MatterFlowJSON
@testable import MatterFlowStore
import Synchronization
import Testing

/// A server that takes no writes: a standby that a conninfo naming a whole cluster (`host=a,b`) may reach during a
/// failover, or a primary with `default_transaction_read_only` on. It is an outage to wait out, not a refusal.
extension PostgresStoreTests {
    @Test("a write refused as read-only (SQLSTATE 25006) or a connection refused by a read-only server is an outage, retried on a new connection; said with what to do, as the command's failure once retries end, and as the store out of reach when no host takes writes")
    func readOnlyIsAnOutage() {
        let refused = PostgresError(.commandFailed, sqlState: "25006", "cannot execute INSERT in a read-only transaction")
        #expect(refused.isTransient && refused.isOutage && refused.isReadOnlyServer)
        let error = StoreError.from(refused, doing: "migrating the store's schema", code: .migrationFailed)
        #expect(error.code == .migrationFailed, "a refusal, not an outage to wait for")
        #expect(error.message.contains("the server takes no writes") && error.message.contains("target_session_attrs=read-write"), "\(error.message)")
        let standby = PostgresError(
            .connectionFailed, "connection to server at \"10.0.0.1\", port 5432 failed: session is read-only; connection to server at \"10.0.0.2\", port 5432 failed: Connection refused")
        #expect(standby.isReadOnlyServer && standby.isTransient)
        let waited = StoreError.from(standby, doing: "connecting to the store")
        #expect(waited.code == .storeUnavailable && waited.isOutOfReach)
        #expect(waited.message.contains("a failover may be under way"))
        let misconfigured = PostgresError(
            .connectionFailed, "connection to server at \"10.0.0.1\", port 5432 failed: session is read-only; connection to server at \"10.0.0.2\", port 5432 failed: FATAL:  password authentication failed for user \"mf\"")
        #expect(!StoreError.from(misconfigured, doing: "connecting to the store").message.contains("takes no writes"), "a refused password is not a failover")
        let down = PostgresError(.connectionFailed, "connection to server at \"10.0.0.1\", port 5432 failed: Connection refused")
        #expect(!down.isReadOnlyServer)
        #expect(!StoreError.from(down, doing: "connecting to the store").message.contains("takes no writes"))
    }

    @Test("a connection is made only to a server that takes writes, unless the conninfo asks for any")
    func connectionsAskForAWritableServer() throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        try store.execute("SELECT set_config('lock_timeout', '5s', false)", doing: "test")
        let database = try #require(try store.execute("SELECT current_database()", doing: "test").rows.first?.first ?? nil)
        try store.execute("ALTER DATABASE \"\(database)\" SET default_transaction_read_only = on", doing: "test")
        defer { _ = try? store.execute("ALTER DATABASE \"\(database)\" RESET default_transaction_read_only", doing: "test") }
        #expect {
            _ = try PostgresConnection(conninfo)
        } throws: { error in
            (error as? PostgresError)?.isReadOnlyServer == true
        }
        let anyServer = try PostgresConnection(conninfo + " target_session_attrs=any")
        defer { anyServer.close() }
        #expect(try anyServer.execute("SHOW transaction_read_only").rows == [["on"]], "a reader that asks for any server gets it")
    }

    @Test(
        "a worker whose store turns read-only (a standby during a failover, default_transaction_read_only) waits with its runs and goes on once it takes writes: no run is given up or taken over; one that takes any server has its writes refused on the connection, and waits too",
        arguments: [false, true])
    func readOnlySpellIsWaitedOut(anyServer: Bool) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = anyServer ? "run-0000000025e7" : "run-0000000025e6"
        let (conninfo, store, worker, clock, hub) = try await Self.runWaitingOnADelay(runID, in: directory, anyServer: anyServer)

        // New sessions of the database are read-only, and the worker's are ended: it connects again to a server that
        // takes no writes, as to a standby after its primary failed.
        let database = try #require(try store.execute("SELECT current_database()", doing: "test").rows.first?.first ?? nil)
        try store.execute("ALTER DATABASE \"\(database)\" SET default_transaction_read_only = on", doing: "test")
        try Self.endWorkerConnections(store)
        clock.advance(by: .seconds(60))
        #expect(await worker.waitForLine(containing: anyServer ? "in a read-only transaction" : "session is read-only", within: .seconds(30)), "\(worker.lines)")
        #expect(worker.lines.contains { $0.contains("the store takes no writes (") && $0.contains("reconnecting to a writable server") }, "\(worker.lines)")
        try store.execute("ALTER DATABASE \"\(database)\" RESET default_transaction_read_only", doing: "test")

        let summary = try await worker.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 1], "\(worker.lines)")
        #expect(try store.execute("SELECT claims FROM matterflow_runs WHERE run_id = $1", [runID], doing: "test").rows == [["1"]], "claimed once: never taken over")
        #expect(worker.lines.contains { $0.contains("the store is reachable again") }, "\(worker.lines)")
        #expect(hub.calls == ["fetchRooms"])
        // Connections that could not be made (no server taking writes, as in a failover) hold takeovers a lease; writes
        // refused on connections made at once do not.
        let held = worker.worker.state.withLock { $0.takeovers.until } != nil
        #expect(held == !anyServer, "\(worker.lines)")
    }

    @Test("a worker's store tells a server restarted behind its conninfo (made again at once) from a connection closed and made again to the same server; a store nobody listens to does not look")
    func serverChangeIsSeen() throws {
        let server = try TestPostgres.PrivateServer()
        defer { server.remove() }
        let store = try PostgresRunStore(conninfo: server.conninfo)
        let lines = Mutex<[String]>([])
        let listening = store.connectivity.listen { _, line in lines.withLock { $0.append(line) } }
        defer { store.connectivity.stopListening(listening) }
        // The first connection made while listened to gives the server to compare with.
        try Self.endWorkerConnections(try PostgresRunStore(conninfo: server.conninfo))
        try store.execute("SELECT 1", doing: "test")
        #expect(!store.connectivity.lastOutageLostServer, "the same server, a connection closed and made again")
        try store.execute("SELECT 1", doing: "test")
        try server.stop()
        try server.start()
        try store.execute("SELECT 1", doing: "test")
        #expect(store.connectivity.lastOutageLostServer, "another run of the server")
        let reached = lines.withLock { $0.last } ?? ""
        #expect(reached.hasPrefix("the store is reachable again") && reached.contains(", connected to ") && reached.contains(server.directory), "\(reached)")
        let unheard = try PostgresRunStore(conninfo: server.conninfo)
        for _ in 1...2 {
            try server.stop()
            try server.start()
            try unheard.execute("SELECT 1", doing: "test")
        }
        #expect(!unheard.connectivity.lastOutageLostServer, "nobody listens: no round trip spent on it")
    }
}
