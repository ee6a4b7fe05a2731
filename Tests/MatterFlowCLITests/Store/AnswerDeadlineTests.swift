import Foundation
@testable import MatterFlowCLI
@testable import MatterFlowStore
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A server that takes a statement and never answers (a pooler holding it, as pgbouncer's PAUSE does, or a server
/// process stopped) must not keep a monitoring probe waiting: the probe's connections give up after their answer
/// deadline, and the probe fails `storeUnavailable` at once, not retried.
extension PostgresStoreTests {
    @Test("a command with an answer deadline gives up on a server that does not answer: the connection is closed, the command fails noAnswer (not retried), and a probe says the store is unavailable and why; a command answered in time is not cut short by its deadline later")
    func answerDeadlineEndsAWaitForNoAnswer() throws {
        let server = try TestPostgres.PrivateServer()
        defer { server.remove() }

        // The connection's own statement: its server process is stopped, as a pooler holding statements looks.
        let connection = try PostgresConnection(server.conninfo, answerWithin: .seconds(2))
        let backend = try #require(Self.backend(try connection.execute("SELECT pg_backend_pid()")))
        kill(backend, SIGSTOP)
        let stopped = ContinuousClock.now
        do {
            defer { kill(backend, SIGCONT) }
            #expect(throws: PostgresError.self) { try connection.execute(prepared: "SELECT $1::int + 1", ["1"]) }
        }
        #expect(ContinuousClock.now - stopped < .seconds(20), "the wait ended at the deadline, not when the server answered")
        #expect(!connection.isOpen, "the connection that got no answer is closed")
        do {
            try connection.execute("SELECT 1")
            Issue.record("a closed connection ran a command")
        } catch {
            #expect(error.code == .connectionLost)
        }
        let failure = PostgresError(.noAnswer, "x")
        #expect(!failure.isTransient && failure.isOutage, "given up, not tried again; an outage to whoever watches the store")

        // The probe's store (what `store metrics` and `workers` open): its command fails at once, as unavailable.
        let probe = try StoreOption.probe(server.conninfo, command: "store metrics", answerWithin: .seconds(2))
        let probeBackend = try #require(Self.backend(try probe.execute("SELECT pg_backend_pid()", doing: "test")))
        kill(probeBackend, SIGSTOP)
        let probed = ContinuousClock.now
        do {
            defer { kill(probeBackend, SIGCONT) }
            _ = try probe.metrics()
            Issue.record("the probe read metrics from a server that does not answer")
        } catch {
            #expect(error.code == .storeUnavailable, "\(error)")
            #expect(error.message.contains("did not answer within 2 s") && error.message.contains("pgbouncer"), "\(error.message)")
            #expect(!error.message.contains("password"), "\(error.message)")
        }
        #expect(ContinuousClock.now - probed < .seconds(20), "not tried again for the store's reconnect limit (30 s)")
        // Once the server answers again, the next command opens a new connection.
        #expect(try probe.schemaVersion() == StoreMigrations.latest)
        #expect(StoreOption.probe(server.conninfo, command: "workers") { $0.answerWithin } == StoreOption.probeAnswerWait)
    }

    @Test("a probe's statement that runs past most of its answer wait is cancelled by the server, not left running there: the probe says it was slow, and its next statement runs on a connection made again with the same bounds")
    func probeStatementsAreBoundOnTheServer() throws {
        let conninfo = try TestPostgres.database()
        let probe = try StoreOption.probe(conninfo, command: "store metrics", answerWithin: .seconds(2))
        let started = ContinuousClock.now
        do {
            try probe.execute("SELECT pg_sleep(30)", doing: "reading the store's figures")
            Issue.record("a 30 s statement ran to its end")
        } catch {
            #expect(error.code == .storeUnavailable, "\(error)")
            #expect(error.message.hasPrefix("reading the store's figures: the statement ran longer than 1.6 s, and the server cancelled it"), "\(error.message)")
        }
        #expect(ContinuousClock.now - started < .seconds(20))
        #expect(try probe.execute("SHOW statement_timeout", doing: "test").rows == [["1600ms"]])
        // Made again, a connection keeps the bound.
        _ = try? probe.execute("SELECT pg_terminate_backend(pg_backend_pid())", doing: "test", retrying: false)
        #expect(try probe.execute("SHOW statement_timeout", doing: "test").rows == [["1600ms"]])
    }

    @Test("a deadline whose time comes after the command was answered does nothing: the connection stays open and usable")
    func lateDeadlineLeavesTheConnection() throws {
        let timers = Mutex<[@Sendable () -> Void]>([])
        let deadline = AnswerDeadline(limit: .seconds(1)) { _, fire in timers.withLock { $0.append(fire) } }
        let connection = try PostgresConnection(try TestPostgres.database(), applicationName: nil, answerDeadline: deadline)
        defer { connection.close() }
        try connection.execute(prepared: "SELECT $1::int", ["7"])
        let fired = timers.withLock { $0 }
        #expect(fired.count >= 3, "the session setting, the preparation and the statement each armed it: \(fired.count)")
        for fire in fired { fire() }
        #expect(connection.isOpen)
        #expect(try connection.execute(prepared: "SELECT $1::int", ["8"]).rows == [["8"]])
    }

    /// The server process of the connection that ran `SELECT pg_backend_pid()`.
    private static func backend(_ rows: PostgresRows) -> pid_t? {
        rows.rows.first?.first.flatMap { $0 }.flatMap { pid_t($0) }
    }
}

extension StoreOption {
    /// `body` of the probe opened at `conninfo`, or nil when it cannot be opened.
    fileprivate static func probe<T>(_ conninfo: String, command: String, _ body: (PostgresRunStore) -> T) -> T? {
        (try? probe(conninfo, command: command)).map(body)
    }
}
