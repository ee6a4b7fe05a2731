import MatterFlow
import MatterFlowSimulator
import Testing

/// A session call whose reply was lost is sent again: a `createAddDeviceRequest` with the same topology, a
/// `commissionDevice` with the same commissioning ID (a retry with `repeatSafety`, or recovery). The hub knows what it
/// did and answers as it answered, never with a second request or device and never with `sessionOutOfOrder`.
@Suite("Simulated hub: repeated session calls")
struct RepeatedSessionCallTests {
    let structure = TestHomes.structureID

    /// A hub whose commission takes 30 s of simulated time, with the device commissioned as attempt `c-1`.
    private func commissionedHub() async throws -> (SimulatedHub, ManualClock, [String]) {
        var home = TestHomes.basic()
        home.simulation.latencySeconds[.commissionDevice] = 30
        let (hub, clock) = try TestHomes.hub(home)
        try await prepareAndRequest(hub)
        let task = Task {
            try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c-1")
        }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(30))
        try await task.value
        let pending = try #require(try await hub.snapshot(structure: structure).activeSession?.deviceIDs)
        return (hub, clock, pending)
    }

    @Test("the finished attempt repeated answers at once with success and adds no device, commissioned or configured")
    func repeatSucceeds() async throws {
        let (hub, _, pending) = try await commissionedHub()
        let before = try await hub.snapshot(structure: structure)
        // No clock advance: a repeat does not wait out the latency again.
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c-1")
        #expect(try await hub.snapshot(structure: structure) == before)

        try await hub.configureDevice(structure: structure, name: "Desk Lamp", roomName: "Kitchen")
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c-1")
        let session = try #require(try await hub.snapshot(structure: structure).activeSession)
        #expect(session.phase == .configured)
        #expect(session.deviceName == "Desk Lamp")
        #expect(session.deviceIDs == pending)
        #expect(try await hub.completeCommissioning(structure: structure) == pending)
        #expect(try await hub.snapshot(structure: structure).devices.count == before.devices.count)
    }

    @Test("a fault planned for the repeat still applies: the repeat fails as planned, and the device stays the one")
    func faultsApplyToTheRepeat() async throws {
        let (hub, _, pending) = try await commissionedHub()
        let unreachable = FlowError(.hubUnreachable, "no route")
        await hub.addFault(.fail(.commissionDevice, attempts: 2...2, with: unreachable), structure: structure)
        await expectFailure(.hubUnreachable) {
            try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c-1")
        }
        #expect(try await hub.snapshot(structure: structure).activeSession?.deviceIDs == pending)
    }

    @Test("another attempt, or the same attempt with another payload, is refused with sessionOutOfOrder")
    func otherAttemptsRefused() async throws {
        let (hub, _, pending) = try await commissionedHub()
        await expectFailure(.sessionOutOfOrder) {
            try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c-2")
        }
        let error = await expectFailure(.sessionOutOfOrder) {
            try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.lampQR, commissioningID: "c-1")
        }
        #expect(error?.message.contains("already commissioned another device") == true)
        let session = try #require(try await hub.snapshot(structure: structure).activeSession)
        #expect(session.phase == .commissioned)
        #expect(session.deviceIDs == pending)
    }

    @Test("the hub reports the attempt whose device is pending, and a hub reopened on the saved state knows it")
    func attemptSurvivesReload() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        // Each hub opened so stands for another process on the same state directory.
        func open() throws -> SimulatedHub { try SharedStateDirectoryTests.openHub(directory) }
        let first = try open()
        try await prepareAndRequest(first)
        try await first.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c-1")
        #expect(try await first.activeSession(structure: structure)?.commissioningID == "c-1")

        let second = try open()
        try await second.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c-1")
        let saved = try #require(try HomeStateStore.loadSaved(directory: directory))
        #expect(saved.activeSession?.phase == .commissioned)
        #expect(saved.activeSession?.commissioningID == "c-1")
        #expect(saved.activeSession?.deviceIDs.count == 1)
        await expectFailure(.sessionOutOfOrder) {
            try await second.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c-2")
        }
    }

    @Test("the same add-device request again answers with the request made, under its ID, also after a reload")
    func repeatedRequest() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        // Each hub opened so stands for another process on the same state directory.
        func open() throws -> SimulatedHub { try SharedStateDirectoryTests.openHub(directory) }
        let first = try open()
        _ = try await first.prepareCommissioning(structure: structure)
        let topology = Topology(ecosystemName: "Google Home", homes: [])
        let made = try await first.createAddDeviceRequest(structure: structure, topology: topology)
        #expect(try await first.createAddDeviceRequest(structure: structure, topology: topology) == made)
        let second = try open()
        #expect(try await second.createAddDeviceRequest(structure: structure, topology: topology) == made)
        #expect(try HomeStateStore.loadSaved(directory: directory)?.activeSession?.requestID == made.requestID)
        await expectFailure(.sessionOutOfOrder) {
            try await second.createAddDeviceRequest(structure: structure, topology: Topology(ecosystemName: "Other", homes: []))
        }
    }

    @Test("a home's session without a requestID gets the session's ID, and keeps it")
    func requestIDDefault() async throws {
        var home = TestHomes.basic()
        home.activeSession = CommissioningSessionSnapshot(
            phase: .requested, sessionID: "session-7", topology: Topology(ecosystemName: "Google Home", homes: ["Test Home"]))
        let decoded = try HomeDescription.parse(home.jsonText, file: "home.json")
        #expect(decoded.activeSession?.requestID == "session-7")
        let (hub, _) = try TestHomes.hub(decoded)
        let answered = try await hub.createAddDeviceRequest(
            structure: structure, topology: Topology(ecosystemName: "Google Home", homes: []))
        #expect(answered.requestID == "session-7")
    }
}
