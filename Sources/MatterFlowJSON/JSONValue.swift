/// A JSON value converted to Swift, with object members kept in document order.
///
/// Every JSON text MatterFlow reads (workflows, homes, inputs) is converted to this type as soon as it is
/// parsed, so no C pointer ever leaves the bridge file.
public enum JSONValue: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer: in a parsed text, a number written without a fraction or exponent.
    case int(Int)
    /// Any other number: in a parsed text, one written with a fraction or exponent, or `NaN` or `Infinity`.
    case double(Double)
    /// A string.
    case string(String)
    /// An array, its elements in order.
    case array([JSONValue])
    /// An object, its members in document order.
    case object(JSONObject)

    /// The name of this value's JSON type, as used in error messages ("string", "object", ...).
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .int: "integer"
        case .double: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// ``typeName``, for a message that expected an integer: a whole number too large for a 64-bit integer is
    /// "integer beyond 64 bits" ("must be integer, got number" would puzzle).
    public var typeNameWhereIntegerExpected: String {
        if case .double(let value) = self, value.isFinite, value.rounded() == value, Int(exactly: value) == nil {
            return "integer beyond 64 bits"
        }
        return typeName
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The integer, when this is an integer or a number with no fractional part.
    public var intValue: Int? {
        switch self {
        case .int(let value): return value
        case .double(let value):
            guard value.rounded() == value, let exact = Int(exactly: value) else { return nil }
            return exact
        case .null, .bool, .string, .array, .object: return nil
        }
    }

    /// The number, when this is an integer or a number.
    public var doubleValue: Double? {
        switch self {
        case .int(let value): return Double(value)
        case .double(let value): return value
        case .null, .bool, .string, .array, .object: return nil
        }
    }

    /// The boolean, when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The object, when this is an object.
    public var objectValue: JSONObject? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Looks up a member when this is an object.
    public subscript(key: String) -> JSONValue? {
        objectValue?[key]
    }
}

/// A JSON object: members in document order, with constant-time lookup by key.
public struct JSONObject: Sendable, Hashable {
    /// One member of an object.
    public struct Member: Sendable, Hashable {
        /// The member's key.
        public var key: String
        /// The member's value.
        public var value: JSONValue

        /// A member with this key and value.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in document order. Keys are unique: a later duplicate replaces the earlier value.
    public private(set) var members: [Member]
    /// Positions by key, kept only for large objects; small ones are searched directly (fewer allocations).
    private var index: [String: Int]?

    /// Objects up to this size are searched linearly.
    private static let indexThreshold = 12

    /// An empty object.
    public init() {
        members = []
        index = nil
    }

    /// An object from members in order; a repeated key keeps its first position and its last value.
    public init(_ members: [Member]) {
        self.init()
        self.members.reserveCapacity(members.count)
        for member in members { self[member.key] = member.value }
    }

    /// An object from members whose keys are known to be distinct (as a parser that keeps one member per key
    /// gives them): each key is hashed once, into an index sized for all of them.
    init(distinctMembers members: [Member]) {
        self.members = members
        guard members.count > Self.indexThreshold else {
            index = nil
            return
        }
        var positions = [String: Int](minimumCapacity: members.count)
        for (offset, member) in members.enumerated() { positions[member.key] = offset }
        index = positions
    }

    /// An object from members, when no two have the same key; nil when some do.
    init?(distinctMembersIfPossible members: [Member]) {
        self.init(distinctMembers: members)
        if let index, index.count != members.count { return nil }
        if index == nil, Set(members.map(\.key)).count != members.count { return nil }
    }

    /// An object from key-value pairs in order.
    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        self.init()
        members.reserveCapacity(pairs.count)
        for (key, value) in pairs { self[key] = value }
    }

    /// Makes room for `count` members, so that adding that many allocates once instead of growing step by step.
    public mutating func reserveCapacity(_ count: Int) {
        members.reserveCapacity(count)
    }

    /// The keys in document order.
    public var keys: [String] { members.map(\.key) }

    /// The number of members.
    public var count: Int { members.count }

    /// Whether the object has no members.
    public var isEmpty: Bool { members.isEmpty }

    private func position(of key: String) -> Int? {
        if let index { return index[key] }
        return members.firstIndex { $0.key == key }
    }

    /// Reads or writes a member; writing `nil` removes it.
    public subscript(key: String) -> JSONValue? {
        get { position(of: key).map { members[$0].value } }
        set {
            if let position = position(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    rebuildIndex()
                }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
                if index != nil {
                    index?[key] = members.count - 1
                } else if members.count > Self.indexThreshold {
                    rebuildIndex()
                }
            }
        }
    }

    private mutating func rebuildIndex() {
        guard members.count > Self.indexThreshold else {
            index = nil
            return
        }
        var positions: [String: Int] = [:]
        positions.reserveCapacity(members.count)
        for (offset, member) in members.enumerated() { positions[member.key] = offset }
        index = positions
    }

    /// Whether both objects have the same members in the same order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members == rhs.members
    }

    /// Hashes the members in order, as `==` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(members)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral, ExpressibleByFloatLiteral
{
    /// A `.string` value from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An `.int` value from an integer literal.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A `.double` value from a floating-point literal.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// A `.bool` value from a boolean literal.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An `.array` value from an array literal.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// `.null`, from `nil`.
    public init(nilLiteral: ()) { self = .null }
    /// An `.object` value from a dictionary literal, members in order; a repeated key keeps its first position and
    /// its last value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(pairs: elements))
    }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object from a dictionary literal, members in order; a repeated key keeps its first position and its last
    /// value.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(pairs: elements)
    }

    /// An object from pairs in order, without an intermediate array of members.
    init(pairs: [(String, JSONValue)]) {
        self.init()
        reserveCapacity(pairs.count)
        for (key, value) in pairs { self[key] = value }
    }
}
