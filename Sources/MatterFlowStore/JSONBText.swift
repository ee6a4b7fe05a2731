import Foundation
import MatterFlowJSON

extension JSONValue {
    /// The value as a PostgreSQL `jsonb` value can hold it: `jsonb` refuses the character U+0000, so each one in a
    /// string or key becomes U+FFFD (the replacement character); everything else is kept. A hub's answer or error
    /// may hold one, and the statement that writes it also writes the final statuses of the other runs of its batch:
    /// refused, it would fail them all.
    var storableAsJSONB: JSONValue {
        switch self {
        case .null, .bool, .int, .double: self
        case .string(let text): .string(Self.withoutNUL(text))
        case .array(let elements): .array(elements.map(\.storableAsJSONB))
        case .object(let object):
            .object(JSONObject(object.members.map { JSONObject.Member(key: Self.withoutNUL($0.key), value: $0.value.storableAsJSONB) }))
        }
    }

    private static func withoutNUL(_ text: String) -> String {
        text.utf8.contains(0) ? text.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}") : text
    }
}
