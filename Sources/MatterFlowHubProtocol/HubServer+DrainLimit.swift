import MatterFlow

extension HubServer {
    /// How long a call of `method` may still run after the client's input has ended before it is cancelled: the
    /// longest default timeout of the standard operations that call the method (a client would have given up by
    /// then), or the longest of all for a method no standard operation calls (a custom one).
    public static func drainLimit(for method: String) -> Duration {
        let catalog = OperationCatalog.standard
        let timeouts = catalog.names.compactMap { name -> Double? in
            guard HubMethod.methods(forOperation: name).contains(method) else { return nil }
            return catalog[name]?.defaultTimeoutSeconds
        }
        let seconds = timeouts.max() ?? catalog.names.compactMap { catalog[$0]?.defaultTimeoutSeconds }.max() ?? 120
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
