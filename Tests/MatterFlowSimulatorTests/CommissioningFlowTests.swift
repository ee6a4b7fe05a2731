import MatterFlow
import MatterFlowSimulator
import Testing

@Suite("Simulated hub: commissioning a device")
struct CommissioningFlowTests {
    let structure = TestHomes.structureID

    @Test("the seeds' happy path: prepare, request, commission, rooms, configure, complete")
    func happyPath() async throws {
        let (hub, _) = try TestHomes.hub()
        let sessionID = try await hub.prepareCommissioning(structure: structure)
        #expect(sessionID.hasPrefix("session-"))
        #expect(try await hub.status(structure: structure).activeSession)

        let request = try await hub.createAddDeviceRequest(
            structure: structure, topology: Topology(ecosystemName: "Google Home", homes: []))
        #expect(request.requestID.hasPrefix("request-"))
        #expect(request.topology == Topology(ecosystemName: "Google Home", homes: ["Test Home"]))

        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c-1")
        let pending = try await hub.snapshot(structure: structure)
        let session = try #require(pending.activeSession)
        #expect(session.phase == .commissioned)
        let deviceID = try #require(session.deviceIDs.first)
        #expect(deviceID.hasPrefix("device-"))
        let created = try #require(pending.device(id: deviceID))
        #expect(created.name == "Matter Device 0x8000")
        #expect(created.room == nil)
        #expect(created.payloadKey == "vid=0xFFF1,pid=0x8000,discriminator=3840")

        let rooms = try await hub.fetchRooms(structure: structure)
        #expect(rooms.map(\.name) == ["Kitchen", "Hall"])
        try await hub.configureDevice(structure: structure, name: "Desk Lamp", roomName: "Kitchen")
        #expect(try await hub.snapshot(structure: structure).activeSession?.phase == .configured)

        let ids = try await hub.completeCommissioning(structure: structure)
        #expect(ids == [deviceID])

        let after = try await hub.snapshot(structure: structure)
        #expect(after.activeSession == nil)
        #expect(after.devices.count == 2)
        #expect(after.device(id: deviceID)?.name == "Desk Lamp")
        #expect(after.device(id: deviceID)?.room == "Kitchen")
        #expect(try await hub.status(structure: structure).activeSession == false)

        let info = try await hub.basicInformation(structure: structure, deviceID: deviceID)
        #expect(info == BasicInformation(
            vendorName: "Test Vendor (0xFFF1)", vendorID: 0xFFF1, productID: 0x8000,
            productName: "Matter Device 0x8000", softwareVersion: 1))

        let calls = await hub.calls(structure: structure)
        #expect(calls.map(\.operation) == [
            .prepareCommissioning, .readHubStatus, .createAddDeviceRequest, .commissionDevice, .fetchRooms,
            .configureDevice, .completeCommissioning, .readHubStatus, .readBasicInformation,
        ])
        #expect(calls.allSatisfy { $0.outcome == .succeeded && !$0.faultInjected })
    }

    @Test("identifiers are stable for a seed and differ between seeds")
    func stableIdentifiers() async throws {
        func run(seed: UInt64) async throws -> [String] {
            let (hub, _) = try TestHomes.hub(TestHomes.basic(seed: seed))
            let sessionID = try await hub.prepareCommissioning(structure: structure)
            _ = try await hub.createAddDeviceRequest(
                structure: structure, topology: Topology(ecosystemName: "Google Home", homes: []))
            try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
            return [sessionID] + (try await hub.completeCommissioning(structure: structure))
        }
        let first = try await run(seed: 7)
        #expect(try await run(seed: 7) == first)
        #expect(try await run(seed: 8) != first)
        #expect(Set(first).count == first.count)
    }

    @Test("a manual pairing code without vendor and product IDs reports the Matter test IDs")
    func manualCodeReportsTestIDs() async throws {
        let (hub, _) = try TestHomes.hub()
        try await prepareAndRequest(hub)
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specManual, commissioningID: "c")
        let id = try #require(try await hub.completeCommissioning(structure: structure).first)
        let info = try await hub.basicInformation(structure: structure, deviceID: id)
        #expect(info.vendorID == 0xFFF1)
        #expect(info.productID == 0x8000)
        #expect(try await hub.snapshot(structure: structure).device(id: id)?.payloadKey == "shortDiscriminator=15")
    }

    @Test("a bridge brings its bridged devices: complete returns every ID, sorted")
    func bridgeCommissionsSeveralDevices() async throws {
        let (hub, _) = try TestHomes.hub()
        try await prepareAndRequest(hub)
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.bridgeQR, commissioningID: "c")
        try await hub.configureDevice(structure: structure, name: "Hall Bridge", roomName: "Hall")
        let session = try #require(try await hub.snapshot(structure: structure).activeSession)
        let ids = try await hub.completeCommissioning(structure: structure)
        #expect(ids.count == 3)
        #expect(ids == ids.sorted())
        #expect(Set(ids) == Set(session.deviceIDs))

        let home = try await hub.snapshot(structure: structure)
        let bridge = try #require(home.device(id: session.deviceIDs[0]))
        #expect(bridge.name == "Hall Bridge")
        #expect(bridge.payloadKey != nil)
        for id in session.deviceIDs.dropFirst() {
            let bridged = try #require(home.device(id: id))
            #expect(bridged.room == "Hall")
            #expect(bridged.name.contains("bridged device"))
            #expect(bridged.payloadKey == nil)
        }
    }

    @Test("the default home commissions a device after its simulated latency, driven by a manual clock")
    func defaultHomeWithLatency() async throws {
        let clock = ManualClock()
        let hub = try SimulatedHub(home: .defaultHome, clock: clock)
        let structure = HomeDescription.defaultHome.structure.id
        try await prepareAndRequest(hub, structure)
        let commissioning = Task {
            try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        }
        await clock.waitForSleepers(1)
        #expect(try await hub.snapshot(structure: structure).activeSession?.phase == .commissioning)
        clock.advance(by: .seconds(1))
        try await commissioning.value
        try await hub.configureDevice(structure: structure, name: "Reading Lamp", roomName: "Office")
        let ids = try await hub.completeCommissioning(structure: structure)
        #expect(ids.count == 1)
        let record = try #require(await hub.calls(.commissionDevice, structure: structure).first)
        #expect(record.finishedAt - record.startedAt == .seconds(1))
        #expect(try await hub.snapshot(structure: structure).devices.count == 3)
    }

    @Test("homes of several structures keep separate sessions")
    func structuresAreIndependent() async throws {
        let hub = try SimulatedHub(
            homes: [TestHomes.basic(id: "a"), TestHomes.basic(id: "b")], clock: ManualClock())
        #expect(await hub.structureIDs == ["a", "b"])
        _ = try await hub.prepareCommissioning(structure: "a")
        _ = try await hub.prepareCommissioning(structure: "b")
        await expectFailure(.sessionBusy) { try await hub.prepareCommissioning(structure: "a") }
        #expect(try await hub.cancelCommissioning(structure: "a"))
        #expect(try await hub.status(structure: "b").activeSession)
        #expect(await hub.calls(structure: "a").count == 3)
    }

    @Test("two homes with one structure ID are refused")
    func duplicateStructureIDs() throws {
        #expect(throws: FlowError.self) {
            try SimulatedHub(homes: [TestHomes.basic(), TestHomes.basic()], clock: ManualClock())
        }
    }
}
