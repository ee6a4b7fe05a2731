import Foundation
import MatterFlow
import MatterFlowCLI
import MatterFlowJSON
import MatterFlowJournal
@testable import MatterFlowStore
import Synchronization
import Testing

/// Workers count by the store's clock: one whose machine's clock is wrong stamps its records, and counts a resumed
/// run's waits, as the others do, and says its clock is wrong.
@Suite("The fleet's clock", .serialized, .enabled(if: TestPostgres.available, "no PostgreSQL server binary (install postgresql; .ci/run does)"))
struct FleetClockTests {
    @Test("a run handed back at its question is resumed by a worker whose clock is 400 s ahead: the question is asked again for what is left of its 300 s, not timed out; the worker warns")
    func questionOnAWorkerAhead() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-0000000f0001"
        let store = try await Self.handedBackAtItsQuestion(runID, conninfo: conninfo, in: directory)

        var options = WorkerOptions(workerID: "ahead")
        options.localWallClock = { Date().timeIntervalSince1970 + 400 }
        let second = TestWorker(store: store, options: options)
        #expect(try await FleetAnswerTests.waitForRecord("questionAsked", of: runID, conninfo: conninfo, count: 2), "\(second.lines)")
        second.worker.stop()
        #expect(try await second.summary.handedBack == 1, "\(second.lines)")
        #expect(try store.status(of: runID) == "queued")
        #expect(
            second.lines.contains {
                $0.hasPrefix("warning: worker ahead: this machine's clock is 400") && $0.contains(" s ahead of the store's; the worker stamps records")
            }, "\(second.lines)")
        // Its records carry the store's time, not its own.
        let now = Date().timeIntervalSince1970
        let stamps = try store.records(of: runID).compactMap(\.wallTime)
        #expect(!stamps.isEmpty && stamps.allSatisfy { abs($0 - now) < 60 }, "\(stamps.map { $0 - now })")
    }

    /// libfaketime, which shifts a process's wall clock (not its monotonic one): Debian's `faketime` package.
    static let fakeTimeLibrary = ["/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1", "/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1"]
        .first { FileManager.default.fileExists(atPath: $0) }

    @Test(
        "a delay until a moment waits by the store's clock in a worker process whose machine's clock is an hour behind: not 3,650 s away, refused by maxSeconds",
        .enabled(if: fakeTimeLibrary != nil, "no libfaketime (install faketime; .ci/run does)"))
    func delayUntilInAWorkerProcessBehind() async throws {
        let library = try #require(Self.fakeTimeLibrary)
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-0000000f0004"
        let store = try await Self.submitDelayUntil(runID, conninfo: conninfo, in: directory)
        // Started by env under the library, as faketime(1) does: the library set up in the worker's own process first
        // leaves the Swift runtime no arguments.
        let worker = try ChildProcess.launch(
            [try #require(Executable.path), "worker", "--store", conninfo, "--exit-when-idle", "--worker-id", "behind"],
            environment: ["LD_PRELOAD": library, "FAKETIME": "-3600", "FAKETIME_DONT_FAKE_MONOTONIC": "1", "FAKETIME_NO_CACHE": "1"],
            program: "/usr/bin/env")
        defer { worker.kill() }
        try #require(await worker.waitForExit(within: .seconds(60)), "the worker did not finish: \(worker.stderr.text)")
        #expect(worker.status == 0, "\(worker.stderr.text)")
        #expect(worker.stderr.text.contains("behind the store's"), "the worker's clock was shifted: \(worker.stderr.text)")
        #expect(try store.output(of: runID) == "done", "the delay waited for its moment, not refused it: \(worker.stderr.text)")
    }

    /// The store, with run `runID` of ``delayUntil`` (written in `directory`) queued, its moment 50 s from now by this
    /// machine's clock (the store's): 30 s of the first delay, then 20 s to the moment.
    static func submitDelayUntil(_ runID: String, conninfo: String, in directory: TemporaryDirectory) async throws -> PostgresRunStore {
        let workflow = try directory.write(delayUntil, to: "delay.json")
        let moment = try #require(UTCTime.iso8601Seconds(Date().timeIntervalSince1970 + 50))
        let submitted = await matterflow(["submit", workflow, "--store", conninfo, "--run-id", runID, "--input", "when=\(moment)"])
        #expect(submitted.code == 0, "\(submitted.stderr)")
        return try PostgresRunStore(conninfo: conninfo)
    }

    /// A workflow that waits 30 s, then until the moment `when`, at most 600 s: output `done`, or the error's message.
    static let delayUntil = #"""
        {"workflow": "d", "version": 1, "inputs": {"when": {"type": "string", "required": true}}, "start": "settle",
         "states": {
          "settle": {"type": "delay", "seconds": 30, "next": "window"},
          "window": {"type": "delay", "until": "${input.when}", "maxSeconds": 600, "next": "done",
                     "onError": [{"errors": ["invalidArgumentValue"], "next": "refused"}]},
          "done": {"type": "succeed", "output": "done"},
          "refused": {"type": "succeed", "output": "${error.message}"}
        }}
        """#

    @Test("a delay until a moment waits by the store's clock, not by WorkerOptions.localWallClock: 20 s on a worker told its machine is an hour behind")
    func delayUntilOnAWorkerBehind() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-0000000f0003"
        let store = try await Self.submitDelayUntil(runID, conninfo: conninfo, in: directory)
        var options = WorkerOptions(workerID: "behind")
        options.localWallClock = { Date().timeIntervalSince1970 - 3_600 }
        let worker = TestWorker(store: store, options: options, virtualTime: true)
        let summary = try await worker.summary
        #expect(summary.finished["succeeded"] == 1, "\(worker.lines)")
        #expect(try store.output(of: runID) == "done", "the delay waited for its moment, not refused it: \(worker.lines)")
    }

    @Test("the store's clock, read through a machine's clock that is wrong, is the server's")
    func measuredOffset() throws {
        let store = try PostgresRunStore(conninfo: try TestPostgres.database())
        let behind = StoreClock(local: { Date().timeIntervalSince1970 - 3_600 })
        #expect(abs(try #require(try behind.measure(store)) + 3_600) < 5)
        #expect(abs(behind.now - Date().timeIntervalSince1970) < 5)
        // A reading whose round trip was long (the monotonic clock moves 100 s at each look during it) is dropped, the
        // last good one kept.
        let slowness = Mutex((on: false, total: Duration.zero))
        let slow = StoreClock(local: { Date().timeIntervalSince1970 - 3_600 }, monotonic: {
            slowness.withLock { state in
                if state.on { state.total += .seconds(100) }
                return .now + state.total
            }
        })
        #expect(abs(try #require(try slow.measure(store)) + 3_600) < 5)
        slowness.withLock { $0.on = true }
        #expect(try slow.measure(store) == nil)
        let slept = slowness.withLock { state in
            state.on = false
            return state.total.secondsValue
        }
        #expect(abs(slow.now - Date().timeIntervalSince1970 - slept) < 5, "the good reading kept, counted on by the monotonic clock")
    }

    @Test("the store's clock counts on from its last reading by the monotonic clock: a wall clock stepped after the reading moves no time, and the next reading says how far off it is")
    func wallClockStepped() throws {
        let store = try PostgresRunStore(conninfo: try TestPostgres.database())
        // The wall clock steps back an hour after the reading, and stays so.
        let step = Mutex(0.0)
        let clock = StoreClock(local: { Date().timeIntervalSince1970 + step.withLock { $0 } })
        let ahead = try #require(try clock.measure(store))
        #expect(abs(ahead) < 5, "the wall clock agreed with the server's when read")
        step.withLock { $0 = -3_600 }
        #expect(abs(clock.now - Date().timeIntervalSince1970) < 5, "a step after the reading moves nothing")
        #expect(abs(try #require(try clock.measure(store)) + 3_600) < 5, "the next reading says how far off it is")
        #expect(abs(clock.now - Date().timeIntervalSince1970) < 5, "and the time is still the server's")
    }

    @Test("a run's start is its first claim: handed back and claimed again, it keeps it")
    func startKeptAcrossClaims() async throws {
        let conninfo = try TestPostgres.database()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let runID = "run-0000000f0002"
        let store = try await Self.handedBackAtItsQuestion(runID, conninfo: conninfo, in: directory)
        let started = try #require(try store.run(runID)?.startedAt)
        let second = TestWorker(store: store, options: WorkerOptions(workerID: "w2"))
        #expect(try await FleetAnswerTests.waitForRecord("questionAsked", of: runID, conninfo: conninfo, count: 2))
        second.worker.stop()
        _ = try await second.summary
        #expect(try store.run(runID)?.startedAt == started)
    }

    /// The store, with the run `runID` of the question workflow (written in `directory`, which workers load it from)
    /// submitted, asked by a worker whose clock is right, and handed back there when that worker stopped.
    static func handedBackAtItsQuestion(_ runID: String, conninfo: String, in directory: TemporaryDirectory) async throws -> PostgresRunStore {
        let desk = try directory.write(FleetAnswerTests.desk, to: "desk.json")
        #expect(await matterflow(["submit", desk, "--store", conninfo, "--run-id", runID]).code == 0)
        let store = try PostgresRunStore(conninfo: conninfo)
        let first = TestWorker(store: store, options: WorkerOptions(workerID: "right"))
        #expect(try await FleetAnswerTests.waitForRecord("questionAsked", of: runID, conninfo: conninfo))
        first.worker.stop()
        #expect(try await first.summary.handedBack == 1, "\(first.lines)")
        #expect(!first.lines.contains { $0.contains("clock") }, "\(first.lines)")
        return store
    }
}

extension FleetClockTests {
    @Test("a worker restarted under its fixed ID takes the row of its dead self whatever the database's DateStyle and TimeZone: IST is read as Israel's, not India's")
    func restartUnderAnyDateStyle() throws {
        let conninfo = try TestPostgres.database()
        let setup = try PostgresConnection(conninfo)
        defer { setup.close() }
        let database = try #require(try setup.execute("SELECT current_database()").rows.first?.first ?? nil)
        try setup.execute("ALTER DATABASE \"\(database)\" SET timezone = 'Asia/Kolkata'")
        try setup.execute("ALTER DATABASE \"\(database)\" SET datestyle = 'Postgres, MDY'")
        // Times read back as text are now exact too, whatever a role or database sets for float output.
        try setup.execute("ALTER DATABASE \"\(database)\" SET extra_float_digits = -10")
        let store = try PostgresRunStore(conninfo: conninfo)
        try store.registerWorker("fixed-1", host: "host-a", pid: 21, leaseSeconds: 1)
        // It died a moment ago; its heartbeat stands still while the new one watches, which then takes the ID.
        try store.registerWorker("fixed-1", host: "host-a", pid: 22, leaseSeconds: 1) { _ in }
        #expect(try store.workers().map(\.pid) == [22])
        let started = try #require(try store.workers().first?.startedAt)
        #expect(abs(started - Date().timeIntervalSince1970) < 60, "started \(started - Date().timeIntervalSince1970) s from now")
    }
}
