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
                $0.hasPrefix("worker ahead: warning: this machine's clock is 400") && $0.contains(" s ahead of the store's; the worker stamps records")
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
        // A reading whose round trip was long (the local clock jumps 1 s across it) is dropped, the last one kept.
        let jumps = Mutex(0.0)
        let slow = StoreClock(local: { jumps.withLock { $0 += 1; return Date().timeIntervalSince1970 + $0 } })
        #expect(try slow.measure(store) == nil)
        #expect(abs(slow.now - Date().timeIntervalSince1970) > 1, "no reading kept: the local clock as it is")
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

/// `worker --wait-for-store`: a worker started beside a server, or a migration, that is not ready yet.
@Suite("A worker waiting for its store", .serialized, .enabled(if: TestPostgres.available, "no PostgreSQL server binary (install postgresql; .ci/run does)"))
struct WorkerStoreWaitTests {
    @Test("--wait-for-store: a database made and migrated a second after the worker started is waited for, said once; without it, exit 2 at once; past it, exit 2")
    func waitsForTheStore() async throws {
        let server = try TestPostgres.server()
        let name = "mf_late_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(12)
        let conninfo = server.split(separator: " ").filter { !$0.hasPrefix("dbname=") }.joined(separator: " ") + " dbname=\(name)"
        let impatient = await matterflow(["worker", "--store", conninfo, "--exit-when-idle"])
        #expect(impatient.code == 2 && impatient.stderr.hasPrefix("error[storeUnavailable]"), "\(impatient.stderr)")
        let short = await matterflow(["worker", "--store", conninfo, "--exit-when-idle", "--wait-for-store", "1"])
        #expect(short.code == 2, "\(short.stderr)")
        #expect(short.stderr.contains("waiting up to 1 s for it (--wait-for-store)"), "\(short.stderr)")

        // Made, then migrated, a little later, from a thread of its own.
        Thread.detachNewThread {
            usleep(1_000_000)
            guard let admin = try? PostgresConnection(server) else { return }
            _ = try? admin.execute("CREATE DATABASE \(name)")
            admin.close()
            usleep(1_500_000)
            guard let connection = try? PostgresConnection(conninfo) else { return }
            _ = try? StoreMigrator(connection: connection).migrate()
            connection.close()
        }
        let patient = await matterflow(["worker", "--store", conninfo, "--exit-when-idle", "--wait-for-store", "60"])
        #expect(patient.code == 0, "\(patient.stderr)")
        #expect(patient.stderr.components(separatedBy: "(--wait-for-store)").count == 2, "said once: \(patient.stderr)")
        #expect(patient.stderr.contains("worker: the store is reachable and migrated; starting"), "\(patient.stderr)")
        #expect(await matterflow(["worker", "--store", conninfo, "--wait-for-store", "x"]).code == 64)
    }
}
