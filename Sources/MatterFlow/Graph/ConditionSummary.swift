import MatterFlowJSON

extension Condition {
    /// A short, readable form for edge labels: `exists ${vars.session}`, `${vars.x} == 1`, `not (...)`.
    public var summary: String {
        switch self {
        case .compare(let comparison, let lhs, let rhs):
            let symbol = switch comparison {
            case .equals: "=="
            case .notEquals: "!="
            case .lessThan: "<"
            case .lessThanOrEqual: "<="
            case .greaterThan: ">"
            case .greaterThanOrEqual: ">="
            }
            return "\(lhs.summary) \(symbol) \(rhs.summary)"
        case .exists(let value): return "exists \(value.summary)"
        case .isEmpty(let value): return "isEmpty \(value.summary)"
        case .contains(let haystack, let needle): return "\(haystack.summary) contains \(needle.summary)"
        case .and(let conditions): return conditions.map { $0.operand }.joined(separator: " and ")
        case .or(let conditions): return conditions.map { $0.operand }.joined(separator: " or ")
        case .not(let condition): return "not \(condition.operand)"
        }
    }

    private var operand: String {
        switch self {
        case .and, .or: "(\(summary))"
        case .compare, .exists, .isEmpty, .contains, .not: summary
        }
    }
}

extension Template {
    /// A short form: `${vars.x}`, compact JSON for literals, the text of an interpolation in quotes.
    public var summary: String {
        switch self {
        case .literal(let value): return JSONWriter.compact(value)
        case .reference(let reference): return "${\(reference)}"
        case .interpolation(let parts):
            let text = parts.map { part in
                switch part {
                case .text(let text): text
                case .reference(let reference): "${\(reference)}"
                }
            }.joined()
            return "\"\(text)\""
        case .array: return "[...]"
        case .object: return "{...}"
        }
    }
}
