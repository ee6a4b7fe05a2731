import MatterFlow

extension HomeDescription {
    /// The Thread side of a home: the structure's internet-access policy (the `ThreadNetworkSettings` trait) and
    /// its border routers. The `thread` member of a home description.
    public struct ThreadSetup: Sendable, Hashable {
        /// The structure's internet-access option, applied to the border routers that support it.
        public var internetAccessOption: InternetAccessOption
        /// The border routers, each one a device of the home.
        public var borderRouters: [BorderRouter]

        /// A Thread setup; by default no border routers and the option `unspecified`.
        public init(internetAccessOption: InternetAccessOption = .unspecified, borderRouters: [BorderRouter] = []) {
            self.internetAccessOption = internetAccessOption
            self.borderRouters = borderRouters
        }

        /// Whether there is nothing to describe (the member is then left out of the file).
        public var isEmpty: Bool { internetAccessOption == .unspecified && borderRouters.isEmpty }

        /// The border router that is a device, if any.
        public func borderRouter(deviceID: String) -> BorderRouter? {
            borderRouters.first { $0.deviceID == deviceID }
        }
    }

    /// A border router (device type ``MatterFlow/borderRouterDeviceType``): one of the home's devices, with its
    /// capabilities, supported traits, Thread network, attached Thread devices and a simulated commissioner.
    public struct BorderRouter: Sendable, Hashable {
        /// The device it is (a member of ``HomeDescription/devices``, which gives its name, room and Basic
        /// Information).
        public var deviceID: String
        /// Its `ThreadNetworkCapabilities` attributes (nil: not reported).
        public var capabilities: ThreadCapabilities
        /// The traits and members it supports; a trait that is absent is not supported at all.
        public var traits: [TraitSupport]
        /// The Thread network it is on, kept without its secrets; nil when it is on none.
        public var network: ThreadNetworkRecord?
        /// Thread devices attached to it (devices of the home); they migrate with it to another network.
        public var threadDevices: [String]
        /// What a commissioner does after each ePSKc activation on this border router.
        public var commissioner: [CommissionerStep]

        /// A border router; by default it supports ePSKc and every internet-access option, has every trait, is on
        /// no network and no commissioner ever connects.
        public init(
            deviceID: String,
            capabilities: ThreadCapabilities = ThreadCapabilities(epskcSupported: true, internetAccessOption: .all),
            traits: [TraitSupport] = BorderRouterTraits.all, network: ThreadNetworkRecord? = nil,
            threadDevices: [String] = [], commissioner: [CommissionerStep] = []
        ) {
            self.deviceID = deviceID
            self.capabilities = capabilities
            self.traits = traits
            self.network = network
            self.threadDevices = threadDevices
            self.commissioner = commissioner
        }

        /// The trait with a name, when supported.
        public func trait(_ name: String) -> TraitSupport? {
            traits.first { $0.name == name }
        }

        /// Whether it supports a member of a trait.
        public func supports(_ trait: String, _ kind: TraitSupport.MemberKind, _ member: String) -> Bool {
            self.trait(trait)?.members(kind).contains(member) ?? false
        }

        /// Whether it offers ePSKc: `epskcSupported` is true (not false, not unreported).
        public var offersEpskc: Bool { capabilities.epskcSupported == true }
    }

    /// One thing a simulated commissioner does after an ePSKc key is activated, at a time counted from the
    /// activation. Steps that would come after the key ended are never taken.
    public struct CommissionerStep: Sendable, Hashable {
        /// What the commissioner does.
        public enum Action: String, Sendable, Hashable, CaseIterable {
            /// Connects with the issued key, has its petition accepted and leaves `sessionSeconds` later: the
            /// key is used (`keyUsed`).
            case useKey
            /// Connects with the issued key and stays connected, so the key's expiry ends its session.
            case connect
            /// Tries a wrong key, `count` times; the tenth wrong key withdraws the key (`cancelled`).
            case wrongKey
            /// Another app deactivates ePSKc mode (`cancelled`).
            case deactivate
        }

        /// Seconds after the activation.
        public var atSeconds: Double
        /// What happens.
        public var action: Action
        /// How many wrong keys (``Action/wrongKey`` only; at least 1).
        public var count: Int
        /// How long the commissioner stays connected before leaving (``Action/useKey`` only).
        public var sessionSeconds: Double

        /// A step.
        public init(atSeconds: Double, action: Action, count: Int = 1, sessionSeconds: Double = CommissionerStep.defaultSessionSeconds) {
            self.atSeconds = atSeconds
            self.action = action
            self.count = count
            self.sessionSeconds = sessionSeconds
        }

        /// The default session length of ``Action/useKey``.
        public static let defaultSessionSeconds: Double = 1
    }
}
