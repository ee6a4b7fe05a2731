import MatterFlowJSON

/// A step's guard, resolved against the run's catalog once: what checking it takes.
enum PlannedGuard: Sendable {
    /// A built-in guard, read from the hub's status.
    case builtIn(BuiltInGuard)
    /// A custom guard whose condition reads the hub's status.
    case status(GuardDescriptor)
    /// A custom guard whose condition reads the result of a call of its operation.
    case operation(GuardDescriptor, PlannedCall)
    /// A custom guard the catalog lacks (a workflow built in code and not validated): checking it fails.
    case missing(String)

    init(_ listed: Guard, catalog: OperationCatalog) {
        switch listed {
        case .builtIn(let builtIn):
            self = .builtIn(builtIn)
        case .custom(let name):
            guard let descriptor = catalog.customGuard(named: name) else {
                self = .missing(name)
                return
            }
            switch descriptor.check {
            case .status:
                self = .status(descriptor)
            case .operation(let operationName, let arguments, _):
                guard let operation = catalog[operationName] else {
                    self = .missing(name)
                    return
                }
                self = .operation(descriptor, PlannedCall(operation, arguments: arguments, timeoutSeconds: operation.defaultTimeoutSeconds))
            }
        }
    }

    /// The guard as events name it.
    var listed: Guard {
        switch self {
        case .builtIn(let builtIn): .builtIn(builtIn)
        case .status(let descriptor), .operation(let descriptor, _): .custom(descriptor.name)
        case .missing(let name): .custom(name)
        }
    }
}
