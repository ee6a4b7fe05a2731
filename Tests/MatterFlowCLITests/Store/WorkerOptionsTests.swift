import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
@testable import MatterFlowStore
import Testing

/// A service builds `WorkerOptions` in code, from its own configuration: a value no worker can run with must be
/// refused by name, not trap (a NaN lease) or leave the worker idle for ever (no concurrency).
@Suite("worker options")
struct WorkerOptionsTests {
    @Test("options in range have no problem; each out of range is named with its value and range")
    func ranges() {
        #expect(WorkerOptions(workerID: "w").problem == nil)
        #expect(WorkerOptions(workerID: "w", concurrency: 1, maxWaiting: 0, leaseSeconds: 0.01, pollMilliseconds: 1, drainSeconds: 0).problem == nil)
        let cases: [(WorkerOptions, String)] = [
            (WorkerOptions(workerID: ""), "WorkerOptions.workerID is empty"),
            (WorkerOptions(workerID: "w\n1"), "WorkerOptions.workerID holds the control character U+000A"),
            (WorkerOptions(workerID: "w\u{2028}1"), "WorkerOptions.workerID holds the control character U+2028"),
            (WorkerOptions(workerID: "w\u{202E}1"), "WorkerOptions.workerID holds the control character U+202E"),
            (WorkerOptions(workerID: String(repeating: "w", count: 129)), "WorkerOptions.workerID is 129 bytes long; it must be at most 128"),
            (WorkerOptions(workerID: "w", concurrency: 0), "WorkerOptions.concurrency is 0; it must be from 1 to 1000000"),
            (WorkerOptions(workerID: "w", maxWaiting: -1), "WorkerOptions.maxWaiting is -1"),
            (WorkerOptions(workerID: "w", leaseSeconds: .nan), "WorkerOptions.leaseSeconds is nan"),
            (WorkerOptions(workerID: "w", leaseSeconds: .infinity), "WorkerOptions.leaseSeconds is inf"),
            (WorkerOptions(workerID: "w", leaseSeconds: 0), "WorkerOptions.leaseSeconds is 0.0; it must be from 0.01 to 86400.0"),
            (WorkerOptions(workerID: "w", pollMilliseconds: 0), "WorkerOptions.pollMilliseconds is 0"),
            (WorkerOptions(workerID: "w", drainSeconds: -1), "WorkerOptions.drainSeconds is -1.0"),
            (WorkerOptions(workerID: "w", drainSeconds: 1e300), "WorkerOptions.drainSeconds is 1e+300"),
        ]
        for (options, message) in cases {
            #expect(options.problem?.hasPrefix(message) == true, "\(options.problem ?? "no problem") for \(message)")
        }
        #expect(WorkerOptions(workerID: String(repeating: "é", count: 64)).problem == nil, "128 bytes")
    }

    @Test("worker --worker-id that would break log lines, listings or metric labels is a usage error, before the store is opened")
    func workerIDRefusedByTheCLI() async {
        for (id, said) in [("a\nb", "holds the control character U+000A"), ("a\u{1B}[31m", "holds the control character U+001B"),
                           (String(repeating: "x", count: 300), "is 300 bytes long; it must be at most 128")] {
            let result = await matterflow(["worker", "--store", "host=/nonexistent dbname=x", "--worker-id", id])
            #expect(result.code == 64 && result.stderr.contains("--worker-id \(said)"), "\(result.stderr)")
        }
    }
}

extension PostgresStoreTests {
    @Test("a worker with options out of range does not start: invalidOptions, and nothing registered in the store")
    func aWorkerWithOptionsOutOfRangeDoesNotStart() async throws {
        let store = try PostgresRunStore(conninfo: try TestPostgres.database())
        let worker = StoreWorker(
            store: store, hubs: { _ in try SimulatedHub(home: HomeDescription.defaultHome, clock: VirtualClock()) },
            options: WorkerOptions(workerID: "w1", leaseSeconds: .nan))
        do {
            _ = try await worker.run(host: "test", pid: 1)
            Issue.record("a worker with a NaN lease started")
        } catch {
            #expect(error.code == .invalidOptions)
            #expect(error.message.contains("WorkerOptions.leaseSeconds is nan"))
        }
        #expect(try store.execute("SELECT count(*) FROM matterflow_workers", doing: "counting workers").rows == [["0"]])
    }

    @Test("a worker whose start failed (its registration refused) runs once the store is back; a worker that ran does not run again")
    func aWorkerRunsOnce() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let connection = try PostgresConnection(conninfo)
        defer { connection.close() }
        let worker = StoreWorker(
            store: store, hubs: { _ in try SimulatedHub(home: HomeDescription.defaultHome, clock: VirtualClock()) },
            options: WorkerOptions(workerID: "w1", exitWhenIdle: true))
        try connection.execute("ALTER TABLE matterflow_workers RENAME TO matterflow_workers_away")
        await #expect(throws: StoreError.self) { _ = try await worker.run(host: "test", pid: 1) }
        try connection.execute("ALTER TABLE matterflow_workers_away RENAME TO matterflow_workers")
        let summary = try await worker.run(host: "test", pid: 1)
        #expect(summary.finished.isEmpty)
        #expect(try connection.execute("SELECT worker_id FROM matterflow_workers").rows == [["w1"]])
        do {
            _ = try await worker.run(host: "test", pid: 1)
            Issue.record("a worker ran twice")
        } catch {
            #expect(error.code == .workerUsed)
        }
    }
}

extension PostgresStoreTests {
    @Test("a run's error in the store has one shape, {code, cause, message, state}: a failed run's, and a worker's own (its workflow gone)")
    func storedErrorsHaveOneShape() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let gone = try directory.write(try String(contentsOfFile: Repository.workflow("cancel"), encoding: .utf8), to: "gone.json")
        #expect(await matterflow(["submit", gone, "--store", conninfo, "--run-id", "run-gone", "--structure", "home-a"]).code == 0)
        try FileManager.default.removeItem(atPath: gone)
        let failing = try directory.write(
            #"{"workflow": "f", "version": 1, "start": "f", "states": {"f": {"type": "fail", "code": "aborted", "cause": "custom", "message": "m"}}}"#,
            to: "failing.json")
        #expect(await matterflow(["submit", failing, "--store", conninfo, "--run-id", "run-failing", "--structure", "home-b"]).code == 0)
        let store = try PostgresRunStore(conninfo: conninfo)
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "w1", exitWhenIdle: true), virtualTime: true)
        _ = try await worker.summary
        let lost = try #require(try store.run("run-gone")?.error?.objectValue)
        #expect(lost["code"] == "failedPrecondition")
        #expect(lost["cause"] == "invalidWorkflow")
        #expect(lost["state"] == .null)
        #expect(lost["message"]?.stringValue?.isEmpty == false)
        let failed = try #require(try store.run("run-failing")?.error?.objectValue)
        #expect(failed.keys.sorted() == ["cause", "code", "message", "state"])
        #expect(failed["code"] == "aborted" && failed["cause"] == "custom" && failed["message"] == "m" && failed["state"] == "f")
    }
}

extension PostgresStoreTests {
    @Test("the library's submit refuses what no worker could run: a workflow not loaded from an absolute path, inputs that do not fit")
    func submitRefusesWhatNoWorkerCouldRun() throws {
        let store = try PostgresRunStore(conninfo: try TestPostgres.database())
        let fromText = try WorkflowEngine().load(
            text: #"{"workflow": "t", "version": 1, "start": "done", "states": {"done": {"type": "succeed"}}}"#, baseDirectory: "/")
        let commission = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        for (workflow, inputs, part) in [
            (fromText, JSONObject(), "was not loaded from a file by its absolute path"),
            (commission, ["deviceName": "Lamp"], "the inputs do not fit workflow commission-device: required input \"onboardingPayload\" is missing"),
            (commission, ["onboardingPayload": "MT:notacode", "deviceName": "Lamp"], "is not a valid QR code"),
        ] as [(Workflow, JSONObject, String)] {
            do {
                _ = try store.submit(workflow, inputs: inputs, structureID: "home-1", runID: "run-refused")
                Issue.record("submitted: \(part)")
            } catch {
                #expect(error.code == .invalidSubmission)
                #expect(error.message.contains(part), "\(error.message)")
                #expect(!error.message.contains("MT:notacode"))
            }
        }
        #expect(try store.runs().isEmpty)
    }
}
