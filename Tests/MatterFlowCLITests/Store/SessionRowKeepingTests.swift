import MatterFlow
import MatterFlowSimulator
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
