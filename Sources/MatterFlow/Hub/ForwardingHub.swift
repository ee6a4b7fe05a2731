import MatterFlowJSON

/// A hub that adds behaviour to another one: every operation it does not implement itself goes to ``base``.
///
/// Conform, give ``base``, and implement only the operations whose behaviour changes: a hub that counts calls,
/// injects a fault into one operation, or serves a service's own operations in ``Hub/perform(operation:structure:arguments:)``
/// before handing the rest on.
///
/// ```swift
/// struct BatteryHub: ForwardingHub {
///     let base: any Hub
///     func perform(operation: String, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
///         guard operation == "readBattery" else {
///             return try await base.perform(operation: operation, structure: structure, arguments: arguments)
///         }
///         return ["percent": 80]
///     }
/// }
/// ```
public protocol ForwardingHub: Hub {
    /// The hub every operation not implemented here goes to.
    var base: any Hub { get }
}

extension ForwardingHub {
    /// The hub itself when it is a ``RecoverableHub``; otherwise ``base``'s reader: a wrapper that counts calls or
    /// injects a fault keeps what recovery reads of its base's sessions. Return nil to hide them.
    public var sessionReader: (any RecoverableHub)? { (self as? any RecoverableHub) ?? base.sessionReader }

    /// Forwards to ``base``.
    public func status(structure: StructureID) async throws -> HubStatus {
        try await base.status(structure: structure)
    }

    /// Forwards to ``base``.
    public func prepareCommissioning(structure: StructureID) async throws -> String {
        try await base.prepareCommissioning(structure: structure)
    }

    /// Forwards to ``base``.
    public func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest {
        try await base.createAddDeviceRequest(structure: structure, topology: topology)
    }

    /// Forwards to ``base``.
    public func commissionDevice(structure: StructureID, onboardingPayload: String, commissioningID: String) async throws {
        try await base.commissionDevice(structure: structure, onboardingPayload: onboardingPayload, commissioningID: commissioningID)
    }

    /// Forwards to ``base``.
    public func fetchRooms(structure: StructureID) async throws -> [Room] {
        try await base.fetchRooms(structure: structure)
    }

    /// Forwards to ``base``.
    public func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        try await base.configureDevice(structure: structure, name: name, roomName: roomName)
    }

    /// Forwards to ``base``.
    public func completeCommissioning(structure: StructureID) async throws -> [String] {
        try await base.completeCommissioning(structure: structure)
    }

    /// Forwards to ``base``.
    public func cancelCommissioning(structure: StructureID) async throws -> Bool {
        try await base.cancelCommissioning(structure: structure)
    }

    /// Forwards to ``base``.
    public func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation {
        try await base.basicInformation(structure: structure, deviceID: deviceID)
    }

    /// Forwards to ``base``.
    public func borderRouters(structure: StructureID) async throws -> [BorderRouterDescription] {
        try await base.borderRouters(structure: structure)
    }

    /// Forwards to ``base``.
    public func borderRouter(structure: StructureID, deviceID: String) async throws -> BorderRouterDescription {
        try await base.borderRouter(structure: structure, deviceID: deviceID)
    }

    /// Forwards to ``base``.
    public func threadCapabilities(structure: StructureID, deviceID: String) async throws -> ThreadCapabilities {
        try await base.threadCapabilities(structure: structure, deviceID: deviceID)
    }

    /// Forwards to ``base``.
    public func activateEpskc(structure: StructureID, deviceID: String, requestedDurationSeconds: Int?) async throws
        -> EpskcActivation
    {
        try await base.activateEpskc(structure: structure, deviceID: deviceID, requestedDurationSeconds: requestedDurationSeconds)
    }

    /// Forwards to ``base``.
    public func deactivateEpskc(structure: StructureID, deviceID: String) async throws {
        try await base.deactivateEpskc(structure: structure, deviceID: deviceID)
    }

    /// Forwards to ``base``.
    public func joinThreadNetwork(structure: StructureID, deviceID: String, operationalDataset: [UInt8]) async throws
        -> NetworkOperationResult
    {
        try await base.joinThreadNetwork(structure: structure, deviceID: deviceID, operationalDataset: operationalDataset)
    }

    /// Forwards to ``base``.
    public func leaveThreadNetwork(structure: StructureID, deviceID: String) async throws -> NetworkOperationResult {
        try await base.leaveThreadNetwork(structure: structure, deviceID: deviceID)
    }

    /// Forwards to ``base``.
    public func threadNetworkSettings(structure: StructureID) async throws -> ThreadNetworkSettings {
        try await base.threadNetworkSettings(structure: structure)
    }

    /// Forwards to ``base``.
    public func setInternetAccess(structure: StructureID, option: InternetAccessOption) async throws -> ThreadNetworkSettings {
        try await base.setInternetAccess(structure: structure, option: option)
    }

    /// Subscribes to ``base``'s events.
    public func subscribe(structure: StructureID, _ handler: @escaping @Sendable (HubEvent) -> Void) async
        -> any HubEventSubscription
    {
        await base.subscribe(structure: structure, handler)
    }

    /// Forwards to ``base``, custom operations included.
    public func perform(operation: String, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
        try await base.perform(operation: operation, structure: structure, arguments: arguments)
    }
}
