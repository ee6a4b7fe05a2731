/// Border-router operations and hub events. Each has a default that reports it unsupported (or, for events, that
/// delivers none), so a hub that only commissions need not implement them.
extension Hub {
    /// Throws `notSupported`.
    public func borderRouters(structure: StructureID) async throws -> [BorderRouterDescription] {
        throw FlowError.unsupportedByHub("listing border routers")
    }

    /// Finds the router in ``borderRouters(structure:)``; throws `deviceNotFound` when none has `deviceID`.
    public func borderRouter(structure: StructureID, deviceID: String) async throws -> BorderRouterDescription {
        let routers = try await borderRouters(structure: structure)
        guard let router = routers.first(where: { $0.deviceID == deviceID }) else {
            let known = routers.map(\.deviceID)
            throw FlowError(
                .deviceNotFound,
                "no border router has device ID \"\(deviceID)\""
                    + (known.isEmpty ? "; this structure has none" : " (border routers: \(known.joined(separator: ", ")))"))
        }
        return router
    }

    /// Throws `notSupported`.
    public func threadCapabilities(structure: StructureID, deviceID: String) async throws -> ThreadCapabilities {
        throw FlowError.unsupportedByHub("ThreadNetworkCapabilities")
    }

    /// Throws `notSupported`.
    public func activateEpskc(structure: StructureID, deviceID: String, requestedDurationSeconds: Int?) async throws
        -> EpskcActivation
    {
        throw FlowError.unsupportedByHub("ThreadNetworkManagement.activateEpskcMode")
    }

    /// Throws `notSupported`.
    public func deactivateEpskc(structure: StructureID, deviceID: String) async throws {
        throw FlowError.unsupportedByHub("ThreadNetworkManagement.deactivateEpskcMode")
    }

    /// Throws `notSupported`.
    public func joinThreadNetwork(structure: StructureID, deviceID: String, operationalDataset: [UInt8]) async throws
        -> NetworkOperationResult
    {
        throw FlowError.unsupportedByHub("ThreadNetworkManagement.joinNetwork")
    }

    /// Throws `notSupported`.
    public func leaveThreadNetwork(structure: StructureID, deviceID: String) async throws -> NetworkOperationResult {
        throw FlowError.unsupportedByHub("ThreadNetworkManagement.leaveNetwork")
    }

    /// Throws `notSupported`.
    public func threadNetworkSettings(structure: StructureID) async throws -> ThreadNetworkSettings {
        throw FlowError.unsupportedByHub("ThreadNetworkSettings")
    }

    /// Throws `notSupported`.
    public func setInternetAccess(structure: StructureID, option: InternetAccessOption) async throws -> ThreadNetworkSettings {
        throw FlowError.unsupportedByHub("ThreadNetworkSettings.internetAccessOption")
    }

    /// Delivers no events (``NoEvents``).
    public func subscribe(structure: StructureID, _ handler: @escaping @Sendable (HubEvent) -> Void) async
        -> any HubEventSubscription
    {
        NoEvents()
    }
}

extension FlowError {
    /// The hub does not implement a feature at all.
    static func unsupportedByHub(_ feature: String) -> FlowError {
        FlowError(.notSupported, "this hub does not support \(feature)")
    }
}
