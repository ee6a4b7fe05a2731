import Foundation
import MatterFlow
import MatterFlowJSON
@testable import MatterFlowStore
import Testing

/// A server that takes no writes: a standby that a conninfo naming a whole cluster (`host=a,b`) may reach during a
/// failover, or a primary with `default_transaction_read_only` on. It is an outage to wait out, not a refusal.
extension PostgresStoreTests {
    @Test("a write refused as read-only (SQLSTATE 25006) or a connection refused by a read-only server is an outage: retried on a new connection, waited out, and said as such")
    func readOnlyIsAnOutage() {
        let refused = PostgresError(.commandFailed, sqlState: "25006", "cannot execute INSERT in a read-only transaction")
        #expect(refused.isTransient && refused.isOutage && refused.isReadOnlyServer)
        let error = StoreError.from(refused, doing: "queueing run run-1", code: .migrationFailed)
        #expect(error.code == .storeUnavailable && error.isOutOfReach)
        #expect(error.message.contains("the server takes no writes") && error.message.contains("target_session_attrs=read-write"), "\(error.message)")
        let standby = PostgresError(
            .connectionFailed, "connection to server at \"10.0.0.1\", port 5432 failed: session is read-only; connection to server at \"10.0.0.2\", port 5432 failed: Connection refused")
        #expect(standby.isReadOnlyServer && standby.isTransient)
        #expect(StoreError.from(standby, doing: "connecting to the store").message.contains("a failover may be under way"))
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

    @Test("a worker whose store turns read-only (a standby during a failover, default_transaction_read_only) waits with its runs and goes on once it takes writes: no run is given up or taken over")
    func readOnlySpellIsWaitedOut() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-0000000025e6"
        let (conninfo, store, worker, clock, hub) = try await Self.runWaitingOnADelay(runID, in: directory)

        // New sessions of the database are read-only, and the worker's are ended: it connects again to a server that
        // takes no writes, as to a standby after its primary failed.
        let database = try #require(try store.execute("SELECT current_database()", doing: "test").rows.first?.first ?? nil)
        try store.execute("ALTER DATABASE \"\(database)\" SET default_transaction_read_only = on", doing: "test")
        try Self.endWorkerConnections(store)
        clock.advance(by: .seconds(60))
        #expect(await worker.waitForLine(containing: "session is read-only", within: .seconds(30)), "\(worker.lines)")
        try store.execute("ALTER DATABASE \"\(database)\" RESET default_transaction_read_only", doing: "test")

        let summary = try await worker.finish(after: [runID], conninfo: conninfo)
        #expect(summary.finished == ["succeeded": 1], "\(worker.lines)")
        #expect(summary.takenOver == 0, "\(worker.lines)")
        #expect(worker.lines.contains { $0.contains("the store is reachable again") }, "\(worker.lines)")
        #expect(hub.calls == ["fetchRooms"])
    }
}
