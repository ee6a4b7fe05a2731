import MatterFlow

/// The hub operations the simulator implements, named exactly as in ``OperationCatalog/standard``.
///
/// The names key per-operation latencies in a home description (`simulation.latencySeconds`), fault rules
/// (``FaultRule``) and call records (``HubCallRecord``).
public enum SimulatedOperation: String, Sendable, Hashable, CaseIterable, Comparable, CustomStringConvertible {
    case readHubStatus
    case prepareCommissioning
    case createAddDeviceRequest
    case commissionDevice
    case fetchRooms
    case configureDevice
    case completeCommissioning
    case cancelCommissioning
    case readBasicInformation
    case listBorderRouters
    case readBorderRouter
    case readThreadCapabilities
    case activateEpskc
    case deactivateEpskc
    case joinThreadNetwork
    case leaveThreadNetwork
    case readThreadNetworkSettings
    case setInternetAccess

    /// The operation's name.
    public var description: String { rawValue }

    /// Orders operations as they occur in a commissioning flow (the catalog's order).
    public static func < (lhs: SimulatedOperation, rhs: SimulatedOperation) -> Bool {
        lhs.position < rhs.position
    }

    private var position: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    /// The operation's descriptor in the standard catalog (its declared error causes, timeout, ...).
    public var descriptor: OperationDescriptor? { OperationCatalog.standard[rawValue] }
}
