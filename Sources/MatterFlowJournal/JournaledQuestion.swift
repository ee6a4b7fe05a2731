import MatterFlow
import MatterFlowJSON

extension Question {
    /// The question a `questionAsked` record keeps (``Question/jsonValue``, choices resolved), asked by `state`; nil
    /// when the record does not hold a readable question.
    init?(journaled value: JSONValue, state: String) {
        guard let name = value["name"]?.stringValue, let answer = value["answer"], let schema = Self.schema(answer) else {
            return nil
        }
        self.init(
            name: name, state: state, prompt: value["prompt"]?.stringValue ?? "", schema: schema,
            secret: value["secret"]?.boolValue ?? false, timeoutSeconds: value["timeoutSeconds"]?.doubleValue ?? 0)
    }

    /// The schema of `{"choice": [{"label", "value"}]}`, `{"text": {...}}` or `{"yesNo": {}}`.
    private static func schema(_ answer: JSONValue) -> QuestionSchema? {
        if let choices = answer["choice"]?.arrayValue {
            var resolved: [QuestionSchema.Choice] = []
            for choice in choices {
                guard let label = choice["label"]?.stringValue, let value = choice["value"] else { return nil }
                resolved.append(QuestionSchema.Choice(label: label, value: value))
            }
            return .choice(resolved)
        }
        if let text = answer["text"] {
            guard let minLength = text["minLength"]?.intValue, let maxLength = text["maxLength"]?.intValue else { return nil }
            var pattern: AnswerPattern?
            if let source = text["pattern"]?.stringValue {
                guard let compiled = try? AnswerPattern(source) else { return nil }
                pattern = compiled
            }
            return .text(minLength: minLength, maxLength: maxLength, maxBytes: text["maxBytes"]?.intValue, pattern: pattern)
        }
        if answer["yesNo"] != nil { return .yesNo }
        return nil
    }
}
