import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator

/// What a fixture's run must produce. Every member is optional: only what is given is checked.
public struct FixtureExpectations: Sendable, Hashable {
    /// The error the run must end with (each given field must match).
    public struct ErrorExpectation: Sendable, Hashable {
        /// The canonical code.
        public var code: ErrorCode?
        /// The cause (any name, known or not).
        public var cause: String?
        /// The qualified state the error came from (`commission/commission`).
        public var state: String?
        /// The exact message.
        public var message: String?
        /// Text the message must contain.
        public var messageContains: String?

        /// An expectation; members left nil are not checked.
        public init(
            code: ErrorCode? = nil, cause: String? = nil, state: String? = nil, message: String? = nil,
            messageContains: String? = nil
        ) {
            self.code = code
            self.cause = cause
            self.state = state
            self.message = message
            self.messageContains = messageContains
        }
    }

    /// Inputs the workflow must refuse before any run starts (a malformed onboarding payload, a dataset without its
    /// network key): some input's problem matches every member given.
    public struct InputRefusal: Sendable, Hashable {
        /// The refused input's name.
        public var input: String?
        /// The problem's diagnostic code (`invalidValue`, `missingKey`, `wrongType`, ...).
        public var code: String?
        /// Text the problem's message must contain.
        public var messageContains: String?

        /// An expectation; members left nil are not checked.
        public init(input: String? = nil, code: String? = nil, messageContains: String? = nil) {
            self.input = input
            self.code = code
            self.messageContains = messageContains
        }
    }

    /// What an operation's calls were made with: their arguments as the run passed them to the hub (a secret value
    /// as `"<redacted>"`), each matched as `output` is (an object's members not given are not checked).
    public enum ArgumentsExpectation: Sendable, Hashable {
        /// Every call had these arguments, and there was at least one.
        case every(JSONObject)
        /// The calls, in the order the run made them: exactly one per entry, each with that entry's arguments.
        case each([JSONObject])
    }

    /// How many calls an operation must have had (each given bound must hold), and with what arguments.
    public struct CallExpectation: Sendable, Hashable {
        /// Exactly this many calls.
        public var count: Int?
        /// At least this many calls.
        public var atLeast: Int?
        /// At most this many calls.
        public var atMost: Int?
        /// Exactly this many calls that succeeded.
        public var succeeded: Int?
        /// Exactly this many calls that failed (a timed-out or abandoned call counts as failed).
        public var failed: Int?
        /// The calls' arguments.
        public var arguments: ArgumentsExpectation?

        /// An expectation; members left nil are not checked.
        public init(
            count: Int? = nil, atLeast: Int? = nil, atMost: Int? = nil, succeeded: Int? = nil, failed: Int? = nil,
            arguments: ArgumentsExpectation? = nil
        ) {
            self.arguments = arguments
            self.count = count
            self.atLeast = atLeast
            self.atMost = atMost
            self.succeeded = succeeded
            self.failed = failed
        }
    }

    /// One device of the final home, by the fields given (`room: .some(nil)` means "in no room").
    public struct DeviceExpectation: Sendable, Hashable, CustomStringConvertible {
        /// The device's ID.
        public var id: String?
        /// The device's name.
        public var name: String?
        /// The room: `.some(nil)` for no room, `.some(name)` for a room, nil to not check.
        public var room: String??
        /// Basic Information vendor ID.
        public var vendorID: Int?
        /// Basic Information product ID.
        public var productID: Int?

        /// An expectation; members left nil are not checked.
        public init(
            id: String? = nil, name: String? = nil, room: String?? = nil, vendorID: Int? = nil, productID: Int? = nil
        ) {
            self.id = id
            self.name = name
            self.room = room
            self.vendorID = vendorID
            self.productID = productID
        }

        /// Whether two optional texts are both absent, or both present with the same bytes.
        static func sameBytes(_ lhs: String?, _ rhs: String?) -> Bool {
            switch (lhs, rhs) {
            case (nil, nil): true
            case (let lhs?, let rhs?): lhs.utf8.elementsEqual(rhs.utf8)
            case (nil, _?), (_?, nil): false
            }
        }

        /// Whether a device has every given field.
        public func matches(_ device: HomeDescription.Device) -> Bool {
            if let id, id != device.id { return false }
            // Byte for byte: a device keeps the bytes it is given, which `==` on strings does not compare.
            if let name, !name.utf8.elementsEqual(device.name.utf8) { return false }
            if let room, !Self.sameBytes(room, device.room) { return false }
            if let vendorID, vendorID != device.vendorID { return false }
            if let productID, productID != device.productID { return false }
            return true
        }

        /// `{name: "Lamp", room: "Kitchen"}`.
        public var description: String {
            var fields: [String] = []
            if let id { fields.append("id: \"\(id)\"") }
            if let name { fields.append("name: \"\(name)\"") }
            if let room { fields.append("room: " + (room.map { "\"\($0)\"" } ?? "none")) }
            if let vendorID { fields.append("vendorID: \(vendorID)") }
            if let productID { fields.append("productID: \(productID)") }
            return "{" + fields.joined(separator: ", ") + "}"
        }
    }

    /// The simulated home after the run.
    public struct HubExpectation: Sendable, Hashable {
        /// `.some(nil)`: no session is active; `.some(phase)`: one is, in that phase (nil phase: any).
        public var activeSession: SessionExpectation?
        /// The hub is online.
        public var online: Bool?
        /// The hub is reachable from here.
        public var reachable: Bool?
        /// The user has granted the app's permission.
        public var permissionGranted: Bool?
        /// Every device of the home, in any order.
        public var devices: [DeviceExpectation]?
        /// The devices that were not in the home when the run started, in any order.
        public var newDevices: [DeviceExpectation]?
        /// The structure's internet-access option for Thread devices.
        public var internetAccessOption: InternetAccessOption?
        /// Border routers of the home, by device ID (those not listed are not checked).
        public var borderRouters: [BorderRouterExpectation]?

        /// An expectation; members left nil are not checked.
        public init(
            activeSession: SessionExpectation? = nil, online: Bool? = nil, reachable: Bool? = nil,
            permissionGranted: Bool? = nil, devices: [DeviceExpectation]? = nil, newDevices: [DeviceExpectation]? = nil,
            internetAccessOption: InternetAccessOption? = nil, borderRouters: [BorderRouterExpectation]? = nil
        ) {
            self.activeSession = activeSession
            self.online = online
            self.reachable = reachable
            self.permissionGranted = permissionGranted
            self.devices = devices
            self.newDevices = newDevices
            self.internetAccessOption = internetAccessOption
            self.borderRouters = borderRouters
        }
    }

    /// One border router after the run: its ePSKc state, its Thread network and the devices attached to it.
    public struct BorderRouterExpectation: Sendable, Hashable {
        /// The border router's device ID.
        public var deviceID: String
        /// `stopped`, `started`, `connected`, `accepted` or `disabled`.
        public var epskc: EpskcSession.Phase?
        /// `.some(nil)`: on no network; otherwise the given fields of the network it is on.
        public var network: NetworkExpectation??
        /// The Thread devices attached to it, in any order.
        public var threadDevices: [String]?

        /// An expectation; members left nil are not checked.
        public init(
            deviceID: String, epskc: EpskcSession.Phase? = nil, network: NetworkExpectation?? = nil,
            threadDevices: [String]? = nil
        ) {
            self.deviceID = deviceID
            self.epskc = epskc
            self.network = network
            self.threadDevices = threadDevices
        }
    }

    /// The fields of a Thread network to check.
    public struct NetworkExpectation: Sendable, Hashable, CustomStringConvertible {
        /// The Network Name.
        public var networkName: String?
        /// The Extended PAN ID, 16 hex digits (any case).
        public var extendedPANID: String?
        /// The PAN ID.
        public var panID: Int?
        /// The channel.
        public var channel: Int?

        /// An expectation; members left nil are not checked.
        public init(networkName: String? = nil, extendedPANID: String? = nil, panID: Int? = nil, channel: Int? = nil) {
            self.networkName = networkName
            self.extendedPANID = extendedPANID
            self.panID = panID
            self.channel = channel
        }

        /// Whether a network has every given field (extended PAN IDs compared without regard to case).
        public func matches(_ network: ThreadNetworkSummary) -> Bool {
            if let networkName, networkName != network.networkName { return false }
            if let extendedPANID, extendedPANID.lowercased() != network.extendedPANID.lowercased() { return false }
            if let panID, panID != network.panID { return false }
            if let channel, channel != network.channel { return false }
            return true
        }

        /// `{networkName: "OpenThread-5938", channel: 15}`.
        public var description: String {
            var fields: [String] = []
            if let networkName { fields.append("networkName: \"\(networkName)\"") }
            if let extendedPANID { fields.append("extendedPANID: \(extendedPANID)") }
            if let panID { fields.append("panID: \(panID)") }
            if let channel { fields.append("channel: \(channel)") }
            return "{" + fields.joined(separator: ", ") + "}"
        }
    }

    /// Whether a commissioning session is active after the run.
    public enum SessionExpectation: Sendable, Hashable, CustomStringConvertible {
        /// No session is active.
        case none
        /// A session is active, in this phase (nil: any phase).
        case active(CommissioningSession.Phase?)

        /// `none`, `active` or `active (requested)`.
        public var description: String {
            switch self {
            case .none: "none"
            case .active(let phase): phase.map { "active (\($0.rawValue))" } ?? "active"
            }
        }
    }

    /// `succeeded`, `failed` or `cancelled`.
    public var outcome: RunResult.Outcome?
    /// The fixture's inputs are refused, so no run starts; nothing else is expected then.
    public var inputRefused: InputRefusal?
    /// `.some(nil)`: the run must end without an error.
    public var error: ErrorExpectation??
    /// The exact sequence of visited states (qualified, as in `RunResult.visitedStates`).
    public var path: [String]?
    /// States that must be visited in this order, with any others between them.
    public var pathIncludes: [String]?
    /// States that must never be visited.
    public var pathExcludes: [String]?
    /// Hub calls, by operation.
    public var calls: [SimulatedOperation: CallExpectation]
    /// Calls of custom operations (declared by a catalog file), by name, counted from the run's events.
    public var customCalls: [String: CallExpectation] = [:]
    /// Operations the run called in this order (each call as the run made it, by operation name), with any other
    /// calls between them.
    public var callsInOrder: [String]?
    /// The output: objects match when every member given matches; arrays and scalars must be equal.
    public var output: JSONValue?
    /// Exactly this many warnings, each containing the text at its position.
    public var warnings: [String]?
    /// Exactly this many values shown to the person (assign states' `show`, in order), each matching as ``output``
    /// does, secrets included: what a person would have been shown.
    public var shown: [JSONValue]?
    /// The simulated home after the run.
    public var hub: HubExpectation?
    /// The virtual time at which the run ended.
    public var elapsedSeconds: Double?

    /// An expectation; members left nil are not checked.
    public init(
        outcome: RunResult.Outcome? = nil, error: ErrorExpectation?? = nil, path: [String]? = nil,
        pathIncludes: [String]? = nil, pathExcludes: [String]? = nil,
        calls: [SimulatedOperation: CallExpectation] = [:],
        output: JSONValue? = nil, warnings: [String]? = nil, hub: HubExpectation? = nil, elapsedSeconds: Double? = nil
    ) {
        self.outcome = outcome
        self.error = error
        self.path = path
        self.pathIncludes = pathIncludes
        self.pathExcludes = pathExcludes
        self.calls = calls
        self.output = output
        self.warnings = warnings
        self.hub = hub
        self.elapsedSeconds = elapsedSeconds
    }
}
