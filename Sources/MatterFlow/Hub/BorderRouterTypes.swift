/// The device type of Google border routers in the Home APIs.
public let borderRouterDeviceType = "home.matter.6006.types.0161"

/// Whether, and how, a border router gives Thread devices internet access.
public enum InternetAccessOption: String, Sendable, Hashable, CaseIterable {
    case unspecified, none, all, nat64Only, dhcpv6PdOnly
}

/// What identifies a Thread network.
public struct ThreadNetworkSummary: Sendable, Hashable {
    /// The network's name.
    public var networkName: String
    /// The PAN ID, 0...65535.
    public var panID: Int
    /// Lowercase hex, 16 digits.
    public var extendedPANID: String
    /// The radio channel, 11...26.
    public var channel: Int

    /// A summary of a network with these values.
    public init(networkName: String, panID: Int, extendedPANID: String, channel: Int) {
        self.networkName = networkName
        self.panID = panID
        self.extendedPANID = extendedPANID
        self.channel = channel
    }
}

/// Which attributes, commands and events of a trait a device supports.
public struct TraitSupport: Sendable, Hashable {
    /// The trait, for example `ThreadNetworkManagement`.
    public var name: String
    /// The attributes of the trait the device supports, by name.
    public var attributes: [String]
    /// The commands of the trait the device supports, by name.
    public var commands: [String]
    /// The events of the trait the device supports, by name.
    public var events: [String]

    /// Support for the members listed; a list left out is empty.
    public init(name: String, attributes: [String] = [], commands: [String] = [], events: [String] = []) {
        self.name = name
        self.attributes = attributes
        self.commands = commands
        self.events = events
    }
}

/// A border router as the hub describes it.
public struct BorderRouterDescription: Sendable, Hashable {
    /// The border router's device ID.
    public var deviceID: String
    /// The border router's name.
    public var name: String
    /// The device type: ``borderRouterDeviceType`` for a border router.
    public var deviceType: String
    /// What the device's Basic Information reports.
    public var basicInformation: BasicInformation
    /// Supported traits; a trait that is absent is not supported at all.
    public var traits: [TraitSupport]
    /// The Thread network it is on, if any.
    public var network: ThreadNetworkSummary?

    /// A description of a border router; its device type is ``borderRouterDeviceType`` unless given.
    public init(
        deviceID: String, name: String, deviceType: String = borderRouterDeviceType, basicInformation: BasicInformation,
        traits: [TraitSupport], network: ThreadNetworkSummary?
    ) {
        self.deviceID = deviceID
        self.name = name
        self.deviceType = deviceType
        self.basicInformation = basicInformation
        self.traits = traits
        self.network = network
    }

    /// Supported members as `Trait.member` strings, for conditions (`contains`).
    public var supportedMembers: (attributes: [String], commands: [String], events: [String]) {
        (
            traits.flatMap { trait in trait.attributes.map { "\(trait.name).\($0)" } },
            traits.flatMap { trait in trait.commands.map { "\(trait.name).\($0)" } },
            traits.flatMap { trait in trait.events.map { "\(trait.name).\($0)" } }
        )
    }
}

/// The `ThreadNetworkCapabilities` trait's attributes; nil where the device does not report one.
public struct ThreadCapabilities: Sendable, Hashable {
    /// Whether the border router offers ePSKc; nil when it does not report it.
    public var epskcSupported: Bool?
    /// The internet access the border router reports it can give; nil when it does not report it.
    public var internetAccessOption: InternetAccessOption?

    /// Capabilities with these attribute values.
    public init(epskcSupported: Bool?, internetAccessOption: InternetAccessOption?) {
        self.epskcSupported = epskcSupported
        self.internetAccessOption = internetAccessOption
    }
}

/// The response to activating ePSKc mode. Its description never shows the key.
public struct EpskcActivation: Sendable, Hashable, CustomStringConvertible, CustomReflectable {
    /// `success` when a key was issued.
    public var status: String
    /// The one-time key (9 digits). Secret.
    public var epskc: String
    /// How long the key is valid, as the border router granted it.
    public var validDurationSeconds: Int

    /// An activation response with these members.
    public init(status: String, epskc: String, validDurationSeconds: Int) {
        self.status = status
        self.epskc = epskc
        self.validDurationSeconds = validDurationSeconds
    }

    /// The status and duration; the key is shown as `<redacted>`.
    public var description: String {
        "EpskcActivation(status: \(status), epskc: \(RunOptions.redacted), validDurationSeconds: \(validDurationSeconds))"
    }

    /// What `dump` and debuggers show: the key as `<redacted>`, as ``description`` does.
    public var customMirror: Mirror {
        Mirror(self, children: ["status": status, "epskc": RunOptions.redacted, "validDurationSeconds": validDurationSeconds])
    }
}

/// What joining or leaving a Thread network did (`NetworkOperationStatus` in the Home APIs).
public enum NetworkOperationStatus: String, Sendable, Hashable, CaseIterable {
    /// The border router was on no network and joined this one.
    case joined
    /// It was already on this network (same Extended PAN ID, channel and Network Key): nothing changed.
    case alreadyJoined
    /// It was on another network and moved to this one, with the Thread devices attached to it.
    case migrated
    /// It left its network and forgot the dataset.
    case left
    /// It was on no network, so leaving changed nothing.
    case notOnNetwork
}

/// The outcome of joining or leaving a Thread network.
public struct NetworkOperationResult: Sendable, Hashable {
    /// What the operation did.
    public var status: NetworkOperationStatus
    /// The network the border router is on afterwards.
    public var network: ThreadNetworkSummary?
    /// Thread devices that moved with a migrating border router.
    public var migratedDevices: [String]

    /// An outcome with these members; no devices migrated unless given.
    public init(status: NetworkOperationStatus, network: ThreadNetworkSummary?, migratedDevices: [String] = []) {
        self.status = status
        self.network = network
        self.migratedDevices = migratedDevices
    }
}

/// The structure-level `ThreadNetworkSettings` trait.
public struct ThreadNetworkSettings: Sendable, Hashable {
    /// The structure's internet-access policy.
    public var internetAccessOption: InternetAccessOption
    /// The ID of the structure's default Thread network (the simulated hub gives an Extended PAN ID); nil when it has
    /// none.
    public var defaultThreadNetworkID: String?
    /// Border routers the option applies to (those that support it).
    public var appliedTo: [String]

    /// Settings with these members; the option applies to no border router unless given.
    public init(internetAccessOption: InternetAccessOption, defaultThreadNetworkID: String?, appliedTo: [String] = []) {
        self.internetAccessOption = internetAccessOption
        self.defaultThreadNetworkID = defaultThreadNetworkID
        self.appliedTo = appliedTo
    }
}
