import MatterFlow
import MatterFlowJSON
import ThreadDataset

/// The ``Hub`` requirements, each one call of the method of the same name (docs/hub-protocol.md, section 3).
extension RemoteHub {
    private func result(_ method: String, _ params: JSONObject) async throws(FlowError) -> WireReader {
        let value = try await call(method, params)
        return try WireReader(value, subject: "the hub's result for \(method)", cause: .hubFailure)
    }

    public func status(structure: StructureID) async throws -> HubStatus {
        try HubWire.status(try await result("status", ["structure": .string(structure)]))
    }

    public func prepareCommissioning(structure: StructureID) async throws -> String {
        try await result("prepareCommissioning", ["structure": .string(structure)]).string("sessionID")
    }

    public func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest {
        let reader = try await result(
            "createAddDeviceRequest", ["structure": .string(structure), "topology": HubWire.json(topology)])
        return AddDeviceRequest(requestID: try reader.string("requestID"), topology: try HubWire.topology(try reader.object("topology")))
    }

    public func commissionDevice(structure: StructureID, onboardingPayload: String, commissioningID: String) async throws {
        _ = try await result(
            "commissionDevice",
            [
                "structure": .string(structure), "onboardingPayload": .string(onboardingPayload),
                "commissioningID": .string(commissioningID),
            ])
    }

    public func fetchRooms(structure: StructureID) async throws -> [Room] {
        var rooms: [Room] = []
        for room in try await result("fetchRooms", ["structure": .string(structure)]).objects("rooms") {
            rooms.append(try HubWire.room(room))
        }
        return rooms
    }

    public func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        _ = try await result(
            "configureDevice",
            ["structure": .string(structure), "name": .string(name), "roomName": roomName.map(JSONValue.string) ?? .null])
    }

    public func completeCommissioning(structure: StructureID) async throws -> [String] {
        try await result("completeCommissioning", ["structure": .string(structure)]).strings("deviceIDs")
    }

    public func cancelCommissioning(structure: StructureID) async throws -> Bool {
        try await result("cancelCommissioning", ["structure": .string(structure)]).bool("released")
    }

    public func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation {
        try HubWire.basicInformation(
            try await result("basicInformation", ["structure": .string(structure), "deviceID": .string(deviceID)]))
    }

    /// The structure's active session, through `activeSession` (what recovery asks).
    public func activeSession(structure: StructureID) async throws -> HubSessionInfo? {
        let reader = try await result("activeSession", ["structure": .string(structure)])
        return try reader.optionalObject("session").map { session throws(FlowError) in try HubWire.session(session) }
    }

    // MARK: Border routers

    public func borderRouters(structure: StructureID) async throws -> [BorderRouterDescription] {
        var routers: [BorderRouterDescription] = []
        for router in try await result("borderRouters", ["structure": .string(structure)]).objects("borderRouters") {
            routers.append(try HubWire.borderRouter(router))
        }
        return routers
    }

    /// One border router: through `borderRouter`, or, for a hub that lists only `borderRouters`, looked up in that
    /// list as a Swift hub's default does.
    public func borderRouter(structure: StructureID, deviceID: String) async throws -> BorderRouterDescription {
        if let operations = handshake?.operations, !operations.contains("borderRouter"), operations.contains("borderRouters") {
            let routers = try await borderRouters(structure: structure)
            guard let router = routers.first(where: { $0.deviceID == deviceID }) else {
                throw FlowError(.deviceNotFound, "no border router has device ID \"\(deviceID)\"")
            }
            return router
        }
        return try HubWire.borderRouter(
            try await result("borderRouter", ["structure": .string(structure), "deviceID": .string(deviceID)]))
    }

    public func threadCapabilities(structure: StructureID, deviceID: String) async throws -> ThreadCapabilities {
        try HubWire.capabilities(
            try await result("threadCapabilities", ["structure": .string(structure), "deviceID": .string(deviceID)]))
    }

    public func activateEpskc(structure: StructureID, deviceID: String, requestedDurationSeconds: Int?) async throws
        -> EpskcActivation
    {
        try HubWire.activation(
            try await result(
                "activateEpskc",
                [
                    "structure": .string(structure), "deviceID": .string(deviceID),
                    "requestedDurationSeconds": requestedDurationSeconds.map(JSONValue.int) ?? .null,
                ]))
    }

    public func deactivateEpskc(structure: StructureID, deviceID: String) async throws {
        _ = try await result("deactivateEpskc", ["structure": .string(structure), "deviceID": .string(deviceID)])
    }

    public func joinThreadNetwork(structure: StructureID, deviceID: String, operationalDataset: [UInt8]) async throws
        -> NetworkOperationResult
    {
        try HubWire.networkResult(
            try await result(
                "joinThreadNetwork",
                [
                    "structure": .string(structure), "deviceID": .string(deviceID),
                    "operationalDataset": .string(Hex.encode(operationalDataset)),
                ]))
    }

    public func leaveThreadNetwork(structure: StructureID, deviceID: String) async throws -> NetworkOperationResult {
        try HubWire.networkResult(
            try await result("leaveThreadNetwork", ["structure": .string(structure), "deviceID": .string(deviceID)]))
    }

    public func threadNetworkSettings(structure: StructureID) async throws -> ThreadNetworkSettings {
        try HubWire.settings(try await result("threadNetworkSettings", ["structure": .string(structure)]))
    }

    public func setInternetAccess(structure: StructureID, option: InternetAccessOption) async throws -> ThreadNetworkSettings {
        try HubWire.settings(
            try await result("setInternetAccess", ["structure": .string(structure), "option": .string(option.rawValue)]))
    }

    public func subscribe(structure: StructureID, _ handler: @escaping @Sendable (HubEvent) -> Void) async
        -> any HubEventSubscription
    {
        await subscribeRemote(structure: structure, handler)
    }

    /// A custom operation (docs/operation-catalog.md): the method of the operation's name, its arguments as
    /// params beside `structure`. Not sent (`notSupported`) unless the hub lists the operation in its handshake.
    public func perform(operation: String, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
        var params = arguments
        params["structure"] = .string(structure)
        return try await call(operation, params)
    }
}

/// A ``RemoteHub`` whose hub answers `activeSession`, so recovery can reconcile interrupted calls through it.
struct RecoverableRemoteHub: RecoverableHub, ConnectedHub {
    let remote: RemoteHub

    var connectionLost: Bool { remote.connectionLost }

    func activeSession(structure: StructureID) async throws -> HubSessionInfo? {
        try await remote.activeSession(structure: structure)
    }

    func status(structure: StructureID) async throws -> HubStatus { try await remote.status(structure: structure) }

    func prepareCommissioning(structure: StructureID) async throws -> String {
        try await remote.prepareCommissioning(structure: structure)
    }

    func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest {
        try await remote.createAddDeviceRequest(structure: structure, topology: topology)
    }

    func commissionDevice(structure: StructureID, onboardingPayload: String, commissioningID: String) async throws {
        try await remote.commissionDevice(
            structure: structure, onboardingPayload: onboardingPayload, commissioningID: commissioningID)
    }

    func fetchRooms(structure: StructureID) async throws -> [Room] { try await remote.fetchRooms(structure: structure) }

    func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        try await remote.configureDevice(structure: structure, name: name, roomName: roomName)
    }

    func completeCommissioning(structure: StructureID) async throws -> [String] {
        try await remote.completeCommissioning(structure: structure)
    }

    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        try await remote.cancelCommissioning(structure: structure)
    }

    func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation {
        try await remote.basicInformation(structure: structure, deviceID: deviceID)
    }

    func borderRouters(structure: StructureID) async throws -> [BorderRouterDescription] {
        try await remote.borderRouters(structure: structure)
    }

    func borderRouter(structure: StructureID, deviceID: String) async throws -> BorderRouterDescription {
        try await remote.borderRouter(structure: structure, deviceID: deviceID)
    }

    func threadCapabilities(structure: StructureID, deviceID: String) async throws -> ThreadCapabilities {
        try await remote.threadCapabilities(structure: structure, deviceID: deviceID)
    }

    func activateEpskc(structure: StructureID, deviceID: String, requestedDurationSeconds: Int?) async throws
        -> EpskcActivation
    {
        try await remote.activateEpskc(structure: structure, deviceID: deviceID, requestedDurationSeconds: requestedDurationSeconds)
    }

    func deactivateEpskc(structure: StructureID, deviceID: String) async throws {
        try await remote.deactivateEpskc(structure: structure, deviceID: deviceID)
    }

    func joinThreadNetwork(structure: StructureID, deviceID: String, operationalDataset: [UInt8]) async throws
        -> NetworkOperationResult
    {
        try await remote.joinThreadNetwork(structure: structure, deviceID: deviceID, operationalDataset: operationalDataset)
    }

    func leaveThreadNetwork(structure: StructureID, deviceID: String) async throws -> NetworkOperationResult {
        try await remote.leaveThreadNetwork(structure: structure, deviceID: deviceID)
    }

    func threadNetworkSettings(structure: StructureID) async throws -> ThreadNetworkSettings {
        try await remote.threadNetworkSettings(structure: structure)
    }

    func setInternetAccess(structure: StructureID, option: InternetAccessOption) async throws -> ThreadNetworkSettings {
        try await remote.setInternetAccess(structure: structure, option: option)
    }

    func subscribe(structure: StructureID, _ handler: @escaping @Sendable (HubEvent) -> Void) async
        -> any HubEventSubscription
    {
        await remote.subscribe(structure: structure, handler)
    }

    func perform(operation: String, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
        try await remote.perform(operation: operation, structure: structure, arguments: arguments)
    }
}
