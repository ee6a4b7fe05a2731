import MatterFlow

/// The border-router operations of ``Hub`` other than ePSKc (see `SimulatedHub+Epskc.swift`): listing and
/// describing border routers, their capabilities, joining and leaving Thread networks, and the structure's Thread
/// settings. Every call goes through the hub's fault plan, latency and call records; membership and settings
/// changes are saved like any other change.
extension SimulatedHub {
    /// The structure's border routers; `hubOffline` when the hub is offline.
    public func borderRouters(structure: StructureID) async throws -> [BorderRouterDescription] {
        try await perform(.listBorderRouters, structure) { _ in
            try self.existing(structure, else: self.structureNotFound(structure)).borderRouterDescriptions()
        }
    }

    /// One border router: `deviceNotFound`, `notBorderRouter` or `hubOffline` when it cannot be described.
    public func borderRouter(structure: StructureID, deviceID: String) async throws -> BorderRouterDescription {
        try await perform(.readBorderRouter, structure) { _ in
            let state = try self.existing(structure, else: self.deviceMissing(structure, deviceID))
            let (_, router, device) = try state.borderRouter(deviceID)
            return state.describe(router, device: device)
        }
    }

    /// The `ThreadNetworkCapabilities` attributes; `notSupported` when the border router lacks the trait, and nil
    /// for an attribute the trait does not list.
    public func threadCapabilities(structure: StructureID, deviceID: String) async throws -> ThreadCapabilities {
        try await perform(.readThreadCapabilities, structure) { _ in
            try self.existing(structure, else: self.deviceMissing(structure, deviceID)).threadCapabilities(deviceID: deviceID)
        }
    }

    /// Joins (or migrates to) the network of a complete Active Operational Dataset; `alreadyJoined` changes nothing.
    public func joinThreadNetwork(
        structure: StructureID, deviceID: String, operationalDataset: [UInt8]
    ) async throws -> NetworkOperationResult {
        try await perform(.joinThreadNetwork, structure) { _ in
            let result = try self.mutate(structure, else: self.deviceMissing(structure, deviceID)) { state throws(FlowError) in
                try state.joinNetwork(deviceID: deviceID, dataset: operationalDataset)
            }
            // A router that moves to another network resets its Thread stack: an ePSKc key of the old network ends.
            if result.status == .migrated { self.withdrawKey(structure, deviceID) }
            return result
        }
    }

    /// Leaves the network and forgets its dataset; `notOnNetwork` (and no change) when on none.
    public func leaveThreadNetwork(structure: StructureID, deviceID: String) async throws -> NetworkOperationResult {
        try await perform(.leaveThreadNetwork, structure) { _ in
            let result = try self.mutate(structure, else: self.deviceMissing(structure, deviceID)) { state throws(FlowError) in
                try state.leaveNetwork(deviceID: deviceID)
            }
            // Leaving resets the router's Thread stack: an ePSKc key of the network ends with it.
            if result.status == .left { self.withdrawKey(structure, deviceID) }
            return result
        }
    }

    /// The structure's internet-access option, default Thread network and the border routers the option applies to.
    public func threadNetworkSettings(structure: StructureID) async throws -> ThreadNetworkSettings {
        try await perform(.readThreadNetworkSettings, structure) { _ in
            try self.existing(structure, else: self.structureNotFound(structure)).threadNetworkSettings()
        }
    }

    /// Sets the internet-access option: `permissionNotGranted`, `hubOffline`, or `notSupported` when no border
    /// router supports the option.
    public func setInternetAccess(structure: StructureID, option: InternetAccessOption) async throws -> ThreadNetworkSettings {
        try await perform(.setInternetAccess, structure) { _ in
            try self.mutate(structure, else: self.structureNotFound(structure)) { state throws(FlowError) in
                try state.setInternetAccess(option)
            }
        }
    }

    /// The error for a device of a structure the hub does not know (its operations declare `deviceNotFound`).
    func deviceMissing(_ structure: StructureID, _ deviceID: String) -> FlowError {
        FlowError(
            .deviceNotFound,
            "no device \"\(deviceID)\": structure \"\(structure)\" is not known to this hub\(knownStructuresHint(structure))")
    }
}
