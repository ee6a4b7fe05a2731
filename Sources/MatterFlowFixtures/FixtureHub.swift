import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator

/// The hub a fixture's run talks to: the simulated hub, with the fixture's `after` and `entering` events
/// applied around its calls.
///
/// Every call first applies hub actions queued by `entering` events, then runs on the simulated hub (faults,
/// latency, records), then runs the `after` events for it before the engine sees the answer. So "the hub goes
/// offline after prepare" happens exactly between prepare's answer and the next call, in any run.
struct FixtureHub: Hub {
    let world: FixtureWorld
    /// What calls of custom operations answer (the simulated home implements none).
    var customRules: [CustomOperationRule] = []

    private var inner: SimulatedHub { world.hub }

    private func call<T>(_ operation: SimulatedOperation, _ body: () async throws -> T) async throws -> T {
        let attempt = await world.beforeCall(operation)
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        await world.afterCall(operation, attempt: attempt)
        return try result.get()
    }

    func status(structure: StructureID) async throws -> HubStatus {
        try await call(.readHubStatus) { try await inner.status(structure: structure) }
    }

    func prepareCommissioning(structure: StructureID) async throws -> String {
        try await call(.prepareCommissioning) { try await inner.prepareCommissioning(structure: structure) }
    }

    func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest {
        try await call(.createAddDeviceRequest) {
            try await inner.createAddDeviceRequest(structure: structure, topology: topology)
        }
    }

    func commissionDevice(structure: StructureID, onboardingPayload: String, commissioningID: String) async throws {
        try await call(.commissionDevice) {
            try await inner.commissionDevice(
                structure: structure, onboardingPayload: onboardingPayload, commissioningID: commissioningID)
        }
    }

    func fetchRooms(structure: StructureID) async throws -> [Room] {
        try await call(.fetchRooms) { try await inner.fetchRooms(structure: structure) }
    }

    func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        try await call(.configureDevice) {
            try await inner.configureDevice(structure: structure, name: name, roomName: roomName)
        }
    }

    func completeCommissioning(structure: StructureID) async throws -> [String] {
        try await call(.completeCommissioning) { try await inner.completeCommissioning(structure: structure) }
    }

    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        try await call(.cancelCommissioning) { try await inner.cancelCommissioning(structure: structure) }
    }

    func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation {
        try await call(.readBasicInformation) {
            try await inner.basicInformation(structure: structure, deviceID: deviceID)
        }
    }

    // MARK: - Border routers

    func borderRouters(structure: StructureID) async throws -> [BorderRouterDescription] {
        try await call(.listBorderRouters) { try await inner.borderRouters(structure: structure) }
    }

    func borderRouter(structure: StructureID, deviceID: String) async throws -> BorderRouterDescription {
        try await call(.readBorderRouter) { try await inner.borderRouter(structure: structure, deviceID: deviceID) }
    }

    func threadCapabilities(structure: StructureID, deviceID: String) async throws -> ThreadCapabilities {
        try await call(.readThreadCapabilities) {
            try await inner.threadCapabilities(structure: structure, deviceID: deviceID)
        }
    }

    func activateEpskc(structure: StructureID, deviceID: String, requestedDurationSeconds: Int?) async throws
        -> EpskcActivation
    {
        try await call(.activateEpskc) {
            let activation = try await inner.activateEpskc(
                structure: structure, deviceID: deviceID, requestedDurationSeconds: requestedDurationSeconds)
            world.recordIssuedKey(activation.epskc, deviceID: deviceID)
            return activation
        }
    }

    func deactivateEpskc(structure: StructureID, deviceID: String) async throws {
        try await call(.deactivateEpskc) { try await inner.deactivateEpskc(structure: structure, deviceID: deviceID) }
    }

    func joinThreadNetwork(structure: StructureID, deviceID: String, operationalDataset: [UInt8]) async throws
        -> NetworkOperationResult
    {
        try await call(.joinThreadNetwork) {
            try await inner.joinThreadNetwork(
                structure: structure, deviceID: deviceID, operationalDataset: operationalDataset)
        }
    }

    func leaveThreadNetwork(structure: StructureID, deviceID: String) async throws -> NetworkOperationResult {
        try await call(.leaveThreadNetwork) {
            try await inner.leaveThreadNetwork(structure: structure, deviceID: deviceID)
        }
    }

    func threadNetworkSettings(structure: StructureID) async throws -> ThreadNetworkSettings {
        try await call(.readThreadNetworkSettings) { try await inner.threadNetworkSettings(structure: structure) }
    }

    func setInternetAccess(structure: StructureID, option: InternetAccessOption) async throws -> ThreadNetworkSettings {
        try await call(.setInternetAccess) { try await inner.setInternetAccess(structure: structure, option: option) }
    }

    /// A custom operation: the fixture's rules for it, in order; with none that answers, the simulated home's
    /// `notSupported`.
    func perform(operation: String, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
        let attempt = await world.beforeCustomCall(operation)
        let result: Result<JSONValue, any Error>
        do {
            result = .success(try await answer(operation, attempt: attempt, structure: structure, arguments: arguments))
        } catch {
            result = .failure(error)
        }
        await world.afterCustomCall(operation, attempt: attempt)
        return try result.get()
    }

    private func answer(_ operation: String, attempt: Int, structure: StructureID, arguments: JSONObject) async throws
        -> JSONValue
    {
        let applying = CustomOperationRule.applying(customRules, operation: operation, attempt: attempt)
        world.noteCustomRulesApplied(applying)
        for index in applying {
            switch customRules[index].effect {
            case .delay(let duration):
                if duration > .zero { try await world.clock.sleep(for: duration) }
            case .result(let value):
                return value
            case .fail(let error):
                throw error
            case .hang:
                while true {
                    try Task.checkCancellation()
                    try await world.clock.sleep(for: .seconds(365 * 86_400))
                }
            }
        }
        return try await inner.perform(operation: operation, structure: structure, arguments: arguments)
    }

    func subscribe(structure: StructureID, _ handler: @escaping @Sendable (HubEvent) -> Void) async
        -> any HubEventSubscription
    {
        let world = self.world
        return await inner.subscribe(structure: structure) { event in
            if world.deliversHubEvents { handler(event) }
        }
    }
}

/// The simulated hub tells its active session, as a real hub offering `activeSession` does: a run that could not
/// read a prepare's answer asks it before it ends. A read, not a call: no fixture event applies to it.
extension FixtureHub: RecoverableHub {
    func activeSession(structure: StructureID) async throws -> HubSessionInfo? {
        try await inner.activeSession(structure: structure)
    }
}
