import MatterFlow
import MatterFlowSimulator
import Testing

/// A hub that is offline or unreachable does nothing: every operation but the status read fails with `hubOffline` /
/// `hubUnreachable` and changes nothing, in every phase of the session. The status read keeps answering.
@Suite("Simulated hub: an offline or unreachable hub fails every operation")
struct ReachabilityTests {
    let structure = TestHomes.structureID

    /// The session phases a call can meet, each reached with the hub up.
    enum Phase: String, CaseIterable {
        case none, prepared, requested, commissioned, configured
    }

    /// A hub whose session is in `phase`, then taken down as `condition` says.
    func hub(in phase: Phase, down condition: ErrorCause) async throws -> SimulatedHub {
        let (hub, _) = try TestHomes.hub()
        if phase != .none { _ = try await hub.prepareCommissioning(structure: structure) }
        if [.requested, .commissioned, .configured].contains(phase) {
            _ = try await hub.createAddDeviceRequest(
                structure: structure, topology: Topology(ecosystemName: "Test", homes: []))
        }
        if [.commissioned, .configured].contains(phase) {
            try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.lampQR, commissioningID: "c1")
        }
        if phase == .configured {
            try await hub.configureDevice(structure: structure, name: "Lamp", roomName: "Kitchen")
        }
        if condition == .hubOffline {
            try await hub.setOnline(false, structure: structure)
        } else {
            try await hub.setReachable(false, structure: structure)
        }
        return hub
    }

    /// Every commissioning operation but the status read, called on `hub`.
    func operations(_ hub: SimulatedHub) -> [(String, () async throws -> Void)] {
        [
            ("prepareCommissioning", { _ = try await hub.prepareCommissioning(structure: structure) }),
            ("createAddDeviceRequest", {
                _ = try await hub.createAddDeviceRequest(
                    structure: structure, topology: Topology(ecosystemName: "Test", homes: []))
            }),
            ("commissionDevice", {
                try await hub.commissionDevice(
                    structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c2")
            }),
            ("fetchRooms", { _ = try await hub.fetchRooms(structure: structure) }),
            ("configureDevice", { try await hub.configureDevice(structure: structure, name: "Lamp", roomName: nil) }),
            ("completeCommissioning", { _ = try await hub.completeCommissioning(structure: structure) }),
            ("cancelCommissioning", { _ = try await hub.cancelCommissioning(structure: structure) }),
            ("readBasicInformation", {
                _ = try await hub.basicInformation(structure: structure, deviceID: "device-existing")
            }),
        ]
    }

    @Test(
        "every operation fails with the hub's condition in every phase, and changes nothing",
        arguments: Phase.allCases, [ErrorCause.hubOffline, .hubUnreachable])
    func everyOperationFails(_ phase: Phase, _ condition: ErrorCause) async throws {
        let hub = try await hub(in: phase, down: condition)
        let before = try await hub.snapshot(structure: structure)
        for (name, call) in operations(hub) {
            do {
                try await call()
                Issue.record("\(name) succeeded in phase \(phase.rawValue) while the hub is \(condition)")
            } catch let error as FlowError {
                #expect(error.cause == condition, "\(name) in phase \(phase.rawValue): \(error)")
                #expect(error.code == .unavailable)
            }
        }
        #expect(try await hub.snapshot(structure: structure) == before, "a call changed the home")
        // The status read answers, so guards and workflows can see why.
        let status = try await hub.status(structure: structure)
        #expect(status.online == (condition != .hubOffline))
        #expect(status.reachable == (condition != .hubUnreachable))
        #expect(status.activeSession == (phase != .none))
    }

    @Test(
        "every border-router operation fails with the hub's condition and changes nothing",
        arguments: [ErrorCause.hubOffline, .hubUnreachable])
    func borderRouterOperationsFail(_ condition: ErrorCause) async throws {
        let structure = BorderRouterHomes.structureID
        let router = BorderRouterHomes.routerID
        let hub = try SimulatedHub(home: BorderRouterHomes.home(), clock: ManualClock())
        if condition == .hubOffline {
            try await hub.setOnline(false, structure: structure)
        } else {
            try await hub.setReachable(false, structure: structure)
        }
        let before = try await hub.snapshot(structure: structure)
        let dataset = try BorderRouterHomes.bytes(BorderRouterHomes.network5938)
        let calls: [(String, () async throws -> Void)] = [
            ("listBorderRouters", { _ = try await hub.borderRouters(structure: structure) }),
            ("readBorderRouter", { _ = try await hub.borderRouter(structure: structure, deviceID: router) }),
            ("readThreadCapabilities", { _ = try await hub.threadCapabilities(structure: structure, deviceID: router) }),
            ("activateEpskc", {
                _ = try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: nil)
            }),
            ("deactivateEpskc", { try await hub.deactivateEpskc(structure: structure, deviceID: router) }),
            ("joinThreadNetwork", {
                _ = try await hub.joinThreadNetwork(structure: structure, deviceID: router, operationalDataset: dataset)
            }),
            ("leaveThreadNetwork", { _ = try await hub.leaveThreadNetwork(structure: structure, deviceID: router) }),
            ("readThreadNetworkSettings", { _ = try await hub.threadNetworkSettings(structure: structure) }),
            ("setInternetAccess", { _ = try await hub.setInternetAccess(structure: structure, option: .nat64Only) }),
        ]
        for (name, call) in calls {
            do {
                try await call()
                Issue.record("\(name) succeeded while the hub is \(condition)")
            } catch let error as FlowError {
                #expect(error.cause == condition, "\(name): \(error)")
            }
        }
        #expect(try await hub.snapshot(structure: structure) == before, "a call changed the home")
    }

    @Test("once the hub is back, a cancel releases the session it could not release while down")
    func cancelAfterComingBack() async throws {
        let hub = try await hub(in: .commissioned, down: .hubUnreachable)
        await #expect(throws: FlowError.self) { _ = try await hub.cancelCommissioning(structure: structure) }
        #expect(try await hub.status(structure: structure).activeSession)
        try await hub.setReachable(true, structure: structure)
        #expect(try await hub.cancelCommissioning(structure: structure))
        #expect(try await hub.status(structure: structure).activeSession == false)
        let devices = try await hub.snapshot(structure: structure).devices.map(\.id)
        #expect(devices == ["device-existing"], "the pending device is removed")
    }
}
