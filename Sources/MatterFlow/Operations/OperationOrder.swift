/// What must come before an operation on every path that calls it: the hub protocol's order, as data in the
/// operation catalog (``OperationDescriptor/requires``), checked by the validator (`operationOutOfOrder`).
public struct OrderRequirement: Sendable, Hashable, CustomStringConvertible {
    /// Where the earlier operation must have happened.
    public enum Scope: String, Sendable, Hashable, CaseIterable {
        /// One of the operations succeeded earlier in the current commissioning session: after the session was
        /// opened and with no release since. A workflow that has not opened a session itself on the path runs
        /// in its caller's session, whose history it cannot see, so the requirement is then assumed met.
        case session
        /// A choice branch tested the result of one of the operations earlier in the run (a support check, such
        /// as reading a border router's supported commands before using one).
        case supportCheck
    }

    /// Where one of ``operations`` must have happened: earlier in the session, or in a support check.
    public var scope: Scope
    /// Any one of these satisfies the requirement.
    public var operations: [String]

    /// A requirement that one of `operations` come first, within `scope`.
    public init(_ scope: Scope, _ operations: [String]) {
        self.scope = scope
        self.operations = operations
    }

    /// For example `createAddDeviceRequest earlier in the session`.
    public var description: String {
        let names = operations.joined(separator: " or ")
        switch scope {
        case .session: return "\(names) earlier in the same commissioning session"
        case .supportCheck: return "a choice testing the result of \(names) (a support check) earlier in the run"
        }
    }

    /// The commissioning protocol and the border-router support rule, by operation name.
    public static let standard: [String: [OrderRequirement]] = [
        "createAddDeviceRequest": [.init(.session, ["prepareCommissioning"])],
        "commissionDevice": [.init(.session, ["prepareCommissioning"]), .init(.session, ["createAddDeviceRequest"])],
        "configureDevice": [.init(.session, ["commissionDevice"])],
        "completeCommissioning": [.init(.session, ["commissionDevice"])],
        "joinThreadNetwork": [.init(.supportCheck, ["listBorderRouters", "readBorderRouter"])],
        "leaveThreadNetwork": [.init(.supportCheck, ["listBorderRouters", "readBorderRouter"])],
    ]
}
