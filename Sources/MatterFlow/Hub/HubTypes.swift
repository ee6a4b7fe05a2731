/// The identifier of a structure (a home) on a hub.
public typealias StructureID = String

/// The Matter add-device request's topology: which ecosystem is asking and which homes the user may pick.
public struct Topology: Sendable, Hashable {
    /// Shown to the user by the platform's commissioning UI, for example "Google Home".
    public var ecosystemName: String
    /// Display names of the homes offered. None: no home picker; one: picked automatically; more: a picker.
    public var homes: [String]

    /// A topology with these members.
    public init(ecosystemName: String, homes: [String]) {
        self.ecosystemName = ecosystemName
        self.homes = homes
    }
}

/// A created add-device request, ready to commission a device.
public struct AddDeviceRequest: Sendable, Hashable {
    /// The request's ID, as the hub issued it.
    public var requestID: String
    /// The request's topology, as the hub answered it.
    public var topology: Topology

    /// A request with these members.
    public init(requestID: String, topology: Topology) {
        self.requestID = requestID
        self.topology = topology
    }
}

/// A room of a structure.
public struct Room: Sendable, Hashable {
    /// The room's ID.
    public var id: String
    /// The room's name, by which workflows choose it.
    public var name: String

    /// A room with this ID and name.
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
    /// Who holds the active session, as far as the hub knows (nil: it does not say, or no session is active); the
    /// `noActiveSession` guard's `sessionBusy` names it.
    public var holder: SessionHolder?

    /// A status with these values.
    public init(online: Bool, reachable: Bool, permissionGranted: Bool, activeSession: Bool, holder: SessionHolder? = nil) {
        self.online = online
        self.reachable = reachable
        self.permissionGranted = permissionGranted
        self.activeSession = activeSession
        self.holder = holder
    }
}

/// A device's Matter Basic Information.
public struct BasicInformation: Sendable, Hashable {
    /// The vendor's name.
    public var vendorName: String
    /// The Matter vendor ID.
    public var vendorID: Int
    /// The Matter product ID.
    public var productID: Int
    /// The product's name.
    public var productName: String
    /// The software version number.
    public var softwareVersion: Int

    /// Basic Information with these values.
    public init(vendorName: String, vendorID: Int, productID: Int, productName: String, softwareVersion: Int) {
        self.vendorName = vendorName
        self.vendorID = vendorID
        self.productID = productID
        self.productName = productName
        self.softwareVersion = softwareVersion
    }
}
