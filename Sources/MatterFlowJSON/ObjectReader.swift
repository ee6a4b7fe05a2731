/// Reads the members of one JSON object with typed accessors, reporting wrong types, missing keys and,
/// when finished, every key that nothing asked for (typo protection).
public final class ObjectReader {
    /// The object read.
    public let object: JSONObject
    /// Where the reader's findings are reported.
    public let collector: DiagnosticCollector
    /// The keys asked for or allowed.
    private var known: [String] = []
    /// The pointer of the object that holds this one, and this one's key there (nil: `parentPointer` is this
    /// object's own pointer). Most readers' pointers are only needed for findings, so they are spelled out on
    /// first use.
    private let parentPointer: String
    private let key: String?
    private var spelledPointer: String?

    /// A reader of `object`, which stands at `pointer` in its document, reporting to `collector`.
    public init(object: JSONObject, pointer: String, collector: DiagnosticCollector) {
        self.object = object
        parentPointer = pointer
        key = nil
        spelledPointer = pointer
        self.collector = collector
        known.reserveCapacity(8)
    }

    /// A reader of the member `key` of the object at `parentPointer`.
    init(object: JSONObject, parentPointer: String, key: String, collector: DiagnosticCollector) {
        self.object = object
        self.parentPointer = parentPointer
        self.key = key
        self.collector = collector
        known.reserveCapacity(8)
    }

    /// The JSON pointer of the object.
    public var pointer: String {
        if let spelledPointer { return spelledPointer }
        let pointer = key.map { JSONPointer.appending($0, to: parentPointer) } ?? parentPointer
        spelledPointer = pointer
        return pointer
    }

    /// Pointer to a member of this object.
    public func pointer(_ key: String) -> String { JSONPointer.appending(key, to: pointer) }

    /// Declares keys as allowed without reading them.
    public func allow(_ keys: String...) { known.append(contentsOf: keys) }

    /// Whether the member is present.
    public func has(_ key: String) -> Bool {
        known.append(key)
        return object[key] != nil
    }

    /// The raw value of a member; reports a missing required key.
    public func value(_ key: String, required: Bool = false, what: String? = nil) -> JSONValue? {
        known.append(key)
        guard let value = object[key] else {
            if required {
                collector.error(
                    DiagnosticCode.missingKey, at: pointer,
                    "missing required key \"\(key)\"\(what.map { " (\($0))" } ?? "")")
            }
            return nil
        }
        return value
    }

    private func typed<T>(_ key: String, required: Bool, expected: String, _ extract: (JSONValue) -> T?) -> T? {
        guard let value = value(key, required: required, what: expected) else { return nil }
        guard let result = extract(value) else {
            collector.error(
                DiagnosticCode.wrongType, at: pointer(key), "\"\(key)\" must be \(expected), found \(value.typeName)")
            return nil
        }
        return result
    }

    /// A string member, or nil; a value of another type is reported as `wrongType`, an absent required key as
    /// `missingKey`.
    public func string(_ key: String, required: Bool = false) -> String? {
        typed(key, required: required, expected: "a string") { $0.stringValue }
    }

    /// A boolean member, or nil; a value of another type is reported as `wrongType`, an absent required key as
    /// `missingKey`.
    public func bool(_ key: String, required: Bool = false) -> Bool? {
        typed(key, required: required, expected: "a boolean") { $0.boolValue }
    }

    /// An integer member (a number with no fractional part counts), or nil; a value of another type is reported as
    /// `wrongType`, an absent required key as `missingKey`.
    public func int(_ key: String, required: Bool = false) -> Int? {
        typed(key, required: required, expected: "an integer") { $0.intValue }
    }

    /// A number member (an integer counts), or nil; a value of another type is reported as `wrongType`, an absent
    /// required key as `missingKey`.
    public func number(_ key: String, required: Bool = false) -> Double? {
        typed(key, required: required, expected: "a number") { $0.doubleValue }
    }

    /// An array member, or nil; a value of another type is reported as `wrongType`, an absent required key as
    /// `missingKey`.
    public func array(_ key: String, required: Bool = false) -> [JSONValue]? {
        typed(key, required: required, expected: "an array") { $0.arrayValue }
    }

    /// The strings of an array member, or nil when it is absent or not an array (reported as by
    /// ``array(_:required:)``); each element that is not a string is reported as `wrongType` and left out.
    public func stringArray(_ key: String, required: Bool = false) -> [String]? {
        guard let elements = array(key, required: required) else { return nil }
        var strings: [String] = []
        for (index, element) in elements.enumerated() {
            guard let string = element.stringValue else {
                collector.error(
                    DiagnosticCode.wrongType, at: JSONPointer.appending(index, to: pointer(key)),
                    "elements of \"\(key)\" must be strings, found \(element.typeName)")
                continue
            }
            strings.append(string)
        }
        return strings
    }

    /// A nested object member, read with its own reader.
    public func object(_ key: String, required: Bool = false) -> ObjectReader? {
        guard let value = value(key, required: required, what: "an object") else { return nil }
        guard case .object(let member) = value else {
            return collector.object(value, at: pointer(key), what: "\"\(key)\"")
        }
        return ObjectReader(object: member, parentPointer: pointer, key: key, collector: collector)
    }

    /// A string that must not be empty or only white space.
    public func nonEmptyString(_ key: String, required: Bool = false) -> String? {
        guard let text = string(key, required: required) else { return nil }
        guard !text.allSatisfy(\.isWhitespace) else {
            collector.error(DiagnosticCode.invalidValue, at: pointer(key), "\"\(key)\" must not be empty")
            return nil
        }
        return text
    }

    /// A number that must lie in `range`; a value outside it is reported as `numberOutOfRange`, naming the range.
    public func number(_ key: String, in range: NumberRange, required: Bool = false) -> Double? {
        guard let value = value(key, required: required, what: "a number") else { return nil }
        return collector.number(value, at: pointer(key), in: range, what: "\"\(key)\"")
    }

    /// A whole number that must lie in `range`; a value outside it is reported as `numberOutOfRange`, naming the
    /// range, and a fraction as `wrongType`.
    public func int(_ key: String, in range: NumberRange, required: Bool = false) -> Int? {
        guard let value = value(key, required: required, what: "an integer") else { return nil }
        return collector.integer(value, at: pointer(key), in: range, what: "\"\(key)\"")
    }

    /// Reports every member that no accessor asked for, suggesting the closest allowed key.
    public func finish() {
        // Objects read with finish have a few keys each: searching the list beats building a set of it.
        let allowed = known.count > 16 ? Set(known) : nil
        for member in object.members where !(allowed?.contains(member.key) ?? known.contains(member.key)) {
            let key = member.key
            let synonyms = collector.synonyms
            collector.error(
                DiagnosticCode.unknownKey, at: pointer(key), atKey: true,
                "unknown key \"\(key)\"\(SpellingSuggestion.hint(for: key, among: known.uniqued(), synonyms: synonyms))"
                    + (SpellingSuggestion.closest(to: key, among: known, synonyms: synonyms) == nil
                        ? " (allowed here: \(known.uniqued().joined(separator: ", ")))" : ""))
        }
    }
}

extension Array where Element == String {
    fileprivate func uniqued() -> [String] {
        var seen = Set<String>()
        return filter { seen.insert($0).inserted }
    }
}
