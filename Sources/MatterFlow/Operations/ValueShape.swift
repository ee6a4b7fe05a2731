import MatterFlowJSON

/// The shape of a value an operation takes or returns, precise enough to check `${...}` references statically.
public indirect enum ValueShape: Sendable, Hashable, CustomStringConvertible {
    case string
    case integer
    case number
    case boolean
    case array(ValueShape)
    case object([Field])
    case any

    /// A named member of an object shape.
    public struct Field: Sendable, Hashable {
        /// The member's key.
        public var name: String
        /// The shape of the member's value.
        public var shape: ValueShape
        /// What the member holds, in a few words (a catalog file's field `description`).
        public var summary: String

        /// A member `name` of `shape`, described by `summary`.
        public init(_ name: String, _ shape: ValueShape, _ summary: String) {
            self.name = name
            self.shape = shape
            self.summary = summary
        }
    }

    /// A literal value's shape: its scalar type; anything for `null`, a list or an object (whose members a literal
    /// does not fix for the values bound later).
    public static func scalar(of value: JSONValue) -> ValueShape {
        switch value {
        case .string: .string
        case .int: .integer
        case .double: .number
        case .bool: .boolean
        case .null, .array, .object: .any
        }
    }

    /// The shape in words: `string`, `array of integer`, `object {deviceIDs, name}`, `any`.
    public var description: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .number: "number"
        case .boolean: "boolean"
        case .array(let element): "array of \(element)"
        case .object(let fields): "object {\(fields.map(\.name).joined(separator: ", "))}"
        case .any: "any"
        }
    }

    /// Whether a value has this shape.
    public func admits(_ value: JSONValue) -> Bool {
        switch (self, value) {
        case (.any, _), (.string, .string), (.integer, .int), (.boolean, .bool), (.number, .int), (.number, .double):
            return true
        case (.integer, .double(let number)):
            // A whole number a 64-bit integer holds (as JSON writes 30 as 30.0 at times); 1e19 is none.
            return Int(exactly: number) != nil
        case (.array(let element), .array(let values)):
            return values.allSatisfy(element.admits)
        case (.object(let fields), .object(let object)):
            // A null member is the same as an absent one (an optional field with no value).
            return fields.allSatisfy { field in object[field.name].map { $0.isNull || field.shape.admits($0) } ?? true }
        case (.string, _), (.integer, _), (.number, _), (.boolean, _), (.array, _), (.object, _):
            return false
        }
    }

    /// The shape of a member, or nil when the member cannot exist. `any` has every member.
    public func member(_ name: String) -> ValueShape? {
        switch self {
        case .any: return .any
        case .object(let fields): return fields.first { $0.name == name }?.shape
        case .array: return name == "count" ? .integer : nil
        case .string, .integer, .number, .boolean: return nil
        }
    }

    /// The shape of an element, or nil when indexing is impossible.
    public var element: ValueShape? {
        switch self {
        case .any: .any
        case .array(let element): element
        case .string, .integer, .number, .boolean, .object: nil
        }
    }

    /// The shape described as JSON, for `matterflow operations --json`.
    public var jsonValue: JSONValue {
        switch self {
        case .string, .integer, .number, .boolean, .any: return .string(description)
        case .array(let element): return .object(JSONObject(["array": element.jsonValue]))
        case .object(let fields):
            var object = JSONObject()
            for field in fields { object[field.name] = field.shape.jsonValue }
            return .object(object)
        }
    }
}
