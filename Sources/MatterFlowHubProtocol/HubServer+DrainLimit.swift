import MatterFlow

extension HubServer {
    /// How long a call of `method` may still run after the client's input has ended before it is cancelled: the
    /// longest default timeout of the standard operations that call the method (a client would have given up by
    /// then), or the longest of all for a method no standard operation calls (a custom one).
    public static func drainLimit(for method: String) -> Duration {
        DrainLimits.byMethod[method] ?? DrainLimits.longest
    }
}

/// The drain limits of the standard catalog's operations, worked out once.
private enum DrainLimits {
    /// For each method a standard operation calls, the longest default timeout of the operations that call it.
    static let byMethod: [String: Duration] = {
        var limits: [String: Duration] = [:]
        for operation in OperationCatalog.standard.operations {
            let limit = Duration.milliseconds(Int64((operation.defaultTimeoutSeconds * 1000).rounded()))
            for method in HubMethod.methods(forOperation: operation.name) {
                limits[method] = max(limits[method, default: .zero], limit)
            }
        }
        return limits
    }()

    /// The longest default timeout of the standard operations, for a method none of them calls.
    static let longest: Duration = byMethod.values.reduce(.zero, max)
}
