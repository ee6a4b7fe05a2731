/// The names the hub protocol (version 1, docs/hub-protocol.md) gives its methods and messages: the `Hub`
/// protocol's requirements as they travel. A declared (custom) operation travels as a method of its own name, so
/// none may take one of these (``OperationDeclarations/reservedNames``).
public enum HubProtocolNames {
    /// The commissioning methods.
    public static let commissioning = [
        "status", "prepareCommissioning", "createAddDeviceRequest", "commissionDevice", "fetchRooms", "configureDevice",
        "completeCommissioning", "cancelCommissioning", "basicInformation", "activeSession",
    ]

    /// The border-router methods.
    public static let borderRouters = [
        "borderRouters", "borderRouter", "threadCapabilities", "activateEpskc", "deactivateEpskc", "joinThreadNetwork",
        "leaveThreadNetwork", "threadNetworkSettings", "setInternetAccess",
    ]

    /// The event subscription methods.
    public static let events = ["subscribe", "unsubscribe"]

    /// The handshake's request and the hub's event notification.
    public static let messages = ["initialize", "event"]
}
