import MatterFlowJSON

/// Why a value is no error value, as a fail state's `error` must be one: an object with a canonical `code`, and a
/// `cause`, `message` and `state` that are strings when given (`null` is the same as absent). A run raising such a
/// value fails with `internal` / `malformedError` saying this; the validator says it where a literal was written.
struct ErrorValueProblem: Sendable, Equatable {
    /// The member at fault (`code`, `cause`, `message`, `state`); nil when the value is no object.
    var member: String?
    /// What is wrong and what is expected, in words: `its "code" "timeout" is no canonical code; use one of ...`.
    var description: String

    /// The members an error value may have that must be strings when given.
    static let stringMembers = ["cause", "message", "state"]
    /// The canonical codes, listed in the messages of a value that has none of them.
    private static let codes = ErrorCode.all.map(\.rawValue).joined(separator: ", ")

    /// The first thing that makes `value` no error value; nil when it is one.
    static func of(_ value: JSONValue) -> ErrorValueProblem? {
        guard let object = value.objectValue else {
            return ErrorValueProblem(
                member: nil,
                description: "it is \(article(value)), not an object such as {\"code\": \"unavailable\", \"message\": \"...\"}")
        }
        guard let code = object["code"], !code.isNull else {
            return ErrorValueProblem(member: "code", description: "it has no \"code\"; give a canonical code (\(codes))")
        }
        guard let text = code.stringValue else {
            return ErrorValueProblem(
                member: "code", description: "its \"code\" is \(article(code)), not the name of a canonical code (\(codes))")
        }
        guard ErrorCode(rawValue: text) != nil else {
            return ErrorValueProblem(
                member: "code",
                description: "its \"code\" \"\(text)\" is no canonical code\(codeHint(for: text)); use one of \(codes)")
        }
        for member in stringMembers {
            guard let given = object[member], !given.isNull, given.stringValue == nil else { continue }
            return ErrorValueProblem(member: member, description: "its \"\(member)\" is \(article(given)), not a string")
        }
        return nil
    }

    /// A value's type with its article: `a string`, `an integer`, `null`.
    private static func article(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .int, .array, .object: "an \(value.typeName)"
        case .bool, .double, .string: "a \(value.typeName)"
        }
    }

    /// ` (did you mean "x"?)` for a code that is not canonical: the code a Step Functions error name
    /// (`States.Timeout`) stands for, saying so, or the nearest by spelling.
    static func codeHint(for text: String) -> String {
        if let code = StepFunctionsErrorName.code(for: text) {
            return SpellingSuggestion.question(code.rawValue, then: "\"\(text)\" is a Step Functions error name")
        }
        return SpellingSuggestion.hint(for: text, among: ErrorCode.all.map(\.rawValue))
    }
}
