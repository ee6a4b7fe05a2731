import MatterFlow
import MatterFlowSimulator
import Testing

@Suite("Simulated hub: prepare guards, out-of-order calls and cancel")
struct SessionRulesTests {
    let structure = TestHomes.structureID

    // MARK: - prepare

    @Test("prepare fails with permissionNotGranted when the user has not granted access")
    func permission() async throws {
        var home = TestHomes.basic()
        home.permissionGranted = false
        home.hub.online = false  // permission is checked first
        let (hub, _) = try TestHomes.hub(home)
        let error = await expectFailure(.permissionNotGranted) { try await hub.prepareCommissioning(structure: structure) }
        #expect(error?.code == .permissionDenied)
        #expect(try await hub.status(structure: structure).activeSession == false)
    }

    @Test("prepare fails with hubOffline, then hubUnreachable, as the hub's conditions change")
    func connectivity() async throws {
        let (hub, _) = try TestHomes.hub()
        try await hub.setOnline(false, structure: structure)
        try await hub.setReachable(false, structure: structure)
        let offline = await expectFailure(.hubOffline) { try await hub.prepareCommissioning(structure: structure) }
        #expect(offline?.code == .unavailable)
        try await hub.setOnline(true, structure: structure)
        await expectFailure(.hubUnreachable) { try await hub.prepareCommissioning(structure: structure) }
        try await hub.setReachable(true, structure: structure)
        _ = try await hub.prepareCommissioning(structure: structure)
        let status = try await hub.status(structure: structure)
        #expect(status == HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: true, holder: status.holder))
        #expect(status.holder?.sessionID != nil)
    }

    @Test("a second prepare fails with sessionBusy and leaves the first session alone")
    func sessionBusy() async throws {
        let (hub, _) = try TestHomes.hub()
        let first = try await hub.prepareCommissioning(structure: structure)
        let error = await expectFailure(.sessionBusy) { try await hub.prepareCommissioning(structure: structure) }
        #expect(error?.code == .failedPrecondition)
        #expect(error?.message.contains(first) == true)
        #expect(try await hub.snapshot(structure: structure).activeSession?.sessionID == first)
    }

    @Test("a home whose file holds an active session blocks prepare until it is cancelled")
    func sessionFromHomeBlocks() async throws {
        var home = TestHomes.basic()
        home.activeSession = CommissioningSessionSnapshot(phase: .prepared, sessionID: "session-left-over")
        let (hub, _) = try TestHomes.hub(home)
        await expectFailure(.sessionBusy) { try await hub.prepareCommissioning(structure: structure) }
        #expect(try await hub.cancelCommissioning(structure: structure))
        _ = try await hub.prepareCommissioning(structure: structure)
    }

    @Test("prepare and the reads name an unknown structure, with a suggestion")
    func unknownStructure() async throws {
        let (hub, _) = try TestHomes.hub()
        let error = await expectFailure(.structureNotFound) { try await hub.prepareCommissioning(structure: "home-b") }
        #expect(error?.message.contains("did you mean \"home-a\"") == true)
        await expectFailure(.structureNotFound) { try await hub.status(structure: "nowhere") }
        await expectFailure(.structureNotFound) { try await hub.fetchRooms(structure: "nowhere") }
        await expectFailure(.noActiveSession) { try await hub.completeCommissioning(structure: "nowhere") }
        await expectFailure(.deviceNotFound) { try await hub.basicInformation(structure: "nowhere", deviceID: "x") }
        #expect(try await hub.cancelCommissioning(structure: "nowhere") == false)
    }

    // MARK: - Out of order

    @Test("calls out of order name the session's state and the operation")
    func outOfOrder() async throws {
        let (hub, _) = try TestHomes.hub()
        let early = await expectFailure(.noActiveSession) {
            try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        }
        #expect(early?.message.contains("commission") == true)
        #expect(early?.message.contains("idle") == true)

        _ = try await hub.prepareCommissioning(structure: structure)
        let tooSoon = await expectFailure(.sessionOutOfOrder) { try await hub.completeCommissioning(structure: structure) }
        #expect(tooSoon?.message.contains("prepared") == true)
        await expectFailure(.sessionOutOfOrder) {
            try await hub.configureDevice(structure: structure, name: "x", roomName: nil)
        }
        _ = try await hub.createAddDeviceRequest(
            structure: structure, topology: Topology(ecosystemName: "Google Home", homes: ["Mine"]))
        await expectFailure(.sessionOutOfOrder) {
            try await hub.createAddDeviceRequest(
                structure: structure, topology: Topology(ecosystemName: "Google Home", homes: []))
        }
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        _ = try await hub.completeCommissioning(structure: structure)
        let twice = await expectFailure(.noActiveSession) { try await hub.completeCommissioning(structure: structure) }
        #expect(twice?.message.contains("completed") == true)
    }

    @Test("configure after cancel fails with noActiveSession")
    func configureAfterCancel() async throws {
        let (hub, _) = try TestHomes.hub()
        try await prepareAndRequest(hub)
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        #expect(try await hub.cancelCommissioning(structure: structure))
        let error = await expectFailure(.noActiveSession) {
            try await hub.configureDevice(structure: structure, name: "Lamp", roomName: nil)
        }
        #expect(error?.message.contains("cancelled") == true)
    }

    @Test("an empty ecosystem name is an invalid argument and leaves the session prepared")
    func emptyEcosystem() async throws {
        let (hub, _) = try TestHomes.hub()
        _ = try await hub.prepareCommissioning(structure: structure)
        await expectFailure(.invalidArgumentValue) {
            try await hub.createAddDeviceRequest(structure: structure, topology: Topology(ecosystemName: " ", homes: []))
        }
        #expect(try await hub.snapshot(structure: structure).activeSession?.phase == .prepared)
    }

    // MARK: - Configure

    @Test("configure with an unknown room fails with roomNotFound, a suggestion, and the session unchanged")
    func unknownRoom() async throws {
        let (hub, _) = try TestHomes.hub()
        try await prepareAndRequest(hub)
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        let before = try await hub.snapshot(structure: structure)
        let error = await expectFailure(.roomNotFound) {
            try await hub.configureDevice(structure: structure, name: "Lamp", roomName: "Kitchn")
        }
        #expect(error?.message.contains("did you mean \"Kitchen\"") == true)
        #expect(try await hub.snapshot(structure: structure) == before)
        try await hub.configureDevice(structure: structure, name: "Lamp", roomName: nil)
        #expect(try await hub.snapshot(structure: structure).activeSession?.phase == .configured)
    }

    // MARK: - Cancel

    @Test("cancel undoes partial work: pending devices go, identifiers are not reused")
    func cancelUndoes() async throws {
        let (hub, _) = try TestHomes.hub()
        let original = try await hub.snapshot(structure: structure)
        try await prepareAndRequest(hub)
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.bridgeQR, commissioningID: "c")
        try await hub.configureDevice(structure: structure, name: "Bridge", roomName: "Kitchen")
        let pendingIDs = try #require(try await hub.snapshot(structure: structure).activeSession?.deviceIDs)
        #expect(pendingIDs.count == 3)

        #expect(try await hub.cancelCommissioning(structure: structure))
        let after = try await hub.snapshot(structure: structure)
        #expect(after.devices == original.devices)
        #expect(after.activeSession == nil)
        #expect(after.issuedIDs > original.issuedIDs)
        #expect(try await hub.cancelCommissioning(structure: structure) == false)

        // The same device can be commissioned again, with new identifiers.
        try await prepareAndRequest(hub)
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.bridgeQR, commissioningID: "c")
        let again = try await hub.completeCommissioning(structure: structure)
        #expect(Set(again).isDisjoint(with: pendingIDs))
    }

    @Test("cancel fails while the hub is offline and releases nothing; it works once the hub is back")
    func cancelOffline() async throws {
        let (hub, _) = try TestHomes.hub()
        #expect(try await hub.cancelCommissioning(structure: structure) == false)
        _ = try await hub.prepareCommissioning(structure: structure)
        try await hub.setOnline(false, structure: structure)
        await expectFailure(.hubOffline) { _ = try await hub.cancelCommissioning(structure: structure) }
        #expect(try await hub.status(structure: structure).activeSession)
        try await hub.setOnline(true, structure: structure)
        #expect(try await hub.cancelCommissioning(structure: structure))
        #expect(try await hub.status(structure: structure).activeSession == false)
    }
}
