import MatterFlow
import MatterFlowJSON

/// One simulated home: a structure, its hub's condition, its rooms and devices, and optionally a commissioning
/// session that is already active. This is the value behind a home description file (see `docs/home-format.md`),
/// the state a ``HomeStateStore`` persists, and what ``SimulatedHub/snapshot(structure:)`` returns.
///
/// Decode one with ``HomeDescription/load(path:)`` or ``HomeDescription/parse(_:file:)`` (every problem reported
/// with line and column), write one with ``HomeDescription/jsonText``.
public struct HomeDescription: Sendable, Hashable {
    /// The newest home format version this module reads and writes.
    public static let currentVersion = 1

    /// The structure (the home) as the hub knows it.
    public struct Structure: Sendable, Hashable {
        /// The identifier workflows address the structure by.
        public var id: StructureID
        /// The display name, offered as the home in the add-device request.
        public var name: String

        /// A structure with an ID and a display name.
        public init(id: StructureID, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// The hub's connectivity, as the guards and the `hubOffline` / `hubUnreachable` errors see it.
    public struct HubConditions: Sendable, Hashable {
        /// The hub is powered and connected to the cloud.
        public var online: Bool
        /// The hub can be reached from where MatterFlow runs.
        public var reachable: Bool

        /// Conditions; a hub is online and reachable unless told otherwise.
        public init(online: Bool = true, reachable: Bool = true) {
            self.online = online
            self.reachable = reachable
        }
    }

    /// A device in the structure, with its Matter Basic Information.
    public struct Device: Sendable, Hashable {
        /// The device's unique identifier in the structure.
        public var id: String
        /// The name the user gave it (or its product name, until configured).
        public var name: String
        /// The name of the room it is in, if any; always one of the home's rooms.
        public var room: String?
        /// Basic Information: the Matter vendor ID (0...0xFFFF).
        public var vendorID: Int
        /// Basic Information: the Matter product ID (0...0xFFFF).
        public var productID: Int
        /// Basic Information: the vendor's name.
        public var vendorName: String
        /// Basic Information: the product's name.
        public var productName: String
        /// Basic Information: the software version number.
        public var softwareVersion: Int
        /// The public identity of the onboarding payload that commissioned it (vendor ID, product ID and
        /// discriminator; never the passcode). Commissioning a payload with the same key fails with
        /// `deviceAlreadyCommissioned`.
        public var payloadKey: String?

        /// A device with its Basic Information.
        public init(
            id: String, name: String, room: String? = nil, vendorID: Int, productID: Int, vendorName: String,
            productName: String, softwareVersion: Int, payloadKey: String? = nil
        ) {
            self.id = id
            self.name = name
            self.room = room
            self.vendorID = vendorID
            self.productID = productID
            self.vendorName = vendorName
            self.productName = productName
            self.softwareVersion = softwareVersion
            self.payloadKey = payloadKey
        }

        /// The device's Matter Basic Information.
        public var basicInformation: BasicInformation {
            BasicInformation(
                vendorName: vendorName, vendorID: vendorID, productID: productID, productName: productName,
                softwareVersion: softwareVersion)
        }
    }

    /// A product that commissions as a bridge: besides itself, it brings `bridgedDevices` more devices.
    public struct Bridge: Sendable, Hashable {
        /// The bridge product's vendor ID.
        public var vendorID: Int
        /// The bridge product's product ID.
        public var productID: Int
        /// How many devices behind the bridge join with it (at least 1).
        public var bridgedDevices: Int

        /// A bridge product and how many devices it brings.
        public init(vendorID: Int, productID: Int, bridgedDevices: Int) {
            self.vendorID = vendorID
            self.productID = productID
            self.bridgedDevices = bridgedDevices
        }
    }

    /// How the simulator behaves beyond the home's contents.
    public struct Simulation: Sendable, Hashable {
        /// Seconds each operation takes, on the hub's clock. Operations not listed answer at once.
        public var latencySeconds: [SimulatedOperation: Double]
        /// Products that commission as bridges.
        public var bridges: [Bridge]
        /// How long an active session's lease lasts without activity; nil: ``SessionLease/defaultDuration``.
        public var sessionLeaseSeconds: Double?

        /// Settings; by default no latency and no bridges.
        public init(latencySeconds: [SimulatedOperation: Double] = [:], bridges: [Bridge] = []) {
            self.latencySeconds = latencySeconds
            self.bridges = bridges
        }

        /// The simulated latency of an operation.
        public func latency(of operation: SimulatedOperation) -> Duration {
            guard let seconds = latencySeconds[operation], seconds > 0 else { return .zero }
            return .seconds(rounding: seconds)
        }
    }

    /// The structure's identity.
    public var structure: Structure
    /// The hub's connectivity.
    public var hub: HubConditions
    /// The user has granted this app access to the structure.
    public var permissionGranted: Bool
    /// The rooms, in display order; names are unique.
    public var rooms: [Room]
    /// Every device, including those commissioned by the active session and not yet completed.
    public var devices: [Device]
    /// A commissioning session that is active (any phase from `prepared` to `configured`), if any.
    public var activeSession: CommissioningSessionSnapshot?
    /// Seeds the identifiers the hub issues: the same seed and counter give the same IDs on every machine.
    public var seed: UInt64
    /// How many identifiers the hub has issued; kept so identifiers stay unique across persisted runs. At most
    /// ``issuedIDsRange``'s upper bound (2^53); the counter starts again from 0 after it.
    public var issuedIDs: Int

    /// The values `issuedIDs` may take in a home file: 0...2^53.
    public static let issuedIDsRange = NumberRange(integers: 0...NumberRange.largestExactInteger, unit: "identifiers")
    /// Latencies and bridges.
    public var simulation: Simulation
    /// Border routers and the structure's internet-access policy (see `HomeDescription+Thread.swift`).
    public var thread: ThreadSetup

    /// A home; only the structure is required, the rest defaults to a connected, permitted, empty home.
    public init(
        structure: Structure, hub: HubConditions = HubConditions(), permissionGranted: Bool = true, rooms: [Room] = [],
        devices: [Device] = [], activeSession: CommissioningSessionSnapshot? = nil, seed: UInt64 = 0,
        issuedIDs: Int = 0, simulation: Simulation = Simulation(), thread: ThreadSetup = ThreadSetup()
    ) {
        self.structure = structure
        self.hub = hub
        self.permissionGranted = permissionGranted
        self.rooms = rooms
        self.devices = devices
        self.activeSession = activeSession
        self.seed = seed
        self.issuedIDs = issuedIDs
        self.simulation = simulation
        self.thread = thread
    }

    /// The room with a name, if any.
    public func room(named name: String) -> Room? {
        rooms.first { $0.name == name }
    }

    /// What to say of a room name no room has: the one meant when one is near (` (did you mean "Kitchen"?)`), else
    /// the rooms there are, the first ten of a long list (a building's 300 units would fill a screen per mistake).
    static func unknownRoomAdvice(_ name: String, among rooms: [Room]) -> String {
        let names = rooms.map(\.name)
        let hint = SpellingSuggestion.hint(for: name, among: names)
        guard hint.isEmpty else { return hint }
        let shown = names.prefix(10).joined(separator: ", ")
        return " (rooms: \(names.isEmpty ? "none" : shown)\(names.count > 10 ? ", and \(names.count - 10) more" : ""))"
    }

    /// The device with an identifier, if any.
    public func device(id: String) -> Device? {
        devices.first { $0.id == id }
    }

    /// The same home with every simulated latency removed, for tests that do not want to drive a clock.
    public var withoutSimulatedLatency: HomeDescription {
        var copy = self
        copy.simulation.latencySeconds = [:]
        return copy
    }
}
