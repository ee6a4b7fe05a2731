import MatterFlowJSON

extension WorkflowDecoder {
    /// Lengths a text answer may be given (characters).
    static let answerLength = NumberRange(integers: 0...4096, unit: "characters")

    /// Reads an `ask` state: its prompt, answer schema, required timeout and routes.
    func decodeAsk(_ reader: ObjectReader, stateName: String) -> AskState? {
        let question = reader.nonEmptyString("question") ?? stateName
        let prompt = reader.value("prompt", required: true).map { template($0, reader.pointer("prompt")) }
        let answer = reader.object("answer", required: true).flatMap(decodeAnswerSchema)
        let secret = reader.bool("secret") ?? false
        let result = reader.string("result")
        if let result { checkReadable(result, at: reader.pointer("result"), what: "variable") }
        // A timeout out of range is reported; the state is kept with the longest one, so that nothing is reported
        // about it missing.
        let timeout = reader.number("timeoutSeconds", in: NumberLimits.duration, required: true)
            ?? (reader.has("timeoutSeconds") ? NumberLimits.longestSeconds : nil)
        let next = reader.string("next", required: true)
        let onTimeout = reader.string("onTimeout", required: true)
        guard let prompt, let answer, let timeout, let next, let onTimeout else { return nil }
        return AskState(
            question: question, prompt: prompt, answer: answer, secret: secret, result: result, timeoutSeconds: timeout,
            next: next, onTimeout: onTimeout)
    }

    /// Reads `{"choice": {...}}`, `{"text": {...}}` or `{"yesNo": {}}`: exactly one of them.
    private func decodeAnswerSchema(_ reader: ObjectReader) -> AnswerSchema? {
        let kinds = ["choice", "text", "yesNo"].filter(reader.has)
        guard kinds.count == 1, let kind = kinds.first, let body = reader.object(kind, required: true) else {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer,
                kinds.isEmpty
                    ? "an answer needs one of \"choice\", \"text\" or \"yesNo\""
                    : "an answer is one of \"choice\", \"text\" or \"yesNo\", not \(kinds.map { "\"\($0)\"" }.joined(separator: " and "))")
            reader.allow("choice", "text", "yesNo")
            reader.finish()
            return nil
        }
        reader.finish()
        defer { body.finish() }
        switch kind {
        case "choice":
            let from = body.value("from", required: true).map { template($0, body.pointer("from")) }
            let label = body.nonEmptyString("label")
            let value = body.nonEmptyString("value")
            guard let from else { return nil }
            return .choice(from: from, label: label, value: value)
        case "text":
            let minLength = body.int("minLength", in: Self.answerLength) ?? 0
            let maxLength = body.int("maxLength", in: Self.answerLength) ?? 256
            if minLength > maxLength {
                collector.error(
                    DiagnosticCode.invalidValue, at: body.pointer("minLength"),
                    "\"minLength\" (\(minLength)) is more than \"maxLength\" (\(maxLength)); no answer could fit")
            }
            var pattern: AnswerPattern?
            if let source = body.string("pattern") {
                do {
                    pattern = try AnswerPattern(source)
                } catch {
                    // The pattern is shown as JSON text, so that its control characters cannot reach a terminal.
                    collector.error(
                        DiagnosticCode.invalidValue, at: body.pointer("pattern"),
                        "pattern \(JSONWriter.compact(.string(source))) \(error.description) (the supported subset: "
                            + "docs/workflow-language.md, section 4.10)")
                }
            }
            let maxBytes = body.int("maxBytes", in: NumberLimits.argumentBytes)
            if let maxBytes, maxBytes < minLength {
                collector.error(
                    DiagnosticCode.invalidValue, at: body.pointer("maxBytes"),
                    "\"maxBytes\" (\(maxBytes)) is less than \"minLength\" (\(minLength)); each character takes a byte at least, so no answer could fit")
            }
            return .text(minLength: minLength, maxLength: maxLength, maxBytes: maxBytes, pattern: pattern)
        default:
            return .yesNo
        }
    }
}
