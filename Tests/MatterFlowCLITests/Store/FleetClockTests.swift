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

    @Test("the store's clock, read through a machine's clock that is wrong, is the server's")
    func measuredOffset() throws {
        let store = try PostgresRunStore(conninfo: try TestPostgres.database())
        let behind = StoreClock(local: { Date().timeIntervalSince1970 - 3_600 })
        #expect(abs(try #require(try behind.measure(store)) + 3_600) < 5)
        #expect(abs(behind.now - Date().timeIntervalSince1970) < 5)
        // A reading whose round trip was long (the local clock jumps 100 s at each look during it) is dropped, the
        // last good one kept.
        let jumping = Mutex((on: false, total: 0.0))
        let slow = StoreClock(local: {
            jumping.withLock { state in
                if state.on { state.total += 100 }
                return Date().timeIntervalSince1970 - 3_600 + state.total
            }
        })
        #expect(abs(try #require(try slow.measure(store)) + 3_600) < 5)
        jumping.withLock { $0.on = true }
        #expect(try slow.measure(store) == nil)
        let jumped = jumping.withLock { state in
            state.on = false
            return state.total
        }
        #expect(jumped >= 200)
        #expect(abs(slow.now - Date().timeIntervalSince1970 - jumped) < 5, "the good reading's offset kept, not the long one's")
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
