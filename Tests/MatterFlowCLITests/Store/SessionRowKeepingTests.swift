import MatterFlow
import MatterFlowSimulator
import Synchronization
import Testing

@testable import MatterFlowStore

/// A run settled by takeover that ended `succeeded` keeps the structure's fleet session row only while the hub shows
/// its session active: one whose in-doubt release the hub had carried out must not block the structure for good.
@Suite struct SessionRowKeepingTests {
    @Test("the row is kept for the run's own active session, given up when the hub shows none or another run's")
    func keptOnlyForTheRunsActiveSession() async throws {
        var home = HomeDescription.defaultHome
        home.structure.id = "kept"
        let hub = try SimulatedHub(home: home, clock: ManualClock())
        #expect(await !StoreWorker.keepsSession(of: "run-a", on: hub, structure: "kept"), "no session: a completed run's row goes")
        _ = try await HubCallContext.$current.withValue(HubCallContext(runID: "run-a", idempotencyKey: "run-a/1")) {
            try await hub.prepareCommissioning(structure: "kept")
        }
        #expect(await StoreWorker.keepsSession(of: "run-a", on: hub, structure: "kept"), "its prepare's session is active")
        #expect(await !StoreWorker.keepsSession(of: "run-b", on: hub, structure: "kept"), "the active session is run-a's")
        _ = try await HubCallContext.$current.withValue(HubCallContext(runID: "run-a", idempotencyKey: "run-a/2")) {
            try await hub.cancelCommissioning(structure: "kept")
        }
        #expect(await !StoreWorker.keepsSession(of: "run-a", on: hub, structure: "kept"), "released on the hub")
        // A hub that cannot read the structure's session back (here: it does not know the structure) keeps the row.
        #expect(await StoreWorker.keepsSession(of: "run-a", on: hub, structure: "elsewhere"))
    }
}

/// The same rule at a real takeover: a `prepare.json` run whose worker died while the hub opened its session is
/// resumed to `succeeded` and keeps its row, as the session stays open for the runs that continue in it.
extension PostgresStoreTests {
    @Test("a prepare settled by takeover to succeeded keeps the structure's row while the hub shows its session")
    func resumedPrepareKeepsItsRow() async throws {
        let conninfo = try TestPostgres.database()
        let store = try PostgresRunStore(conninfo: conninfo)
        let hub = try SimulatedHub(home: HomeDescription.defaultHome, clock: ManualClock())
        let runID = "run-00000c0ee131"
        #expect(await matterflow(["submit", Repository.workflow("prepare"), "--store", conninfo, "--run-id", runID]).code == 0)
        let held = HeldPrepareAnswer(simulated: hub)
        let doomed = TestWorker(store: store, options: WorkerOptions(workerID: "doomed"), hubs: { _ in held })
        #expect(try await FleetAnswerTests.waitForRecord("intent", of: runID, conninfo: conninfo))
        #expect(try await Self.eventually { held.opened })
        // The worker dies here: its lease is gone, as after a SIGKILL once the lease ran out.
        try store.execute(
            "UPDATE matterflow_runs SET worker_id = 'dead', lease_until = now() - interval '1 second' WHERE run_id = $1", [runID],
            doing: "test setup")
        // Nor does it claim anything more, as a dead worker would not: its run, whose lease ran out, is the rescuer's.
        doomed.worker.stop()
        let rescuer = TestWorker(store: store, options: WorkerOptions(workerID: "rescuer", resume: true), hubs: { _ in hub })
        _ = try await rescuer.finish(after: [runID], conninfo: conninfo)
        let run = try #require(try store.run(runID))
        #expect(run.status == "succeeded", "\(run.notes) \(rescuer.lines)")
        #expect(run.recovered)
        #expect(try await hub.activeSession(structure: HomeDescription.defaultHome.structure.id)?.owner == runID)
        #expect(try store.sessions().map(\.runID) == [runID], "the session is open on the hub: the run keeps its row")
        held.answer()
        doomed.worker.stop()
        _ = try await doomed.summary
    }
}

/// A run that ends `succeeded` without holding a session keeps no row: the row taken before its prepare reached the
/// hub goes when the prepare timed out and the session the hub opened late was released by the run's end.
extension PostgresStoreTests {
    static let giveUpWorkflow = #"""
        {"workflow": "try-prepare", "version": 1, "start": "prepare", "onCancel": "release", "states": {
          "prepare": {"type": "action", "operation": "prepareCommissioning", "timeoutSeconds": 1, "result": "session",
                      "next": "prepared", "onError": [{"errors": ["*"], "next": "gaveUp"}]},
          "prepared": {"type": "succeed", "output": {"sessionID": "${vars.session.sessionID}"}},
          "gaveUp": {"type": "succeed", "output": {"prepared": false}},
          "release": {"type": "action", "operation": "cancelCommissioning", "next": "cancelled",
                      "onError": [{"errors": ["*"], "next": "cancelled"}]},
          "cancelled": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "cancelled"}
        }}
        """#

    /// With a hub that says who holds the structure's session, the run's late release gives the row up (the fleet
    /// wraps `cancelCommissioning`). With one that cannot, the run leaves its late session to the hub's lease rather
    /// than release it blind, and the row goes as the run ends holding nothing; kept, it would refuse every later
    /// prepare of the structure across the fleet long after the hub's lease freed it.
    @Test(
        "a run that succeeds after its prepare timed out keeps no row, its late session released or left to the hub",
        arguments: [true, false])
    func succeededWithoutASessionKeepsNoRow(hubTellsWhoHolds: Bool) async throws {
        let submitted = try await GiveUpRun(runID: "run-00000da7e11a")
        defer { submitted.directory.remove() }
        let (store, hub, runID) = (submitted.store, submitted.hub, submitted.runID)
        let held = HeldPrepareAnswer(simulated: hub, answersWhoHolds: hubTellsWhoHolds ? .max : 0)
        let clock = ManualClock()
        let worker = TestWorker(store: store, options: WorkerOptions(workerID: "solo"), hubs: { _ in held }, clock: clock)
        #expect(try await FleetAnswerTests.waitForRecord("intent", of: runID, conninfo: submitted.conninfo))
        try await submitted.timeOut(held, on: clock)
        _ = try await worker.finish(after: [runID], conninfo: submitted.conninfo)
        let run = try #require(try store.run(runID))
        #expect(run.status == "succeeded", "\(run.notes) \(worker.lines)")
        let active = try await hub.activeSession(structure: HomeDescription.defaultHome.structure.id)
        #expect((active == nil) == hubTellsWhoHolds, "released only when the hub could say it still held it")
        #expect(try store.sessions().isEmpty, "the run holds no session: its row goes (\(worker.lines))")
    }
}

extension PostgresStoreTests {
    /// A takeover that resumes such a run, whose prepare times out again and whose hub then cannot say who holds the
    /// session that prepare opened late: the continued run ends `succeeded` holding nothing, so the row goes, even
    /// though the hub cannot be asked about it at the end.
    @Test("a run a takeover continues to succeeded without a session gives the structure's row up")
    func takeoverContinuedWithoutASessionKeepsNoRow() async throws {
        let submitted = try await GiveUpRun(runID: "run-00000da7e11b")
        defer { submitted.directory.remove() }
        let (store, hub, runID, conninfo) = (submitted.store, submitted.hub, submitted.runID, submitted.conninfo)
        // The first worker's prepare never reaches the hub; the worker dies while it waits.
        let stalled = StalledPrepare(simulated: hub)
        let doomed = TestWorker(store: store, options: WorkerOptions(workerID: "doomed"), hubs: { _ in stalled })
        #expect(try await FleetAnswerTests.waitForRecord("intent", of: runID, conninfo: conninfo))
        try submitted.leaveToADeadWorker()
        doomed.worker.stop()
        // The rescuer's hub answers recovery's question, then no more: the late session is left to its lease.
        let held = HeldPrepareAnswer(simulated: hub, answersWhoHolds: 1)
        let clock = ManualClock()
        let rescuer = TestWorker(
            store: store, options: WorkerOptions(workerID: "rescuer", resume: true), hubs: { _ in held }, clock: clock)
        try await submitted.timeOut(held, on: clock)
        _ = try await rescuer.finish(after: [runID], conninfo: conninfo)
        let run = try #require(try store.run(runID))
        #expect(run.status == "succeeded", "\(run.notes) \(rescuer.lines)")
        #expect(run.recovered)
        #expect(try await hub.activeSession(structure: HomeDescription.defaultHome.structure.id) != nil, "left to the hub's lease")
        #expect(try store.sessions().isEmpty, "the continued run holds no session: its row goes (\(rescuer.lines))")
        stalled.fail()
        _ = try await doomed.summary
    }
}

extension PostgresStoreTests {
    /// A worker that dies after its run's last records were committed but before its final status was: the takeover
    /// finds the run finished, and its terminal record says whether it held its session. A run that ended holding
    /// nothing gives its row up even when the hub cannot say who holds the structure's session.
    @Test("a takeover of a run that had finished without a session gives its row up, whatever the hub can say")
    func takeoverOfAFinishedRunKeepsNoRowItDidNotHold() async throws {
        let submitted = try await GiveUpRun(runID: "run-00000da7e11c")
        defer { submitted.directory.remove() }
        let (store, hub, runID, conninfo) = (submitted.store, submitted.hub, submitted.runID, submitted.conninfo)
        let structure = HomeDescription.defaultHome.structure.id
        let late = HeldPrepareAnswer(simulated: hub, answersWhoHolds: 0)
        let clock = ManualClock()
        let first = TestWorker(store: store, options: WorkerOptions(workerID: "first"), hubs: { _ in late }, clock: clock)
        #expect(try await FleetAnswerTests.waitForRecord("intent", of: runID, conninfo: conninfo))
        try await submitted.timeOut(late, on: clock)
        _ = try await first.finish(after: [runID], conninfo: conninfo)
        #expect(try store.run(runID)?.status == "succeeded", "\(first.lines)")
        // As if the worker had died between the commit of its run's records and that of its final status.
        try submitted.leaveToADeadWorker()
        try store.execute(
            "INSERT INTO matterflow_sessions (structure_id, run_id) VALUES ($1, $2)", [structure, runID], doing: "test setup")
        let rescuer = TestWorker(
            store: store, options: WorkerOptions(workerID: "rescuer"), hubs: { _ in HeldPrepareAnswer(simulated: hub, answersWhoHolds: 0) })
        _ = try await rescuer.finish(after: [runID], conninfo: conninfo)
        let run = try #require(try store.run(runID))
        #expect(run.status == "succeeded", "\(run.notes) \(rescuer.lines)")
        #expect(try await hub.activeSession(structure: structure) != nil, "the late session is left to the hub's lease")
        #expect(try store.sessions().isEmpty, "the run's last record says it held no session: its row goes (\(rescuer.lines))")
    }
}

/// `PostgresStoreTests.giveUpWorkflow` submitted to a store of its own, for a simulated home.
struct GiveUpRun {
    let conninfo: String
    let store: PostgresRunStore
    /// Holds the workflow file; the test removes it.
    let directory: TemporaryDirectory
    let hub: SimulatedHub
    let runID: String

    init(runID: String) async throws {
        conninfo = try TestPostgres.database()
        store = try PostgresRunStore(conninfo: conninfo)
        hub = try SimulatedHub(home: HomeDescription.defaultHome, clock: ManualClock())
        directory = try TemporaryDirectory()
        self.runID = runID
        let workflow = try directory.write(PostgresStoreTests.giveUpWorkflow, to: "try-prepare.json")
        #expect(await matterflow(["submit", workflow, "--store", conninfo, "--run-id", runID]).code == 0)
    }

    /// Leaves the run as a worker that died leaves it: `running`, leased to a worker that is gone, its lease run out.
    func leaveToADeadWorker() throws {
        try store.execute(
            "UPDATE matterflow_runs SET status = 'running', worker_id = 'dead', lease_until = now() - interval '1 second' WHERE run_id = $1",
            [runID], doing: "test setup")
    }

    /// Once `held` has opened the session, moves the run's `clock` through the prepare's 1 s timeout: the hub's
    /// answer then comes late, when the timeout cancels the call.
    func timeOut(_ held: HeldPrepareAnswer, on clock: ManualClock) async throws {
        #expect(try await PostgresStoreTests.eventually { held.opened })
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(1))
    }
}

/// A prepare that never reaches the hub: it waits until ``fail()`` (or its task is cancelled), then fails.
final class StalledPrepare: SimulatedFront {
    let simulated: SimulatedHub
    private let gate = AsyncStream<Void>.makeStream()

    init(simulated: SimulatedHub) { self.simulated = simulated }

    /// Ends the waiting prepare, with a failure.
    func fail() { gate.continuation.finish() }

    func prepareCommissioning(structure: StructureID) async throws -> String {
        for await _ in gate.stream {}
        throw FlowError(.hubUnreachable, "the hub is not reachable")
    }
}

/// Carries out `prepareCommissioning` at once, and answers only when the test says.
final class HeldPrepareAnswer: SimulatedFront {
    let simulated: SimulatedHub
    let held = HeldAnswer()
    /// How many times the hub says who holds the structure's session; asked again, it fails (`hubUnreachable`).
    let answersWhoHolds: Int
    private let asked = Mutex(0)

    init(simulated: SimulatedHub, answersWhoHolds: Int = .max) {
        self.simulated = simulated
        self.answersWhoHolds = answersWhoHolds
    }

    func activeSession(structure: StructureID) async throws -> HubSessionInfo? {
        let count = asked.withLock { count in
            count += 1
            return count
        }
        guard count <= answersWhoHolds else { throw FlowError(.hubUnreachable, "the hub is not reachable") }
        return try await simulated.activeSession(structure: structure)
    }

    /// Whether the hub has opened the session.
    var opened: Bool { held.carriedOut }

    /// Lets the held answer go.
    func answer() { held.answer() }

    func prepareCommissioning(structure: StructureID) async throws -> String {
        try await held.hold { try await simulated.prepareCommissioning(structure: structure) }
    }
}
