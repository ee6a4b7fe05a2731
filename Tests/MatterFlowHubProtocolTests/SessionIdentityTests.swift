import MatterFlow
import MatterFlowHubProtocol
import MatterFlowSimulator
import Testing

/// A run's expected session crosses the wire, so a hub behind the protocol refuses to act in another client's session.
@Suite struct SessionIdentityTests {
    @Test func aCallForAReleasedSessionIsRefusedInTheNewOneAcrossTheWire() async throws {
        let simulated = try SimulatedHub(home: HomeDescription.defaultHome, clock: VirtualClock())
        let structure = HomeDescription.defaultHome.structure.id
        let wired = try await WiredHub.connect(simulated)
        let remote = wired.remote.hub

        let first = try await remote.prepareCommissioning(structure: structure)
        #expect(try await remote.cancelCommissioning(structure: structure))
        let second = try await simulated.prepareCommissioning(structure: structure)
        #expect(first != second)

        let stale = HubCallContext(runID: "run-a", idempotencyKey: "run-a/3", expectedSessionID: first)
        let refused = await flowError {
            try await HubCallContext.$current.withValue(stale) {
                try await remote.configureDevice(structure: structure, name: "Lamp", roomName: nil)
            }
        }
        #expect(refused?.cause == .noActiveSession, "\(String(describing: refused))")
        let released = try await HubCallContext.$current.withValue(stale) {
            try await remote.cancelCommissioning(structure: structure)
        }
        #expect(!released, "the run's own session is gone; the other client's must not be released")
        #expect(try await simulated.snapshot(structure: structure).activeSession?.sessionID == second)

        let own = HubCallContext(runID: "run-b", idempotencyKey: "run-b/2", expectedSessionID: second)
        let releasedOwn = try await HubCallContext.$current.withValue(own) {
            try await remote.cancelCommissioning(structure: structure)
        }
        #expect(releasedOwn)
    }
}
