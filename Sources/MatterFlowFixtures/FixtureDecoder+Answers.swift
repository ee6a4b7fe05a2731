import MatterFlow
import MatterFlowJSON

extension FixtureDecoder {
    /// Reads `"answers": {"<question>": {"answer": VALUE} | {"rejectedAnswer": VALUE} | {"noAnswer": true} |
    /// {"cancel": true}}`; each name must be a question (or ask state) of the workflow.
    func decodeAnswers(_ reader: ObjectReader, workflow: Workflow?) -> [String: FixtureAnswer] {
        let known = workflow?.questionNames ?? []
        var answers: [String: FixtureAnswer] = [:]
        for member in reader.object.members {
            reader.allow(member.key)
            let pointer = reader.pointer(member.key)
            if workflow != nil, !known.contains(member.key) {
                collector.error(
                    FixtureDiagnosticCode.unknownState, at: pointer,
                    "the workflow has no ask state or question \"\(member.key)\"\(SpellingSuggestion.hint(for: member.key, among: known)) (questions: \(known.isEmpty ? "none" : known.sorted().joined(separator: ", ")))")
                continue
            }
            guard let entry = collector.object(member.value, at: pointer, what: "answer \"\(member.key)\"") else { continue }
            let kinds = ["answer", "rejectedAnswer", "noAnswer", "cancel"].filter(entry.has)
            guard kinds.count == 1, let kind = kinds.first else {
                collector.error(
                    DiagnosticCode.invalidValue, at: pointer,
                    "an answer is one of {\"answer\": VALUE}, {\"rejectedAnswer\": VALUE} (one the question must refuse), {\"noAnswer\": true} (it times out) or {\"cancel\": true} (the run is cancelled while it waits)")
                entry.allow("answer", "rejectedAnswer", "noAnswer", "cancel")
                entry.finish()
                continue
            }
            switch kind {
            case "answer":
                if let value = entry.value("answer") { answers[member.key] = .answer(value) }
            case "rejectedAnswer":
                if let value = entry.value("rejectedAnswer") { answers[member.key] = .rejectedAnswer(value) }
            case "noAnswer":
                if entry.bool("noAnswer", required: true) == true { answers[member.key] = .noAnswer } else { flagFalse(entry, kind) }
            default:
                if entry.bool("cancel", required: true) == true { answers[member.key] = .cancel } else { flagFalse(entry, kind) }
            }
            entry.finish()
        }
        return answers
    }

    private func flagFalse(_ entry: ObjectReader, _ key: String) {
        collector.error(DiagnosticCode.invalidValue, at: entry.pointer(key), "\"\(key)\" can only be true; leave the question out to let it time out")
    }
}
