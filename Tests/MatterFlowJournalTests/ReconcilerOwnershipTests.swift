import MatterFlow
import MatterFlowSimulator
@testable import MatterFlowJournal
import Testing

/// Whose an active session is, for recovery: the owner the hub names decides, as session IDs can repeat (a home
/// whose state was reset issues the same IDs again, and another run may hold one of them now).
@Suite struct ReconcilerOwnershipTests {
    static func reconciler(owner: String?, journaled: Set<String>) throws -> Reconciler {
        let session = HubSessionInfo(sessionID: "session-1", phase: .commissioned, owner: owner, pendingDeviceIDs: ["device-1"])
        return Reconciler(
            hub: try SimulatedHub(home: Homes.basic(), clock: VirtualClock()), structure: "s", runID: "run-a", session: session, knowsOwners: owner != nil,
            sessionActive: true, journaledSessions: journaled, journaledDevices: [])
    }

    @Test("a session the hub says another run owns is not this run's, even under an ID this run's journal shows")
    func theOwnerDecides() throws {
        #expect(try !Self.reconciler(owner: "run-b", journaled: ["session-1"]).holdsSession)
        #expect(try Self.reconciler(owner: "run-a", journaled: []).holdsSession)
        #expect(try Self.reconciler(owner: nil, journaled: ["session-1"]).holdsSession, "no owner named: the journaled ID")
        #expect(try !Self.reconciler(owner: nil, journaled: ["session-0"]).holdsSession)
    }
}
