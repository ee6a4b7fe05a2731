import MatterFlowJSON

/// A JSON value whose strings may contain `${...}` references, evaluated when a state runs.
///
/// A string that is exactly one reference (`"${vars.rooms}"`) yields the referenced value with its type; a string
/// with references among text (`"Device ${input.name}"`) yields a string. `$${` writes a literal `${`.
public indirect enum Template: Sendable {
    case literal(JSONValue)
    case reference(Reference)
    case interpolation([Part])
    case array([Template])
    case object([(key: String, value: Template)])

    /// A piece of an interpolated string.
    public enum Part: Sendable {
        case text(String)
        case reference(Reference)
    }

    /// A problem found while reading a template, with the JSON pointer of the string.
    public struct ParseError: Error, Sendable {
        /// The JSON pointer of the string holding the malformed reference.
        public var pointer: String
        /// What is wrong with the reference.
        public var message: String
    }

    /// Reads a template from a JSON value, collecting every malformed reference.
    public static func parse(_ value: JSONValue, pointer: String, errors: inout [ParseError]) -> Template {
        switch value {
        case .string(let text):
            return parseString(text, pointer: pointer, errors: &errors)
        case .array(let elements):
            let templates = elements.enumerated().map { index, element in
                parse(element, pointer: JSONPointer.appending(index, to: pointer), errors: &errors)
            }
            return templates.allSatisfy(\.isLiteral) ? .literal(value) : .array(templates)
        case .object(let object):
            let members = object.members.map { member in
                (key: member.key, value: parse(member.value, pointer: JSONPointer.appending(member.key, to: pointer), errors: &errors))
            }
            return members.allSatisfy(\.value.isLiteral) ? .literal(value) : .object(members)
        case .null, .bool, .int, .double:
            return .literal(value)
        }
    }

    private static func parseString(_ text: String, pointer: String, errors: inout [ParseError]) -> Template {
        guard mayHoldReference(text) else { return .literal(.string(text)) }
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return parseASCII(text, pointer: pointer, errors: &errors) }
        return parseCharacters(text, pointer: pointer, errors: &errors)
    }

    /// Reads a string's references character by character (any text).
    static func parseCharacters(_ text: String, pointer: String, errors: inout [ParseError]) -> Template {
        var parts: [Part] = []
        var literal = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            literal += rest[..<dollar]
            let afterDollar = rest[rest.index(after: dollar)...]
            if afterDollar.hasPrefix("${") {
                literal += "${"
                rest = afterDollar.dropFirst(2)
            } else if afterDollar.hasPrefix("{") {
                guard let close = afterDollar.firstIndex(of: "}") else {
                    errors.append(ParseError(pointer: pointer, message: "unterminated reference: add \"}\" after ${..."))
                    return .literal(.string(text))
                }
                let inner = String(afterDollar[afterDollar.index(after: afterDollar.startIndex)..<close])
                do {
                    let reference = try Reference.parse(inner)
                    if !literal.isEmpty { parts.append(.text(literal)) }
                    literal = ""
                    parts.append(.reference(reference))
                } catch {
                    errors.append(ParseError(pointer: pointer, message: error.message))
                }
                rest = afterDollar[afterDollar.index(after: close)...]
            } else {
                literal += "$"
                rest = afterDollar
            }
        }
        literal += rest
        if !literal.isEmpty { parts.append(.text(literal)) }
        if parts.count == 1, case .reference(let reference) = parts[0] { return .reference(reference) }
        if parts.allSatisfy({ if case .text = $0 { true } else { false } }) {
            return .literal(.string(parts.map { if case .text(let t) = $0 { t } else { "" } }.joined()))
        }
        return .interpolation(parts)
    }

    /// ``parseString(_:pointer:errors:)`` for ASCII text, on bytes: there every character is one byte (a CR LF
    /// pair is one character, but never `$`, `{` or `}`), so looking for those bytes finds what looking for the
    /// characters finds, without breaking the text into characters.
    static func parseASCII(_ text: String, pointer: String, errors: inout [ParseError]) -> Template {
        let bytes = text.utf8
        var parts: [Part] = []
        var literal = ""
        var rest = bytes.startIndex
        while let dollar = bytes[rest...].firstIndex(of: UInt8(ascii: "$")) {
            literal += text[rest..<dollar]
            let afterDollar = bytes.index(after: dollar)
            let next = afterDollar < bytes.endIndex ? bytes[afterDollar] : nil
            let second = next != nil && bytes.index(after: afterDollar) < bytes.endIndex
                ? bytes[bytes.index(after: afterDollar)] : nil
            if next == UInt8(ascii: "$"), second == UInt8(ascii: "{") {
                literal += "${"
                rest = bytes.index(afterDollar, offsetBy: 2)
            } else if next == UInt8(ascii: "{") {
                let open = bytes.index(after: afterDollar)
                guard let close = bytes[open...].firstIndex(of: UInt8(ascii: "}")) else {
                    errors.append(ParseError(pointer: pointer, message: "unterminated reference: add \"}\" after ${..."))
                    return .literal(.string(text))
                }
                do {
                    let reference = try Reference.parse(String(text[open..<close]))
                    if !literal.isEmpty { parts.append(.text(literal)) }
                    literal = ""
                    parts.append(.reference(reference))
                } catch {
                    errors.append(ParseError(pointer: pointer, message: error.message))
                }
                rest = bytes.index(after: close)
            } else {
                literal += "$"
                rest = afterDollar
            }
        }
        literal += text[rest...]
        if !literal.isEmpty { parts.append(.text(literal)) }
        if parts.count == 1, case .reference(let reference) = parts[0] { return .reference(reference) }
        if parts.allSatisfy({ if case .text = $0 { true } else { false } }) {
            return .literal(.string(parts.map { if case .text(let t) = $0 { t } else { "" } }.joined()))
        }
        return .interpolation(parts)
    }

    /// Whether `text` holds the bytes of `${`: without them it holds no reference. A cheap test on bytes, where
    /// looking for the characters `${` would split the text into characters first; the parse that follows
    /// works on characters and decides.
    static func mayHoldReference(_ text: String) -> Bool {
        var afterDollar = false
        for byte in text.utf8 {
            if afterDollar, byte == UInt8(ascii: "{") { return true }
            afterDollar = byte == UInt8(ascii: "$")
        }
        return false
    }

    /// Whether the template has no references.
    public var isLiteral: Bool {
        if case .literal = self { return true }
        return false
    }

    /// The literal value, when the template has no references.
    public var literalValue: JSONValue? {
        if case .literal(let value) = self { return value }
        return nil
    }

    /// Whether ``references`` is not empty, found without collecting them.
    var hasReferences: Bool {
        switch self {
        case .literal: false
        case .reference: true
        case .interpolation(let parts): parts.contains { if case .reference = $0 { true } else { false } }
        case .array(let elements): elements.contains(where: \.hasReferences)
        case .object(let members): members.contains(where: \.value.hasReferences)
        }
    }

    /// Whether evaluating the template may fail with `valueTooLarge` (``Scope``'s bound on built values): it puts a
    /// string together from a reference, or builds a list or object holding two references or more. A template that
    /// is one reference passes its value on as it is.
    var mayBuildTooLarge: Bool {
        switch self {
        case .literal, .reference: false
        case .interpolation: hasReferences
        case .array, .object: references.count >= 2 || interpolatesReference
        }
    }

    /// Whether some string of the template is put together from a reference.
    private var interpolatesReference: Bool {
        switch self {
        case .literal, .reference: false
        case .interpolation: hasReferences
        case .array(let elements): elements.contains(where: \.interpolatesReference)
        case .object(let members): members.contains(where: \.value.interpolatesReference)
        }
    }

    /// Calls `body` with every reference in the template, in order, and where the value holding it sits in the
    /// template: the indices and keys of the arrays and objects around it (none for the template's own value).
    func forEachReference(inside path: [String] = [], _ body: (Reference, [String]) -> Void) {
        switch self {
        case .literal: return
        case .reference(let reference): body(reference, path)
        case .interpolation(let parts):
            for case .reference(let reference) in parts { body(reference, path) }
        case .array(let elements):
            for index in elements.indices where elements[index].hasReferences {
                elements[index].forEachReference(inside: path + [String(index)], body)
            }
        case .object(let members):
            for member in members where member.value.hasReferences {
                member.value.forEachReference(inside: path + [member.key], body)
            }
        }
    }

    /// Every reference in the template, in order.
    public var references: [Reference] {
        switch self {
        case .literal: []
        case .reference(let reference): [reference]
        case .interpolation(let parts):
            parts.compactMap { if case .reference(let reference) = $0 { reference } else { nil } }
        case .array(let elements): elements.flatMap(\.references)
        case .object(let members): members.flatMap(\.value.references)
        }
    }
}
