import Foundation
@testable import MatterFlowStore
import MatterFlowJSON
import MatterFlowJournal
import Synchronization
import Testing

/// The throwaway PostgreSQL server of the store tests.
///
/// `.ci/run` starts one (Tests/Postgres/pg-server.sh) and passes its conninfo in `MATTERFLOW_TEST_POSTGRES`; without
/// it, the first test that needs a server starts one in a temporary directory with the same script, and the
/// process stops it at exit (also when a test fails). Each test gets a database of its own. Tests skip, saying
/// why, when no server binary is installed. Each test that gets a database appends its name to the file named
/// by `MATTERFLOW_POSTGRES_TEST_LOG`, so CI can show how many PostgreSQL tests ran.
enum TestPostgres {
    /// The server script.
    static var script: String { Repository.root + "/Tests/Postgres/pg-server.sh" }

    /// Whether a server is given or can be started (the trait that skips the tests otherwise).
    static let available: Bool = {
        if ProcessInfo.processInfo.environment["MATTERFLOW_TEST_POSTGRES"] != nil { return true }
        return (try? shell(["available"]).status) == 0
    }()

    private static let started = Mutex<(conninfo: String?, directory: String?)>((nil, nil))

    /// The server's conninfo (dbname=postgres), starting a server when none is running.
    static func server() throws -> String {
        if let given = ProcessInfo.processInfo.environment["MATTERFLOW_TEST_POSTGRES"] { return given }
        return try started.withLock { state in
            if let conninfo = state.conninfo { return conninfo }
            let directory = "/tmp/matterflow-pg-\(getpid())-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            chmod(directory, 0o755)
            state.directory = directory
            atexit {
                if let directory = TestPostgres.started.withLock({ $0.directory }) {
                    _ = try? TestPostgres.shell(["stop", directory + "/pg"])
                    try? FileManager.default.removeItem(atPath: directory)
                }
            }
            // The script's watchdog stops the server if this process dies without running its exit handler.
            let result = try shell(["start", directory + "/pg", String(getpid())])
            guard result.status == 0 else {
                throw PostgresHarnessError(message: "pg-server.sh start failed (\(result.status)): \(result.output)")
            }
            let conninfo = result.output.split(separator: "\n").last.map(String.init) ?? ""
            state.conninfo = conninfo
            return conninfo
        }
    }

    /// The server's socket directory (to restart it in a test).
    static var serverDirectory: String? {
        if let given = ProcessInfo.processInfo.environment["MATTERFLOW_TEST_POSTGRES"] {
            return given.split(separator: " ").first { $0.hasPrefix("host=") }.map { String($0.dropFirst(5)) }
        }
        return started.withLock { $0.directory.map { $0 + "/pg" } }
    }

    /// A fresh, empty database for one test; its conninfo.
    static func database(_ test: String = #function, migrated: Bool = true) throws -> String {
        let server = try server()
        let name = "mf_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        let admin = try PostgresConnection(server)
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(name)")
        let conninfo = server.split(separator: " ").filter { !$0.hasPrefix("dbname=") }.joined(separator: " ") + " dbname=\(name)"
        if migrated {
            let connection = try PostgresConnection(conninfo)
            defer { connection.close() }
            _ = try StoreMigrator(connection: connection).migrate()
        }
        if let log = ProcessInfo.processInfo.environment["MATTERFLOW_POSTGRES_TEST_LOG"],
            let handle = FileHandle(forWritingAtPath: log) ?? (FileManager.default.createFile(atPath: log, contents: nil) ? FileHandle(forWritingAtPath: log) : nil)
        {
            handle.seekToEndOfFile()
            handle.write(Data((test + "\n").utf8))
            try? handle.close()
        }
        return conninfo
    }

    /// Inserts runs as a worker's claim leaves them (`running`, leased to `worker`), each on its structure.
    static func insertRunning(_ runs: [(run: String, structure: String, worker: String)], into store: PostgresRunStore) throws {
        for (run, structure, worker) in runs {
            try store.execute(
                """
                INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, status, worker_id)
                VALUES ($1, 'w', '/w.json', $2, '{}', 'running', $3)
                """, [run, structure, worker], doing: "test setup")
        }
    }

    /// Restarts the server (immediate shutdown, like a crash, then start).
    static func restart() throws {
        let directory = try #require(serverDirectory, "no server directory to restart")
        let result = try shell(["restart", directory])
        try #require(result.status == 0, "pg-server.sh restart failed: \(result.output)")
    }

    /// A server of one test's own, for an outage longer than a restart: stopping the shared one for seconds would
    /// fail the other suites' tests, which run meanwhile. Stopped by its PID when ``remove()`` is called, and by the
    /// script's watchdog if this process dies first.
    final class PrivateServer {
        let directory: String
        /// The conninfo of its migrated database.
        let conninfo: String

        init() throws {
            directory = "/tmp/matterflow-pg-private-\(getpid())-\(UUID().uuidString.prefix(8))"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            chmod(directory, 0o755)
            let result = try TestPostgres.shell(["start", directory + "/pg", String(getpid())])
            guard result.status == 0, let server = result.output.split(separator: "\n").last.map(String.init) else {
                try? FileManager.default.removeItem(atPath: directory)
                throw PostgresHarnessError(message: "pg-server.sh start failed (\(result.status)): \(result.output)")
            }
            let admin = try PostgresConnection(server)
            defer { admin.close() }
            try admin.execute("CREATE DATABASE mf_private")
            conninfo = server.replacingOccurrences(of: "dbname=postgres", with: "dbname=mf_private")
            let connection = try PostgresConnection(conninfo)
            defer { connection.close() }
            _ = try StoreMigrator(connection: connection).migrate()
        }

        /// Stops the server (fast shutdown: its clients' connections end).
        func stop() throws {
            let result = try TestPostgres.shell(["stop", directory + "/pg"])
            try #require(result.status == 0, "pg-server.sh stop failed: \(result.output)")
        }

        /// Starts it again on the same data and socket.
        func start() throws {
            let result = try TestPostgres.shell(["start", directory + "/pg"])
            try #require(result.status == 0, "pg-server.sh start failed: \(result.output)")
        }

        /// Stops it and removes its directory.
        func remove() {
            _ = try? TestPostgres.shell(["stop", directory + "/pg"])
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Runs the server script (its output to a file), bounded to 60 s: killed after that. It is started as the
    /// suite's other children are (``SpawnedProcess``): the server it leaves running holds none of the suite's
    /// descriptors, so no other test's child output is kept open by it.
    static func shell(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let log = "/tmp/matterflow-pg-script-\(getpid())-\(UUID().uuidString.prefix(8)).log"
        defer { unlink(log) }
        let input = open("/dev/null", O_RDONLY | O_CLOEXEC)
        let output = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        defer {
            if input >= 0 { close(input) }
            if output >= 0 { close(output) }
        }
        guard input >= 0, output >= 0 else { throw PostgresHarnessError(message: "cannot open /dev/null or \(log)") }
        let script = try SpawnedProcess(
            executable: "/bin/bash", arguments: [Self.script] + arguments, environment: ProcessInfo.processInfo.environment,
            directory: nil, input: input, output: output, error: output)
        let deadline = ContinuousClock.now + .seconds(60)
        while script.isRunning {
            if ContinuousClock.now >= deadline { script.send(SIGKILL) }
            usleep(20_000)
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let status = script.terminationReason == .exit ? script.terminationStatus : 128 + script.terminationStatus
        return (status, text)
    }
}

struct PostgresHarnessError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A record given as its payload object, encoded as the journal writer encodes one, for a group committer.
func encoded(payload: JSONObject) -> EncodedJournalRecord {
    EncodedJournalRecord(JournalRecord(payload: payload, offset: 0))
}

extension PostgresRunStore {
    /// Whether the run's records hold the intent of a call of `operation` (the run has reached it); false while
    /// they cannot be read.
    func hasIntent(of operation: String, run runID: String) -> Bool {
        ((try? records(of: runID)) ?? []).contains { $0.type == "intent" && $0.payload["operation"]?.stringValue == operation }
    }
}

extension TestPostgres {
    /// Whether, within a minute of looking from `connection`, exactly one statement of its database waits for a lock:
    /// how a test knows a statement it sent on another connection is held by a transaction `connection` keeps open.
    static func anotherStatementWaitsForALock(seenFrom connection: PostgresConnection) async -> Bool {
        // Looked for from a thread of its own, for up to a minute: the statement it waits for runs on the cooperative
        // pool, which parallel tests' synchronous work can keep busy for a while.
        await act(within: .seconds(60), every: .milliseconds(2), when: {
            let waiting = try? connection.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")
            return waiting?.rows == [["1"]]
        }, {}) != nil
    }
}
