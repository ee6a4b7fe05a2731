import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
@testable import MatterFlowStore
import Synchronization
import Testing

/// A `cancel.json` run releases the session a `prepare.json` run left open (that run ended `succeeded`, holding the
/// structure's fleet row): when the hub releases it but its answer is lost, the row must go all the same, or every
/// later prepare of the structure would be refused across the fleet for good.
extension PostgresStoreTests {
    @Test("a release the hub carried out though its answer was lost gives up the fleet row of the run whose session it ended")
    func lostReleaseAnswerGivesUpTheRow() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let structure = HomeDescription.defaultHome.structure.id
        let hub = try SimulatedHub(home: HomeDescription.defaultHome, clock: ManualClock())
        let prepared = "run-00000c0ee101"
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", prepared]).code == 0)
        let first = TestWorker(store: store, options: WorkerOptions(workerID: "w1"), hubs: { _ in hub })
        #expect(try await first.summary.finished == ["succeeded": 1])
        #expect(try store.sessions().map(\.runID) == [prepared], "prepare.json ends holding the structure's row")

        let cancelling = "run-00000c0ee102"
        #expect(await matterflow(["submit", Repository.workflow("cancel"), "--store", conninfo, "--run-id", cancelling]).code == 0)
        let second = TestWorker(
            store: store, options: WorkerOptions(workerID: "w2"), virtualTime: true, hubs: { _ in LostReleaseAnswer(base: hub) })
        _ = try await second.finish(after: [cancelling], conninfo: conninfo)
        #expect(try await hub.activeSession(structure: structure) == nil, "the hub released the session")
        #expect(try store.sessions().isEmpty, "\(second.lines)")
        #expect(second.lines.contains { $0.contains("the row is given up, as the hub shows no such session") }, "\(second.lines)")

        // The structure can be prepared again, on any worker.
        let again = "run-00000c0ee103"
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", again]).code == 0)
        let third = TestWorker(store: store, options: WorkerOptions(workerID: "w3"), hubs: { _ in hub })
        #expect(try await third.summary.finished == ["succeeded": 1], "\(third.lines)")
    }

    @Test("a failed release keeps the row of a run whose session the hub still shows")
    func failedReleaseKeepsTheRowOfAnActiveSession() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let hub = try SimulatedHub(home: HomeDescription.defaultHome, clock: ManualClock())
        let prepared = "run-00000c0ee111"
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", prepared]).code == 0)
        let first = TestWorker(store: store, options: WorkerOptions(workerID: "w1"), hubs: { _ in hub })
        #expect(try await first.summary.finished == ["succeeded": 1])
        let cancelling = "run-00000c0ee112"
        #expect(await matterflow(["submit", Repository.workflow("cancel"), "--store", conninfo, "--run-id", cancelling]).code == 0)
        let second = TestWorker(
            store: store, options: WorkerOptions(workerID: "w2"), virtualTime: true, hubs: { _ in RefusedRelease(base: hub) })
        _ = try await second.finish(after: [cancelling], conninfo: conninfo)
        #expect(try await hub.activeSession(structure: HomeDescription.defaultHome.structure.id)?.owner == prepared)
        #expect(try store.sessions().map(\.runID) == [prepared], "the session is still open on the hub: its row stays")
    }
}

extension PostgresStoreTests {
    @Test("a release whose worker died after the hub carried it out gives up, at takeover, the fleet row of the run whose session it ended")
    func releaseOfADeadWorkerGivesUpTheRowAtTakeover() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let structure = HomeDescription.defaultHome.structure.id
        let hub = try SimulatedHub(home: HomeDescription.defaultHome, clock: ManualClock())
        let prepared = "run-00000c0ee121"
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", prepared]).code == 0)
        let first = TestWorker(store: store, options: WorkerOptions(workerID: "w1"), hubs: { _ in hub })
        #expect(try await first.summary.finished == ["succeeded": 1])

        let cancelling = "run-00000c0ee122"
        #expect(await matterflow(["submit", Repository.workflow("cancel"), "--store", conninfo, "--run-id", cancelling]).code == 0)
        let held = HeldReleaseAnswer(base: hub)
        let doomed = TestWorker(store: store, options: WorkerOptions(workerID: "doomed"), hubs: { _ in held })
        #expect(try await FleetAnswerTests.waitForRecord("intent", of: cancelling, conninfo: conninfo))
        #expect(try await Self.eventually { held.released })
        #expect(try store.sessions().map(\.runID) == [prepared], "the hub has released the session; the row is still there")
        // The worker dies here: its lease is gone, as after a SIGKILL once the lease ran out.
        try store.execute(
            "UPDATE matterflow_runs SET worker_id = 'dead', lease_until = now() - interval '1 second' WHERE run_id = $1", [cancelling],
            doing: "test setup")
        let rescuer = TestWorker(store: store, options: WorkerOptions(workerID: "rescuer"), hubs: { _ in LostReleaseAnswer(base: hub) })
        _ = try await rescuer.finish(after: [cancelling], conninfo: conninfo)
        #expect(try store.run(cancelling)?.recovered == true, "\(rescuer.lines)")
        #expect(try store.sessions().isEmpty, "\(rescuer.lines)")
        #expect(try await hub.activeSession(structure: structure) == nil)
        held.answer()
        doomed.worker.stop()
        _ = try await doomed.summary
        #expect(try store.sessions().isEmpty)
    }
}

/// A hub whose `cancelCommissioning` is carried out at once and answered only when the test says.
final class HeldReleaseAnswer: ForwardingHub, RecoverableHub {
    let simulated: SimulatedHub
    var base: any Hub { simulated }
    private let gate = AsyncStream<Void>.makeStream()
    private let done = Mutex(false)

    init(base: SimulatedHub) { simulated = base }

    /// Whether the hub has released the session.
    var released: Bool { done.withLock { $0 } }

    /// Lets the held answer go.
    func answer() {
        gate.continuation.yield()
        gate.continuation.finish()
    }

    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        let released = try await simulated.cancelCommissioning(structure: structure)
        done.withLock { $0 = true }
        for await _ in gate.stream { break }
        return released
    }

    func activeSession(structure: StructureID) async throws -> HubSessionInfo? {
        try await simulated.activeSession(structure: structure)
    }
}

/// A hub that carries out `cancelCommissioning` and then loses its answer; it tells recovery its session.
struct LostReleaseAnswer: ForwardingHub, RecoverableHub {
    let simulated: SimulatedHub
    var base: any Hub { simulated }

    init(base: SimulatedHub) { simulated = base }

    func activeSession(structure: StructureID) async throws -> HubSessionInfo? {
        try await simulated.activeSession(structure: structure)
    }

    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        _ = try await base.cancelCommissioning(structure: structure)
        throw FlowError(.hubUnreachable, "the answer was lost")
    }
}

/// A hub that refuses `cancelCommissioning` without doing anything; it tells recovery its session.
struct RefusedRelease: ForwardingHub, RecoverableHub {
    let simulated: SimulatedHub
    var base: any Hub { simulated }

    init(base: SimulatedHub) { simulated = base }

    func activeSession(structure: StructureID) async throws -> HubSessionInfo? {
        try await simulated.activeSession(structure: structure)
    }

    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        throw FlowError(.hubUnreachable, "the hub is not reachable")
    }
}
