import MatterFlowJSON

/// A step's guard, resolved against the run's catalog once: what checking it takes.
enum PlannedGuard: Sendable {
    /// A guard checked by one read of the hub's status.
    case status(StatusGuard)
    /// A custom guard whose condition reads the result of a call of its operation.
    case operation(GuardDescriptor, PlannedCall)
    /// A custom guard the catalog lacks (a workflow built in code and not validated): checking it fails.
    case missing(String)

    init(_ listed: Guard, catalog: OperationCatalog) {
        switch listed {
        case .builtIn(let builtIn):
            self = .status(.builtIn(builtIn))
        case .custom(let name):
            guard let descriptor = catalog.customGuard(named: name) else {
                self = .missing(name)
                return
            }
            switch descriptor.check {
            case .status:
                self = .status(.custom(descriptor))
            case .operation(let operationName, let arguments, _):
                guard let operation = catalog[operationName] else {
                    self = .missing(name)
                    return
                }
                self = .operation(descriptor, PlannedCall(operation, arguments: arguments, timeoutSeconds: operation.defaultTimeoutSeconds))
            }
        }
    }
}

/// A guard checked by one read of the hub's status: a built-in guard, or a custom guard whose condition reads the
/// status.
enum StatusGuard: Sendable {
    case builtIn(BuiltInGuard)
    case custom(GuardDescriptor)

    /// The guard as events name it.
    var listed: Guard {
        switch self {
        case .builtIn(let builtIn): .builtIn(builtIn)
        case .custom(let descriptor): .custom(descriptor.name)
        }
    }
}
