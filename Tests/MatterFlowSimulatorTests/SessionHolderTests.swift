import MatterFlow
import MatterFlowSimulator
import Testing

/// Who holds a structure's session, as the simulated hub tells it: in its status, in the `sessionBusy` of a second
/// prepare, and to another process through the saved home.
@Suite("session holder")
struct SessionHolderTests {
    let structure = TestHomes.structureID

    func prepare(_ hub: SimulatedHub, as runID: String?) async throws -> String {
        try await HubCallContext.$current.withValue(runID.map { HubCallContext(runID: $0, idempotencyKey: $0 + "/1") }) {
            try await hub.prepareCommissioning(structure: structure)
        }
    }

    @Test("the status names the session, the run that opened it and when; a second prepare names them too")
    func statusAndRefusalNameTheHolder() async throws {
        let (hub, _) = try TestHomes.hub()
        await hub.setTimeOrigin(1_700_000_000)
        #expect(try await hub.status(structure: structure).holder == nil, "no session, no holder")
        let session = try await prepare(hub, as: "run-first")
        let holder = SessionHolder(sessionID: session, owner: "run-first", openedAt: 1_700_000_000)
        #expect(try await hub.status(structure: structure).holder == holder)

        let error = try #require(await expectFailure(.sessionBusy) { try await prepare(hub, as: "run-second") })
        #expect(
            error.message
                == "another commissioning session is prepared on this structure, held by run run-first (session \(session)) since 2023-11-14T22:13:20Z: let run run-first finish, recover it if it was interrupted, release it with cancel.json, or wait for its lease to end")
        #expect(error.sessionHolder == holder)
        // A run of the holder's own ID (submitted again after a store lost the first) is not told to wait for itself.
        let again = try #require(await expectFailure(.sessionBusy) { try await prepare(hub, as: "run-first") })
        #expect(again.message.contains(": run-first is this run's own ID, probably an earlier attempt of it"), "\(again.message)")

        #expect(try await hub.cancelCommissioning(structure: structure))
        #expect(try await hub.status(structure: structure).holder == nil, "a released session has no holder")
    }

    @Test("a session being commissioned names its commissioning attempt")
    func commissioningAttemptIsNamed() async throws {
        var home = TestHomes.basic()
        home.activeSession = CommissioningSessionSnapshot(
            phase: .commissioning, sessionID: "session-9", topology: Topology(ecosystemName: "Other App", homes: ["Test Home"]),
            commissioningID: "attempt-4")
        let (hub, _) = try TestHomes.hub(home)
        #expect(try await hub.status(structure: structure).holder == SessionHolder(sessionID: "session-9", commissioningID: "attempt-4"))
        let error = await expectFailure(.sessionBusy) { try await prepare(hub, as: "run-late") }
        #expect(
            error?.message
                == "another commissioning session is commissioning on this structure (session session-9, commissioning attempt-4): let the run that holds it finish, recover that run if it was interrupted, release it with cancel.json, or wait for its lease to end")
    }

    @Test("the opening time is saved with the owner, so another process names both")
    func savedHolder() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        func open() throws -> SimulatedHub {
            try SimulatedHub(stateStore: try HomeStateStore(directory: directory, startingFrom: TestHomes.basic()), clock: ManualClock())
        }
        let first = try open()
        await first.setTimeOrigin(1_000)
        let session = try await prepare(first, as: "run-owner")
        let saved = try #require(try HomeStateStore.loadSaved(directory: directory)?.activeSession)
        #expect(saved.openedAt == 1_000)

        let second = try open()
        await second.setTimeOrigin(1_005)
        #expect(try await second.status(structure: structure).holder == SessionHolder(sessionID: session, owner: "run-owner", openedAt: 1_000))
        // Activity renews the lease, not the opening time.
        _ = try await second.createAddDeviceRequest(structure: structure, topology: Topology(ecosystemName: "Google Home", homes: []))
        #expect(try HomeStateStore.loadSaved(directory: directory)?.activeSession?.openedAt == 1_000)
    }
}
