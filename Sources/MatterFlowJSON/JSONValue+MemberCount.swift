extension JSONValue {
    /// The number of object members in the value, nested ones included.
    var memberCountIncludingNested: Int {
        switch self {
        case .object(let object): object.members.reduce(object.count) { $0 + $1.value.memberCountIncludingNested }
        case .array(let elements): elements.reduce(0) { $0 + $1.memberCountIncludingNested }
        case .null, .bool, .int, .double, .string: 0
        }
    }
}
