import MatterFlowJSON

/// Custom operations: a hub that does not implement ``Hub/perform(operation:structure:arguments:)`` supports none.
extension Hub {
    /// Throws `notSupported` for every operation.
    public func perform(operation: String, structure: StructureID, arguments: JSONObject) async throws -> JSONValue {
        throw FlowError.unsupportedByHub("the custom operation \(operation)")
    }
}
