import MatterFlowJSON

extension ReferenceChecker {
    /// Warns where a choice or a repeat's `until` compares a value whose type the validator knows (an operation's
    /// result field, a typed input) with a literal of another type: at run time a comparison of different types is
    /// false (`notEquals` true), so such a branch never (or always) holds, silently. Comparisons with `null` are
    /// left alone: they ask whether the value is there.
    func checkComparisons(shapes: [String: ValueShape]) {
        for state in model.states {
            switch state.kind {
            case .choice(let choice):
                for (index, branch) in choice.branches.enumerated() {
                    checkComparisons(branch.condition, at: "\(state.pointer)/choices/\(index)/if", shapes: shapes)
                }
            case .workflow(let subworkflow):
                if let repeating = subworkflow.repeating {
                    checkComparisons(repeating.until, at: "\(state.pointer)/until", shapes: shapes)
                }
            case .action, .assign, .wait, .ask, .delay, .succeed, .fail:
                break
            }
        }
    }

    private func checkComparisons(_ condition: Condition, at pointer: String, shapes: [String: ValueShape]) {
        switch condition {
        case .compare(let comparison, let lhs, let rhs):
            let found = [(lhs, rhs), (rhs, lhs)].lazy.compactMap { pair -> (Reference, ValueShape, JSONValue)? in
                guard case .reference(let reference) = pair.0, case .literal(let literal) = pair.1,
                    let shape = self.shape(of: reference, shapes: shapes)
                else { return nil }
                return (reference, shape, literal)
            }.first
            guard let (reference, shape, literal) = found, let kind = Self.scalarKind(of: shape),
                let other = Self.scalarKind(of: ValueShape.scalar(of: literal)), kind != other
            else { return }
            let outcome = comparison == .notEquals ? "always holds" : "never holds"
            collector.warning(
                WorkflowDiagnosticCode.typeMismatch, at: JSONPointer.appending(comparison.rawValue, to: pointer),
                "${\(reference)} is \(kind) and \(JSONWriter.compact(literal)) is \(other): values of different types are never equal or "
                    + "ordered, so this \(outcome)\(Self.rewrite(literal, as: shape))")
        case .and(let conditions), .or(let conditions):
            let key = if case .and = condition { "and" } else { "or" }
            for (index, inner) in conditions.enumerated() {
                checkComparisons(inner, at: "\(pointer)/\(key)/\(index)", shapes: shapes)
            }
        case .not(let inner):
            checkComparisons(inner, at: "\(pointer)/not", shapes: shapes)
        case .exists, .isEmpty, .contains:
            break
        }
    }

    /// The shape a reference reads, when the validator knows it: a variable's or an input's, followed along the path.
    func shape(of reference: Reference, shapes: [String: ValueShape]) -> ValueShape? {
        guard let head = reference.head else { return nil }
        let current: ValueShape
        switch reference.root {
        case .vars: guard let shape = shapes[head] else { return nil }; current = shape
        case .input: guard let input = workflow.input(named: head) else { return nil }; current = input.type.readableShape
        case .error: current = reference.path.count == 1 ? .string : .any
        case .run: current = .string
        }
        return Self.follow(reference, from: current).shape
    }

    /// `a string`, `a number`, `a boolean` for a scalar shape (a literal's: ``ValueShape/scalar(of:)``); nil for
    /// others, `null`, lists and objects among them.
    private static func scalarKind(of shape: ValueShape) -> String? {
        switch shape {
        case .string: "a string"
        case .integer, .number: "a number"
        case .boolean: "a boolean"
        case .array, .object, .any: nil
        }
    }

    /// `; write true without quotes` when the literal is a string that reads as a value of the shape.
    private static func rewrite(_ literal: JSONValue, as shape: ValueShape) -> String {
        guard case .string(let text) = literal else { return "" }
        let reads: Bool
        switch shape {
        case .boolean: reads = text == "true" || text == "false"
        case .integer, .number: reads = (try? JSONDocument.parse(text, file: "text"))?.value.doubleValue != nil
        case .string, .array, .object, .any: reads = false
        }
        return reads ? "; write \(text) without quotes" : ""
    }
}
