import MatterFlowJSON

/// A choice branch's condition. Comparing values of different types is false, never an error.
public indirect enum Condition: Sendable {
    /// The comparison operators, as written in workflow files.
    public enum Comparison: String, Sendable, CaseIterable {
        case equals, notEquals, lessThan, lessThanOrEqual, greaterThan, greaterThanOrEqual
    }

    case compare(Comparison, Template, Template)
    /// The value resolves and is not null.
    case exists(Template)
    /// The value is null, missing, or an empty string, array or object.
    case isEmpty(Template)
    /// An array holds the element, or a string holds the substring.
    case contains(Template, Template)
    case and([Condition])
    case or([Condition])
    case not(Condition)

    /// The operator names a condition object may use.
    public static let operatorNames: [String] =
        Comparison.allCases.map(\.rawValue) + ["exists", "isEmpty", "contains", "and", "or", "not"]

    /// Every template the condition reads.
    public var templates: [Template] {
        switch self {
        case .compare(_, let lhs, let rhs), .contains(let lhs, let rhs): [lhs, rhs]
        case .exists(let value), .isEmpty(let value): [value]
        case .and(let conditions), .or(let conditions): conditions.flatMap(\.templates)
        case .not(let condition): condition.templates
        }
    }
}
