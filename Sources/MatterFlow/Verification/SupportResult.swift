import MatterFlowJSON

/// What a variable holds when it is bound to the result of a support-check operation (one an order requirement of
/// scope ``OrderRequirement/Scope/supportCheck`` names): the operation, and the shape of the value as the variable
/// holds it: the operation's declared result, or the part of it a sub-workflow outputs (`find-border-router.json`
/// outputs one border router of `listBorderRouters`' list). A choice branch is a check of the result only when it
/// reads a value of it that the shape declares, other than by testing whether it exists (``Condition/valueReads``).
struct SupportResult: Equatable {
    var operation: String
    var shape: ValueShape

    /// The result as one of two ways of binding it: this one's operation, with a shape `any` unless both agree (as
    /// ``ReferenceChecker`` takes a variable that states bind differently).
    func merged(with other: SupportResult) -> SupportResult {
        SupportResult(operation: operation, shape: shape == other.shape ? shape : .any)
    }

    /// Whether a reference to the variable holding the result reads only what the shape declares.
    func declares(_ reference: Reference) -> Bool {
        ReferenceChecker.follow(reference, from: shape).stuck == nil
    }

    /// The shape of a value a succeed state outputs, from what is known of the variables holding support results
    /// (`support`): a support result read whole or in part, an object of such values, a literal's type, a string
    /// for text with references; `any` for a value of unknown shape.
    static func shape(of output: Template, support: [String: SupportResult]) -> ValueShape {
        switch output {
        case .literal(let value):
            return ValueShape.scalar(of: value)
        case .reference(let reference):
            guard reference.root == .vars, let head = reference.head, let result = support[head] else { return .any }
            return ReferenceChecker.follow(reference, from: result.shape).shape ?? .any
        case .interpolation:
            return .string
        case .array:
            return .any
        case .object(let members):
            return .object(members.map { .init($0.key, shape(of: $0.value, support: support), "a member of the output") })
        }
    }
}

extension Condition {
    /// The references the condition reads a value through: those of comparisons and `contains`, at any depth under
    /// `and`, `or` and `not`. A test of existence or emptiness (`exists`, `isEmpty`) reads no value: it holds alike
    /// whatever a support result says, so it is no check of it.
    var valueReads: [Reference] {
        switch self {
        case .compare(_, let lhs, let rhs), .contains(let lhs, let rhs): lhs.references + rhs.references
        case .exists, .isEmpty: []
        case .and(let conditions), .or(let conditions): conditions.flatMap(\.valueReads)
        case .not(let condition): condition.valueReads
        }
    }
}
