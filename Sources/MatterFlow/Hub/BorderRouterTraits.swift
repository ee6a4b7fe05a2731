/// The traits of a Google border router (``borderRouterDeviceType``) and their members, as the Home APIs name
/// them. Workflows test support with these names: `Trait.member` strings in `listBorderRouters` and
/// `readBorderRouter` results (`ThreadNetworkManagement.activateEpskcMode`).
public enum BorderRouterTraits {
    /// The read-only capabilities trait.
    public static let capabilities = "ThreadNetworkCapabilities"
    /// The management trait: ePSKc and network membership commands, and the deactivation event.
    public static let management = "ThreadNetworkManagement"

    /// `ThreadNetworkCapabilities.epskcSupported`.
    public static let epskcSupported = "epskcSupported"
    /// `ThreadNetworkCapabilities.internetAccessOption`.
    public static let internetAccessOption = "internetAccessOption"
    /// `ThreadNetworkManagement.activateEpskcMode`.
    public static let activateEpskcMode = "activateEpskcMode"
    /// `ThreadNetworkManagement.deactivateEpskcMode`.
    public static let deactivateEpskcMode = "deactivateEpskcMode"
    /// `ThreadNetworkManagement.joinNetwork`.
    public static let joinNetwork = "joinNetwork"
    /// `ThreadNetworkManagement.leaveNetwork`.
    public static let leaveNetwork = "leaveNetwork"
    /// `ThreadNetworkManagement.epskcModeDeactivated`.
    public static let epskcModeDeactivated = "epskcModeDeactivated"

    /// Both traits with every member: what a border router supports unless a home says otherwise.
    public static let all: [TraitSupport] = [
        TraitSupport(name: capabilities, attributes: [epskcSupported, internetAccessOption]),
        TraitSupport(
            name: management, commands: [activateEpskcMode, deactivateEpskcMode, joinNetwork, leaveNetwork],
            events: [epskcModeDeactivated]),
    ]

    /// The known trait with a name, with every member it can have.
    public static func known(_ name: String) -> TraitSupport? {
        all.first { $0.name == name }
    }
}

extension TraitSupport {
    /// The kinds of member a trait has.
    public enum MemberKind: String, Sendable, Hashable, CaseIterable {
        case attributes, commands, events

        /// The singular, for messages: `attribute`.
        public var singular: String { String(rawValue.dropLast()) }
    }

    /// The members of one kind.
    public func members(_ kind: MemberKind) -> [String] {
        switch kind {
        case .attributes: attributes
        case .commands: commands
        case .events: events
        }
    }
}
