/// The identifier of a structure (a home) on a hub.
public typealias StructureID = String

/// The Matter add-device request's topology: which ecosystem is asking and which homes the user may pick.
public struct Topology: Sendable, Hashable {
    /// Shown to the user by the platform's commissioning UI, for example "Google Home".
    public var ecosystemName: String
    /// Display names of the homes offered. None: no home picker; one: picked automatically; more: a picker.
    public var homes: [String]

    public init(ecosystemName: String, homes: [String]) {
        self.ecosystemName = ecosystemName
        self.homes = homes
    }
}

/// A created add-device request, ready to commission a device.
public struct AddDeviceRequest: Sendable, Hashable {
    public var requestID: String
    public var topology: Topology

    public init(requestID: String, topology: Topology) {
        self.requestID = requestID
        self.topology = topology
    }
}

/// A room of a structure.
public struct Room: Sendable, Hashable {
    public var id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// What a hub reports about itself and its structure; the guards are checked against it.
public struct HubStatus: Sendable, Hashable {
    /// The hub is powered and connected to the cloud.
    public var online: Bool
    /// The hub can be reached from where MatterFlow runs.
    public var reachable: Bool
    /// The user has granted this app access to the structure.
    public var permissionGranted: Bool
    /// A commissioning session is active on the structure.
    public var activeSession: Bool

    public init(online: Bool, reachable: Bool, permissionGranted: Bool, activeSession: Bool) {
        self.online = online
        self.reachable = reachable
        self.permissionGranted = permissionGranted
        self.activeSession = activeSession
    }
}

/// A device's Matter Basic Information.
public struct BasicInformation: Sendable, Hashable {
    public var vendorName: String
    public var vendorID: Int
    public var productID: Int
    public var productName: String
    public var softwareVersion: Int

    public init(vendorName: String, vendorID: Int, productID: Int, productName: String, softwareVersion: Int) {
        self.vendorName = vendorName
        self.vendorID = vendorID
        self.productID = productID
        self.productName = productName
        self.softwareVersion = softwareVersion
    }
}
