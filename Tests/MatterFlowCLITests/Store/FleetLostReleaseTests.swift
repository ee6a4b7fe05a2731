import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
@testable import MatterFlowStore
import Synchronization
import Testing

/// A `cancel.json` run releases the session a `prepare.json` run left open (that run ended `succeeded`, holding the
/// structure's fleet row): when the hub releases it but its answer is lost, or the releasing run's worker dies
/// before the row goes, the row must go all the same, or every later prepare of the structure would be refused
/// across the fleet for good. A session the hub still shows keeps its row.
extension PostgresStoreTests {
    /// A fresh store whose structure's session a `prepare.json` run (`prepared`) opened on `hub` and left open,
    /// holding the row; then a `cancel.json` run (`cancelling`) submitted.
    struct LeftOpenSession {
        let conninfo: String
        let store: PostgresRunStore
        let hub: SimulatedHub
        let prepared: String
        let cancelling: String

        init(_ prefix: String) async throws {
            conninfo = try TestPostgres.database()
            store = try PostgresRunStore(conninfo: conninfo)
            let hub = try SimulatedHub(home: HomeDescription.defaultHome, clock: ManualClock())
            self.hub = hub
            prepared = prefix + "1"
            cancelling = prefix + "2"
            #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", prepared]).code == 0)
            let first = TestWorker(store: store, options: WorkerOptions(workerID: "w1"), hubs: { _ in hub })
            #expect(try await first.summary.finished == ["succeeded": 1])
            #expect(try store.sessions().map(\.runID) == [prepared], "prepare.json ends holding the structure's row")
            #expect(await matterflow(["submit", Repository.workflow("cancel"), "--store", conninfo, "--run-id", cancelling]).code == 0)
        }

        /// Runs the cancel on a worker whose hub is `front`; returns the worker once the run has finished.
        func cancel(through front: any Hub, workerID: String = "w2") async throws -> TestWorker {
            let worker = TestWorker(store: store, options: WorkerOptions(workerID: workerID), virtualTime: true, hubs: { _ in front })
            _ = try await worker.finish(after: [cancelling], conninfo: conninfo)
            return worker
        }

        var activeSession: HubSessionInfo? {
            get async throws { try await hub.activeSession(structure: HomeDescription.defaultHome.structure.id) }
        }
    }

    @Test("a release the hub carried out though its answer was lost gives up the fleet row of the run whose session it ended")
    func lostReleaseAnswerGivesUpTheRow() async throws {
        let left = try await LeftOpenSession("run-00000c0ee10")
        let worker = try await left.cancel(through: LostReleaseAnswer(simulated: left.hub))
        #expect(try await left.activeSession == nil, "the hub released the session")
        #expect(try left.store.sessions().isEmpty, "\(worker.lines)")
        #expect(worker.lines.contains { $0.contains("the row is given up, as the hub shows no such session") }, "\(worker.lines)")
        // The structure can be prepared again, on any worker.
        let again = "run-00000c0ee103"
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", left.conninfo, "--run-id", again]).code == 0)
        let third = TestWorker(store: left.store, options: WorkerOptions(workerID: "w3"), hubs: { [hub = left.hub] _ in hub })
        #expect(try await third.summary.finished == ["succeeded": 1], "\(third.lines)")
    }

    @Test("a failed release keeps the row of a run whose session the hub still shows")
    func failedReleaseKeepsTheRowOfAnActiveSession() async throws {
        let left = try await LeftOpenSession("run-00000c0ee11")
        _ = try await left.cancel(through: RefusedRelease(simulated: left.hub))
        #expect(try await left.activeSession?.owner == left.prepared)
        #expect(try left.store.sessions().map(\.runID) == [left.prepared], "the session is still open on the hub: its row stays")
    }

    @Test("a release that finds no session on the hub gives up the row of a run whose session lapsed there")
    func releaseAfterALapsedSessionGivesUpTheRow() async throws {
        let left = try await LeftOpenSession("run-00000c0ee13")
        // The session ends on the hub without any run of the fleet: its lease ran out, or another client cancelled it.
        _ = try await left.hub.cancelCommissioning(structure: HomeDescription.defaultHome.structure.id)
        let worker = try await left.cancel(through: left.hub)
        #expect(try left.store.run(left.cancelling)?.status == "succeeded")
        #expect(try left.store.sessions().isEmpty, "\(worker.lines)")
    }

    @Test("a release whose worker died after the hub carried it out gives up, at takeover, the fleet row of the run whose session it ended")
    func releaseOfADeadWorkerGivesUpTheRowAtTakeover() async throws {
        let left = try await LeftOpenSession("run-00000c0ee12")
        let held = HeldReleaseAnswer(simulated: left.hub)
        let doomed = TestWorker(store: left.store, options: WorkerOptions(workerID: "doomed"), hubs: { _ in held })
        #expect(try await FleetAnswerTests.waitForRecord("intent", of: left.cancelling, conninfo: left.conninfo))
        #expect(try await Self.eventually { held.released })
        #expect(try left.store.sessions().map(\.runID) == [left.prepared], "the hub has released the session; the row is still there")
        // The worker dies here: its lease is gone, as after a SIGKILL once the lease ran out.
        try left.store.execute(
            "UPDATE matterflow_runs SET worker_id = 'dead', lease_until = now() - interval '1 second' WHERE run_id = $1",
            [left.cancelling], doing: "test setup")
        // Nor does it claim anything more, as a dead worker would not: its run, whose lease ran out, is the rescuer's.
        doomed.worker.stop()
        let rescuer = try await left.cancel(through: left.hub, workerID: "rescuer")
        #expect(try left.store.run(left.cancelling)?.recovered == true, "\(rescuer.lines)")
        #expect(try left.store.sessions().isEmpty, "\(rescuer.lines)")
        #expect(try await left.activeSession == nil)
        held.answer()
        doomed.worker.stop()
        _ = try await doomed.summary
    }
}

/// A hub in front of a simulated one, which tells recovery the structure's session as the simulated hub does.
protocol SimulatedFront: ForwardingHub, RecoverableHub {
    var simulated: SimulatedHub { get }
}

extension SimulatedFront {
    var base: any Hub { simulated }

    func activeSession(structure: StructureID) async throws -> HubSessionInfo? {
        try await simulated.activeSession(structure: structure)
    }
}

/// Carries out `cancelCommissioning`, then loses its answer.
struct LostReleaseAnswer: SimulatedFront {
    let simulated: SimulatedHub

    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        _ = try await simulated.cancelCommissioning(structure: structure)
        throw FlowError(.hubUnreachable, "the answer was lost")
    }
}

/// Refuses `cancelCommissioning` without doing anything.
struct RefusedRelease: SimulatedFront {
    let simulated: SimulatedHub

    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        throw FlowError(.hubUnreachable, "the hub is not reachable")
    }
}

/// A hub call carried out at once whose answer is held until the test lets it go.
final class HeldAnswer: Sendable {
    private let gate = AsyncStream<Void>.makeStream()
    private let done = Mutex(false)

    /// Whether the call has been carried out.
    var carriedOut: Bool { done.withLock { $0 } }

    /// Lets the held answer go.
    func answer() {
        gate.continuation.yield()
        gate.continuation.finish()
    }

    /// Carries out `call`, then holds its answer until ``answer()``.
    func hold<Value: Sendable>(_ call: () async throws -> Value) async throws -> Value {
        let value = try await call()
        done.withLock { $0 = true }
        for await _ in gate.stream { break }
        return value
    }
}

/// Carries out `cancelCommissioning` at once, and answers only when the test says.
final class HeldReleaseAnswer: SimulatedFront {
    let simulated: SimulatedHub
    let held = HeldAnswer()

    init(simulated: SimulatedHub) { self.simulated = simulated }

    /// Whether the hub has released the session.
    var released: Bool { held.carriedOut }

    /// Lets the held answer go.
    func answer() { held.answer() }

    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        try await held.hold { try await simulated.cancelCommissioning(structure: structure) }
    }
}
