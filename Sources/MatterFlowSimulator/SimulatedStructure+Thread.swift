import MatterFlow
import MatterFlowJSON
import ThreadDataset

/// The hub's rules for border routers and the structure's Thread settings, without timing or persistence (the
/// hub adds those). ePSKc lives in the hub (see `SimulatedHub+Epskc.swift`), since it needs the clock.
extension SimulatedStructure {
    /// The home's border routers as the hub describes them, in the home's order.
    func borderRouterDescriptions() throws(FlowError) -> [BorderRouterDescription] {
        try requireReachable()
        return home.thread.borderRouters.compactMap { router in
            home.device(id: router.deviceID).map { describe(router, device: $0) }
        }
    }

    /// A border router by device ID, once the hub is known to be online.
    /// - Throws: `hubOffline`, `deviceNotFound` (with a suggestion), or `notBorderRouter` naming the home's border
    ///   routers.
    func borderRouter(_ deviceID: String) throws(FlowError)
        -> (index: Int, router: HomeDescription.BorderRouter, device: HomeDescription.Device)
    {
        try requireReachable()
        let routerIDs = home.thread.borderRouters.map(\.deviceID)
        guard let device = home.device(id: deviceID) else {
            let hint = SpellingSuggestion.hint(for: deviceID, among: home.devices.map(\.id))
            throw FlowError(
                .deviceNotFound,
                "\"\(home.structure.name)\" has no device with ID \"\(deviceID)\"\(hint)"
                    + (hint.isEmpty ? Self.routersHint(routerIDs) : ""))
        }
        guard let index = home.thread.borderRouters.firstIndex(where: { $0.deviceID == deviceID }) else {
            throw FlowError(
                .notBorderRouter,
                "\"\(device.name)\" (\(deviceID)) is not a border router (device type \(borderRouterDeviceType))"
                    + Self.routersHint(routerIDs))
        }
        return (index, home.thread.borderRouters[index], device)
    }

    private static func routersHint(_ ids: [String]) -> String {
        ids.isEmpty ? "; this home has no border router" : " (border routers: \(ids.joined(separator: ", ")))"
    }

    /// A border router as `listBorderRouters` and `readBorderRouter` report it.
    func describe(_ router: HomeDescription.BorderRouter, device: HomeDescription.Device) -> BorderRouterDescription {
        BorderRouterDescription(
            deviceID: router.deviceID, name: device.name, basicInformation: device.basicInformation,
            traits: router.traits, network: router.network?.summary)
    }

    /// Fails unless the border router supports a member of a trait.
    /// - Throws: `notSupported` naming the trait and the member, and saying whether the whole trait is missing.
    func requireSupport(
        _ router: HomeDescription.BorderRouter, _ device: HomeDescription.Device, _ traitName: String,
        _ kind: TraitSupport.MemberKind, _ member: String
    ) throws(FlowError) {
        guard !router.supports(traitName, kind, member) else { return }
        let subject = "border router \"\(device.name)\" (\(router.deviceID)) does not support \(traitName).\(member)"
        guard let trait = router.trait(traitName) else {
            throw FlowError(.notSupported, "\(subject): it lacks the \(traitName) trait entirely")
        }
        let supported = trait.members(kind)
        throw FlowError(
            .notSupported,
            "\(subject): its \(traitName) trait has no \(kind.singular) \(member) (\(kind.rawValue): "
                + (supported.isEmpty ? "none" : supported.joined(separator: ", ")) + ")")
    }

    /// The `ThreadNetworkCapabilities` attributes; an attribute the trait lacks reads as nil (not reported).
    /// - Throws: `notSupported` when the trait is missing.
    func threadCapabilities(deviceID: String) throws(FlowError) -> ThreadCapabilities {
        let (_, router, device) = try borderRouter(deviceID)
        let capabilities = BorderRouterTraits.capabilities
        guard router.trait(capabilities) != nil else {
            throw FlowError(
                .notSupported,
                "border router \"\(device.name)\" (\(deviceID)) does not support \(capabilities).\(BorderRouterTraits.epskcSupported) "
                    + "or \(capabilities).\(BorderRouterTraits.internetAccessOption): it lacks the \(capabilities) trait entirely")
        }
        return ThreadCapabilities(
            epskcSupported: router.supports(capabilities, .attributes, BorderRouterTraits.epskcSupported)
                ? router.capabilities.epskcSupported : nil,
            internetAccessOption: router.supports(capabilities, .attributes, BorderRouterTraits.internetAccessOption)
                ? router.capabilities.internetAccessOption : nil)
    }

    // MARK: - Network membership

    /// Joins or migrates a border router to the network of a dataset (see ``ThreadMembership``).
    mutating func joinNetwork(deviceID: String, dataset bytes: [UInt8]) throws(FlowError) -> NetworkOperationResult {
        let (index, router, device) = try borderRouter(deviceID)
        try requireSupport(router, device, BorderRouterTraits.management, .commands, BorderRouterTraits.joinNetwork)
        let dataset: OperationalDataset
        do {
            dataset = try OperationalDataset(tlvs: bytes)
        } catch {
            throw FlowError(.invalidDataset, "the Operational Dataset is malformed: \(error.message)")
        }
        var membership = ThreadMembership(network: router.network)
        let status = try membership.join(dataset)
        home.thread.borderRouters[index].network = membership.network
        return NetworkOperationResult(
            status: status, network: membership.network?.summary,
            migratedDevices: status == .migrated ? router.threadDevices : [])
    }

    /// Leaves the network and forgets the dataset. The Thread devices attached to the border router stay on the
    /// network it left and are no longer listed under it. Leaving while on no network changes nothing.
    mutating func leaveNetwork(deviceID: String) throws(FlowError) -> NetworkOperationResult {
        let (index, router, device) = try borderRouter(deviceID)
        try requireSupport(router, device, BorderRouterTraits.management, .commands, BorderRouterTraits.leaveNetwork)
        var membership = ThreadMembership(network: router.network)
        let status = membership.leave()
        home.thread.borderRouters[index].network = membership.network
        if status == .left { home.thread.borderRouters[index].threadDevices = [] }
        return NetworkOperationResult(status: status, network: nil)
    }

    // MARK: - Structure settings

    /// The structure's `ThreadNetworkSettings`.
    func threadNetworkSettings() throws(FlowError) -> ThreadNetworkSettings {
        try requireReachable()
        return settings(home.thread.internetAccessOption)
    }

    /// Sets the structure's internet-access option after checking permission, the hub, and that some border router
    /// supports the option.
    mutating func setInternetAccess(_ option: InternetAccessOption) throws(FlowError) -> ThreadNetworkSettings {
        guard home.permissionGranted else {
            throw FlowError(
                .permissionNotGranted,
                "the user has not granted this app access to \"\(home.structure.name)\"; updating its Thread settings needs it")
        }
        try requireReachable()
        let result = settings(option)
        // Turning internet access off is always possible: it asks nothing of a router.
        guard option == .none || !result.appliedTo.isEmpty else {
            let offered = home.thread.borderRouters.map { router in
                "\(router.deviceID): \(router.capabilities.internetAccessOption?.rawValue ?? "not reported")"
            }
            throw FlowError(
                .notSupported,
                "no border router of \"\(home.structure.name)\" supports internet access option \(option.rawValue) "
                    + "(internetAccessOption capabilities: \(offered.isEmpty ? "no border routers" : offered.joined(separator: ", ")))")
        }
        home.thread.internetAccessOption = option
        return result
    }

    private func settings(_ option: InternetAccessOption) -> ThreadNetworkSettings {
        ThreadNetworkSettings(
            internetAccessOption: option,
            defaultThreadNetworkID: home.thread.borderRouters.lazy.compactMap(\.network).first?.summary.extendedPANID,
            appliedTo: home.thread.borderRouters.filter { Self.admits($0, option) }.map(\.deviceID))
    }

    /// Whether a border router takes part in an internet-access option: it reports the capability through the
    /// trait, its capability is `all`, `nat64Only` or `dhcpv6PdOnly`, and the option asks for no more than that
    /// (`none` and `unspecified` apply to every such router; `all` needs `all`).
    static func admits(_ router: HomeDescription.BorderRouter, _ option: InternetAccessOption) -> Bool {
        guard router.supports(BorderRouterTraits.capabilities, .attributes, BorderRouterTraits.internetAccessOption),
            let capability = router.capabilities.internetAccessOption
        else { return false }
        switch capability {
        case .none, .unspecified:
            return false
        case .all, .nat64Only, .dhcpv6PdOnly:
            switch option {
            case .unspecified, .none: return true
            case .all: return capability == .all
            case .nat64Only, .dhcpv6PdOnly: return capability == .all || capability == option
            }
        }
    }
}
