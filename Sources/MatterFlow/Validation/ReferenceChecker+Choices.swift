import MatterFlowJSON

extension ReferenceChecker {
    /// Checks an ask state's choice `label` and `value` against the elements of its list, where the validator knows
    /// them: a reference whose shape is known (a `fetchRooms` result's `rooms`, a typed input) or a literal list. A
    /// field the elements cannot have is `unknownField` at the member naming it: at run time the question fails
    /// with invalidArgumentValue when it is asked, which is often late (after a device was commissioned).
    func checkChoiceFields(shapes: [String: ValueShape]) {
        for state in model.states {
            guard case .ask(let ask) = state.kind, case .choice(let from, let label, let value) = ask.answer else { continue }
            for (member, field) in [("label", label), ("value", value)] {
                guard let field else { continue }
                let pointer = state.pointer + "/answer/choice/" + member
                switch from {
                case .reference(let reference):
                    guard let list = shape(of: reference, shapes: shapes), let element = list.element,
                        let problem = Self.fieldProblem(field, of: element)
                    else { continue }
                    collector.error(
                        Code.unknownField, at: pointer,
                        "\(member) \"\(field)\" is no field of the elements of ${\(reference)}: \(problem); the question would fail when asked")
                case .literal(.array(let elements)):
                    guard let index = elements.firstIndex(where: { $0[field].map(\.isNull) ?? true }) else { continue }
                    let element = elements[index]
                    let problem: String
                    if case .object(let object) = element {
                        let keys = object.members.map(\.key)
                        problem = "has no \"\(field)\" field\(SpellingSuggestion.hint(for: field, among: keys)) (fields: \(keys.joined(separator: ", ")))"
                    } else {
                        problem = "is a \(element.typeName), which has no fields"
                    }
                    collector.error(
                        Code.unknownField, at: pointer,
                        "\(member) \"\(field)\": choice \(index) \(problem); the question would fail when asked")
                case .literal, .interpolation, .array, .object:
                    continue
                }
            }
        }
    }

    /// Why an element of `shape` has no member `field` (the elements' shape, with a spelling hint); nil when it may
    /// have it.
    private static func fieldProblem(_ field: String, of shape: ValueShape) -> String? {
        switch shape {
        case .any: return nil
        case .object(let fields):
            let names = fields.map(\.name)
            guard !names.contains(field) else { return nil }
            return "they are \(shape)\(SpellingSuggestion.hint(for: field, among: names))"
        case .array, .string, .integer, .number, .boolean:
            return "they are \(shape), which has no fields (without label and value a choice shows and gives the element itself)"
        }
    }
}
