/// Where each value and each member's key of a JSON text starts, by JSON pointer (see
/// ``JSONSourceMap/locations()``).
public struct JSONSourceLocations: Sendable {
    /// Start of each value, by JSON pointer.
    public var valueLocations: [String: SourceLocation]
    /// Start of each member's key, by the member's JSON pointer.
    public var keyLocations: [String: SourceLocation]

    /// Creates a table from positions already found; with the defaults it is empty and every lookup gives nil.
    public init(valueLocations: [String: SourceLocation] = [:], keyLocations: [String: SourceLocation] = [:]) {
        self.valueLocations = valueLocations
        self.keyLocations = keyLocations
    }

    /// The best location for a pointer: its key when it names a member, else its value, else its nearest parent.
    public func location(of pointer: String, preferKey: Bool = false) -> SourceLocation? {
        var current = pointer
        while true {
            if preferKey, let key = keyLocations[current] { return key }
            if let value = valueLocations[current] { return value }
            if let key = keyLocations[current] { return key }
            guard let slash = current.lastIndex(of: "/") else { return nil }
            current = String(current[..<slash])
        }
    }
}
