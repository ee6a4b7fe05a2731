import Foundation
@testable import MatterFlowCLI
@testable import MatterFlowStore
import Testing

/// Opening a store while its server starts up, shuts down or recovers: the command waits for it, bounded, and a
/// server that refuses for good is not waited for.
extension PostgresStoreTests {
    @Test("a command run while the server is starting up waits for it: `runs` succeeds once the server accepts connections")
    func waitsForStartingServer() async throws {
        let conninfo = try TestPostgres.database()
        let server = try StartingServer(rejecting: 2, forwardingTo: conninfo)
        defer { server.stop() }
        let listed = await matterflow(["runs", "--store", server.conninfo(conninfo)])
        #expect(listed.code == 0, "\(listed.stderr)")
        #expect(listed.stderr == "no runs in the store\n", "\(listed.stderr)")
        // Two refused (each connection followed by a ping that was refused too), then one passed through.
        #expect(server.connections >= 3, "\(server.connections)")
    }

    @Test("a server that stays in start-up is waited for only within the bound, and the error says the server refused connections meanwhile")
    func startupWaitIsBounded() throws {
        let conninfo = try TestPostgres.database()
        let server = try StartingServer(rejecting: Int.max, forwardingTo: conninfo)
        defer { server.stop() }
        do {
            _ = try PostgresRunStore.connect(server.conninfo(conninfo), applicationName: nil, waitingForStartup: .milliseconds(300))
            Issue.record("connected to a server that refuses every connection")
        } catch {
            #expect(error.code == .storeUnavailable, "\(error)")
            #expect(error.message.contains("the database system is starting up"), "\(error.message)")
            #expect(error.message.hasSuffix("(the server refused connections for 0.3 s: it is starting up, shutting down or recovering; its log says which)"), "\(error.message)")
        }
        #expect(server.connections >= 4, "tried again within the bound: \(server.connections)")
    }

    @Test("a connection the server refuses for good (a database that does not exist) is not waited for")
    func refusalIsNotWaitedFor() throws {
        let conninfo = try TestPostgres.database()
        let missing = conninfo.split(separator: " ").filter { !$0.hasPrefix("dbname=") }.joined(separator: " ") + " dbname=mf_no_such_database"
        do {
            _ = try PostgresConnection(missing)
            Issue.record("connected to a database that does not exist")
        } catch {
            #expect(!error.isServerNotReady && error.sqlState == nil, "\(error)")
        }
    }

    @Test(
        "a connection the client cannot even try (a process whose user has no passwd entry, as in a container run under an arbitrary UID) is the settings' fault, invalidStore, not an outage to check the server for",
        .enabled(
            if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") && Executable.path.map(Self.othersCanRun) == true,
            "needs root, setpriv, and a matterflow any user can run, to run as a UID with no passwd entry"))
    func clientCannotTry() async throws {
        let conninfo = try TestPostgres.database()
        // No user named: libpq looks the process's own user up, and there is none.
        let anonymous = conninfo.split(separator: " ").filter { !$0.hasPrefix("user=") }.joined(separator: " ")
        let program = try #require(Executable.path)
        let child = try ChildProcess.launch(
            ["--reuid", "4242000", "--regid", "4242000", "--clear-groups", program, "runs", "--store", anonymous], program: "/usr/bin/setpriv")
        defer { child.kill() }
        try #require(await child.waitForExit(within: .seconds(60)), "\(child.stderr.text)")
        #expect(child.status == 2, "\(child.stderr.text)")
        #expect(child.stderr.text.hasPrefix("error[invalidStore]: --store: the client could not try to connect to "), "\(child.stderr.text)")
        #expect(child.stderr.text.contains("4242000") && !child.stderr.text.contains("check that PostgreSQL is running"), "\(child.stderr.text)")
    }

    @Test("a prepared statement a pooler in transaction mode lost or doubled (42P05, 26000) says what to do: connect directly or pool in session mode")
    func poolerInTransactionMode() throws {
        let connection = try PostgresConnection(try TestPostgres.database())
        defer { connection.close() }
        // The name the connection gives its first prepared statement, taken already: as when another client's
        // statements reach this server connection through a pool.
        try connection.execute("PREPARE matterflow_1 AS SELECT 1")
        do {
            _ = try connection.execute(prepared: "SELECT $1::integer", ["1"])
            Issue.record("the statement was prepared under a name already taken")
        } catch {
            #expect(error.sqlState == "42P05", "\(error)")
            let said = StoreError.from(error, doing: "queueing run r")
            #expect(said.code == .storeFailed)
            #expect(said.message.contains("a connection pooler in transaction mode?") && said.message.contains("session mode"), "\(said.message)")
        }
    }

    /// Whether any user may run the program at `path`: it and every directory above it are open to others.
    static func othersCanRun(_ path: String) -> Bool {
        var current = path
        while !current.isEmpty && current != "/" {
            var status = stat()
            guard stat(current, &status) == 0, status.st_mode & 0o001 != 0 else { return false }
            current = (current as NSString).deletingLastPathComponent
        }
        return true
    }
}
