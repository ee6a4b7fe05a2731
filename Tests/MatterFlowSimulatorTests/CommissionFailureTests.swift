import MatterFlow
import MatterFlowSimulator
import Testing

@Suite("Simulated hub: commissioning failures return the session to requested")
struct CommissionFailureTests {
    let structure = TestHomes.structureID

    private func phase(_ hub: SimulatedHub) async throws -> CommissioningSession.Phase? {
        try await hub.snapshot(structure: structure).activeSession?.phase
    }

    /// A hub on a manual clock for the basic home, whose commission takes `seconds` of simulated time.
    private func slowHub(commissionLatency seconds: Double) throws -> (SimulatedHub, ManualClock) {
        var home = TestHomes.basic()
        home.simulation.latencySeconds[.commissionDevice] = seconds
        return try TestHomes.hub(home)
    }

    /// Starts commissioning `payload` in a task, and returns the task once it sleeps in the simulated latency.
    private func startCommission(
        _ hub: SimulatedHub, _ clock: ManualClock, payload: String = Payloads.specQR
    ) async -> Task<Void, any Error> {
        let task = Task {
            try await hub.commissionDevice(structure: structure, onboardingPayload: payload, commissioningID: "c")
        }
        await clock.waitForSleepers(1)
        return task
    }

    @Test("an invalid payload fails with invalidPayload, without echoing the payload", arguments: [
        "MT:NOT-A-CODE", "34970112333", "hello", "", "MT:Y.K9042C00KA0648G00*634J0KGB00AJVH7SR00",
    ])
    func invalidPayload(payload: String) async throws {
        let (hub, _) = try TestHomes.hub()
        try await prepareAndRequest(hub)
        let error = await expectFailure(.invalidPayload) {
            try await hub.commissionDevice(structure: structure, onboardingPayload: payload, commissioningID: "c")
        }
        if payload.count > 4 { #expect(error?.message.contains(payload) == false) }
        #expect(try await phase(hub) == .requested)
        // The request stands: another payload can be tried.
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.lampQR, commissioningID: "c")
        #expect(try await phase(hub) == .commissioned)
    }

    @Test("commissioning a device that is already in the home fails with deviceAlreadyCommissioned")
    func duplicateDevice() async throws {
        let (hub, _) = try TestHomes.hub()
        try await prepareAndRequest(hub)
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        try await hub.configureDevice(structure: structure, name: "Desk Lamp", roomName: nil)
        let ids = try await hub.completeCommissioning(structure: structure)

        try await prepareAndRequest(hub)
        let error = await expectFailure(.deviceAlreadyCommissioned) {
            try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        }
        #expect(error?.code == .alreadyExists)
        #expect(error?.message.contains("Desk Lamp") == true)
        #expect(error?.message.contains(ids[0]) == true)
        #expect(try await phase(hub) == .requested)
        #expect(try await hub.cancelCommissioning(structure: structure))
    }

    @Test("an offline hub fails commission, rooms and basic information with hubOffline")
    func offline() async throws {
        let (hub, _) = try TestHomes.hub()
        try await prepareAndRequest(hub)
        try await hub.setOnline(false, structure: structure)
        await expectFailure(.hubOffline) {
            try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        }
        #expect(try await phase(hub) == .requested)
        await expectFailure(.hubOffline) { try await hub.fetchRooms(structure: structure) }
        await expectFailure(.hubOffline) {
            try await hub.basicInformation(structure: structure, deviceID: "device-existing")
        }
        try await hub.setOnline(true, structure: structure)
        try await hub.setReachable(false, structure: structure)
        await expectFailure(.hubUnreachable) { try await hub.fetchRooms(structure: structure) }
    }

    @Test("basic information of an unknown device fails with deviceNotFound")
    func unknownDevice() async throws {
        let (hub, _) = try TestHomes.hub()
        let error = await expectFailure(.deviceNotFound) {
            try await hub.basicInformation(structure: structure, deviceID: "device-existin")
        }
        #expect(error?.message.contains("did you mean \"device-existing\"") == true)
        let known = try await hub.basicInformation(structure: structure, deviceID: "device-existing")
        #expect(known.softwareVersion == 7)
    }

    @Test("cancelling the task during the simulated latency fails commissioning and keeps the request")
    func cancelledDuringLatency() async throws {
        let (hub, clock) = try slowHub(commissionLatency: 30)
        try await prepareAndRequest(hub)
        let task = await startCommission(hub, clock)
        #expect(try await phase(hub) == .commissioning)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await phase(hub) == .requested)
        #expect(try await hub.snapshot(structure: structure).devices.count == 1)
        let record = try #require(await hub.calls(.commissionDevice, structure: structure).last)
        #expect(record.outcome == .failed(code: .cancelled, cause: .runCancelled))
    }

    @Test("a session cancelled by another caller while commissioning makes the commission fail cleanly")
    func cancelledByAnotherCaller() async throws {
        let (hub, clock) = try slowHub(commissionLatency: 5)
        try await prepareAndRequest(hub)
        let task = await startCommission(hub, clock)
        #expect(try await hub.cancelCommissioning(structure: structure))
        clock.advance(by: .seconds(5))
        let error = await expectFailure(.noActiveSession) { try await task.value }
        #expect(error?.message.contains("cancelled") == true)
        let after = try await hub.snapshot(structure: structure)
        #expect(after.activeSession == nil)
        #expect(after.devices.count == 1)
    }

    @Test("every failure raises a cause the operation declares (or cancellation)")
    func onlyDeclaredCauses() async throws {
        let (hub, clock) = try slowHub(commissionLatency: 1)
        // A tour of error paths.
        _ = try? await hub.commissionDevice(structure: structure, onboardingPayload: "x", commissioningID: "c")
        _ = try? await hub.configureDevice(structure: structure, name: "", roomName: nil)
        _ = try? await hub.completeCommissioning(structure: structure)
        _ = try? await hub.createAddDeviceRequest(structure: structure, topology: Topology(ecosystemName: "", homes: []))
        _ = try await hub.prepareCommissioning(structure: structure)
        _ = try? await hub.prepareCommissioning(structure: structure)
        _ = try? await hub.createAddDeviceRequest(structure: structure, topology: Topology(ecosystemName: "", homes: []))
        _ = try await hub.createAddDeviceRequest(structure: structure, topology: Topology(ecosystemName: "G", homes: []))
        let task = await startCommission(hub, clock, payload: "MT:bad")
        clock.advance(by: .seconds(1))
        _ = try? await task.value
        let cancelled = await startCommission(hub, clock)
        cancelled.cancel()
        _ = try? await cancelled.value
        _ = try? await hub.configureDevice(structure: structure, name: "x", roomName: nil)
        _ = try? await hub.fetchRooms(structure: "elsewhere")
        _ = try? await hub.status(structure: "elsewhere")
        _ = try? await hub.basicInformation(structure: structure, deviceID: "nope")
        try await hub.setOnline(false, structure: structure)
        _ = try? await hub.prepareCommissioning(structure: structure)
        _ = try? await hub.fetchRooms(structure: structure)
        _ = try? await hub.basicInformation(structure: structure, deviceID: "device-existing")
        _ = try? await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        _ = try? await hub.configureDevice(structure: structure, name: "x", roomName: nil)
        _ = try? await hub.completeCommissioning(structure: structure)
        _ = try? await hub.cancelCommissioning(structure: structure)
        try await hub.setOnline(true, structure: structure)
        try await hub.setReachable(false, structure: structure)
        _ = try? await hub.createAddDeviceRequest(structure: structure, topology: Topology(ecosystemName: "G", homes: []))
        _ = try? await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        _ = try? await hub.cancelCommissioning(structure: structure)
        try await hub.setReachable(true, structure: structure)
        _ = try await hub.cancelCommissioning(structure: structure)

        let failures = await hub.callRecords.filter { $0.outcome != .succeeded }
        #expect(failures.count >= 15)
        for record in failures {
            let descriptor = try #require(record.operation.descriptor)
            let cause = try #require(record.outcome.cause)
            #expect(
                descriptor.errors.contains(cause) || cause == .runCancelled,
                "\(record.operation.rawValue) raised undeclared cause \(cause.rawValue)")
        }
    }

    @Test("the simulator's operation names are exactly the standard catalog's")
    func operationNames() {
        #expect(SimulatedOperation.allCases.map(\.rawValue) == OperationCatalog.standard.names)
    }
}
