import MatterFlow

/// The methods of the hub protocol, version 1: the `Hub` protocol's requirement names.
public enum HubMethod {
    /// The protocol version this library speaks.
    public static let protocolVersion = 1

    /// The commissioning methods (``HubProtocolNames/commissioning``).
    public static let commissioning = HubProtocolNames.commissioning

    /// The border-router methods (``HubProtocolNames/borderRouters``).
    public static let borderRouters = HubProtocolNames.borderRouters

    /// The event subscription methods (``HubProtocolNames/events``).
    public static let events = HubProtocolNames.events

    /// Every method a hub may list in `initialize`'s `operations`.
    public static let all = commissioning + borderRouters + events

    /// The hub methods a workflow operation calls (`matterflow operations` names), for static checks against a
    /// hub's handshake. An operation of no built-in name is a custom one (docs/operation-catalog.md), sent as the
    /// method of its own name.
    public static func methods(forOperation operation: String) -> [String] {
        switch operation {
        case "readHubStatus": ["status"]
        case "prepareCommissioning": ["prepareCommissioning"]
        case "createAddDeviceRequest": ["createAddDeviceRequest"]
        case "commissionDevice": ["commissionDevice"]
        case "fetchRooms": ["fetchRooms"]
        case "configureDevice": ["configureDevice"]
        case "completeCommissioning": ["completeCommissioning"]
        case "cancelCommissioning": ["cancelCommissioning"]
        case "readBasicInformation": ["basicInformation"]
        case "listBorderRouters": ["borderRouters"]
        case "readBorderRouter": ["borderRouter"]
        case "readThreadCapabilities": ["threadCapabilities"]
        case "activateEpskc": ["activateEpskc"]
        case "deactivateEpskc": ["deactivateEpskc"]
        case "joinThreadNetwork": ["joinThreadNetwork"]
        case "leaveThreadNetwork": ["leaveThreadNetwork"]
        case "readThreadNetworkSettings": ["threadNetworkSettings"]
        case "setInternetAccess": ["setInternetAccess"]
        default: [operation]
        }
    }
}
