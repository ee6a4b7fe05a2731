import Foundation
import MatterFlowJSON

/// A JSON Schema (2020-12) validator for the subset of keywords the schemas in docs/ use, so a test can check every
/// shipped file against them without an outside package.
///
/// A schema using any other keyword is refused (``SchemaError``), so a schema can never rely on a rule this
/// validator would silently skip. `$ref` resolves only local pointers (`#/$defs/NAME`).
struct JSONSchemaValidator {
    /// A schema that uses something this validator does not implement.
    struct SchemaError: Error, CustomStringConvertible {
        var description: String
    }

    let root: JSONValue

    static let annotations: Set<String> = ["$schema", "$id", "$comment", "title", "description", "default", "examples", "$defs"]
    static let assertions: Set<String> = [
        "type", "enum", "const", "properties", "required", "additionalProperties", "propertyNames", "items", "minItems",
        "maxItems", "minimum", "maximum", "minProperties", "maxProperties", "minLength", "maxLength", "pattern", "anyOf",
        "oneOf", "not", "$ref",
    ]

    init(schema: JSONValue) {
        root = schema
    }

    /// Every way `value` breaks the schema, each as `POINTER: what`; empty when it conforms.
    func problems(of value: JSONValue) throws(SchemaError) -> [String] {
        var found: [String] = []
        try check(value, against: root, at: "", into: &found, depth: 0)
        return found
    }

    private func check(_ value: JSONValue, against schema: JSONValue, at pointer: String, into found: inout [String], depth: Int)
        throws(SchemaError)
    {
        guard depth < 200 else { throw SchemaError(description: "schema recursion deeper than 200 at \(pointer)") }
        if case .bool(let allowed) = schema {
            if !allowed { found.append("\(pointer): no value is allowed here") }
            return
        }
        guard case .object(let keywords) = schema else { throw SchemaError(description: "a schema must be an object or a boolean") }
        for key in keywords.keys where !Self.annotations.contains(key) && !Self.assertions.contains(key) {
            throw SchemaError(description: "keyword \"\(key)\" is not implemented by this validator")
        }
        func fail(_ message: String) { found.append("\(pointer.isEmpty ? "/" : pointer): \(message)") }

        if let reference = keywords["$ref"]?.stringValue {
            try check(value, against: try resolve(reference), at: pointer, into: &found, depth: depth + 1)
        }
        if let types = keywords["type"] {
            let names = types.arrayValue?.compactMap(\.stringValue) ?? [types.stringValue ?? ""]
            if !names.contains(where: { Self.hasType(value, $0) }) { fail("must be \(names.joined(separator: " or ")), found \(value.typeName)") }
        }
        if let options = keywords["enum"]?.arrayValue, !options.contains(where: { Self.equal($0, value) }) {
            fail("must be one of \(options.map(JSONWriter.compact).joined(separator: ", ")), found \(JSONWriter.compact(value).prefix(60))")
        }
        if let constant = keywords["const"], !Self.equal(constant, value) {
            fail("must be \(JSONWriter.compact(constant))")
        }
        if let number = value.doubleValue, !value.isBool {
            if let minimum = keywords["minimum"]?.doubleValue, number < minimum { fail("\(number) is below \(minimum)") }
            if let maximum = keywords["maximum"]?.doubleValue, number > maximum { fail("\(number) is above \(maximum)") }
        }
        if case .string(let text) = value {
            let length = text.unicodeScalars.count
            if let minimum = keywords["minLength"]?.intValue, length < minimum { fail("shorter than \(minimum) characters") }
            if let maximum = keywords["maxLength"]?.intValue, length > maximum { fail("longer than \(maximum) characters") }
            if let pattern = keywords["pattern"]?.stringValue, !Self.matches(text, pattern) { fail("does not match \(pattern)") }
        }
        if case .array(let elements) = value {
            if let minimum = keywords["minItems"]?.intValue, elements.count < minimum { fail("needs at least \(minimum) elements") }
            if let maximum = keywords["maxItems"]?.intValue, elements.count > maximum { fail("takes at most \(maximum) elements") }
            if let items = keywords["items"] {
                for (index, element) in elements.enumerated() {
                    try check(element, against: items, at: JSONPointer.appending(index, to: pointer), into: &found, depth: depth + 1)
                }
            }
        }
        if case .object(let object) = value {
            if let minimum = keywords["minProperties"]?.intValue, object.count < minimum { fail("needs at least \(minimum) members") }
            if let maximum = keywords["maxProperties"]?.intValue, object.count > maximum { fail("takes at most \(maximum) members") }
            for name in keywords["required"]?.arrayValue?.compactMap(\.stringValue) ?? [] where object[name] == nil {
                fail("missing required member \"\(name)\"")
            }
            let properties = keywords["properties"]?.objectValue ?? JSONObject()
            for member in object.members {
                let memberPointer = JSONPointer.appending(member.key, to: pointer)
                if let names = keywords["propertyNames"] {
                    try check(.string(member.key), against: names, at: memberPointer, into: &found, depth: depth + 1)
                }
                if let property = properties[member.key] {
                    try check(member.value, against: property, at: memberPointer, into: &found, depth: depth + 1)
                } else if let additional = keywords["additionalProperties"] {
                    if additional == .bool(false) {
                        found.append("\(memberPointer): member \"\(member.key)\" is not allowed")
                    } else {
                        try check(member.value, against: additional, at: memberPointer, into: &found, depth: depth + 1)
                    }
                }
            }
        }
        if let alternatives = keywords["anyOf"]?.arrayValue {
            var passing = false
            for alternative in alternatives {
                if try self.problems(of: value, against: alternative, depth: depth).isEmpty {
                    passing = true
                    break
                }
            }
            if !passing { fail("matches none of the \(alternatives.count) alternatives (anyOf)") }
        }
        if let alternatives = keywords["oneOf"]?.arrayValue {
            var matching = 0
            var closest: [String]?
            for alternative in alternatives {
                let problems = try self.problems(of: value, against: alternative, depth: depth)
                if problems.isEmpty { matching += 1 } else if closest.map({ problems.count < $0.count }) ?? true { closest = problems }
            }
            if matching != 1 {
                fail(matching == 0
                    ? "matches none of the \(alternatives.count) alternatives (oneOf); closest: \(closest?.joined(separator: "; ") ?? "")"
                    : "matches \(matching) of the alternatives, exactly one is allowed (oneOf)")
            }
        }
        if let negated = keywords["not"] {
            if try problems(of: value, against: negated, depth: depth).isEmpty { fail("must not match the \"not\" schema") }
        }
    }

    private func problems(of value: JSONValue, against schema: JSONValue, depth: Int) throws(SchemaError) -> [String] {
        var found: [String] = []
        try check(value, against: schema, at: "", into: &found, depth: depth + 1)
        return found
    }

    private func resolve(_ reference: String) throws(SchemaError) -> JSONValue {
        guard reference.hasPrefix("#/") else { throw SchemaError(description: "only local $ref (#/...) is implemented: \(reference)") }
        var current = root
        for part in reference.dropFirst(2).split(separator: "/") {
            let name = part.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            guard let next = current[name] else { throw SchemaError(description: "$ref \(reference) names nothing") }
            current = next
        }
        return current
    }

    static func hasType(_ value: JSONValue, _ name: String) -> Bool {
        switch (name, value) {
        case ("null", .null), ("boolean", .bool), ("string", .string), ("array", .array), ("object", .object), ("number", .int),
            ("number", .double), ("integer", .int):
            return true
        case ("integer", .double(let number)):
            return number.rounded() == number
        default:
            return false
        }
    }

    /// JSON equality with numbers compared by value.
    static func equal(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        if !lhs.isBool, !rhs.isBool, let left = lhs.doubleValue, let right = rhs.doubleValue { return left == right }
        return lhs == rhs
    }

    static func matches(_ text: String, _ pattern: String) -> Bool {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return false }
        return expression.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil
    }
}

extension JSONValue {
    fileprivate var isBool: Bool {
        if case .bool = self { return true }
        return false
    }
}
