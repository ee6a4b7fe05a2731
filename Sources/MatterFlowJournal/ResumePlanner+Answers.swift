import MatterFlow
import MatterFlowJSON

extension ResumePlanner {
    /// The secret answers a resumed run gets back, and those it still lacks.
    struct RestoredAnswers {
        /// The answers put back into the levels' variables (the continued run treats them as secrets).
        var values: [JSONValue] = []
        /// The question and ask-state names of the answers put back: they are used up, not held for a question
        /// the continued run may ask.
        var names: Set<String> = []
        var notes: [String] = []
        /// A variable still redacted because its secret answer was not given again, as the plan names missing
        /// values (`vars.code`, `commission: vars.code`), with the question to answer.
        var needed: [String: String] = [:]
    }

    /// Puts back into the checkpoints each secret answer given again whose digest is the journal's (``answers``,
    /// checked by ``RunRecoverer`` before planning): the variable its ask state bound, where the checkpoint holds it
    /// redacted.
    func restoreSecretAnswers(_ levels: inout [RunCheckpoint], in workflow: Workflow) -> RestoredAnswers {
        var restored = RestoredAnswers()
        for answer in answers {
            let given = answer.given
            guard let index = levels.firstIndex(where: { $0.workflowPath.joined(separator: "/") == given.workflowPath }),
                let level = Self.workflow(ofLevel: index, levels, in: workflow),
                case .ask(let ask)? = level.states[given.state]?.kind, let result = ask.result,
                let bound = levels[index].variables[result], Self.isRedacted(bound)
            else { continue }
            if let value = answer.value {
                levels[index].variables[result] = value
                restored.values.append(value)
                restored.names.formUnion([given.question, given.state])
                restored.notes.append(
                    "the secret answer to \(given.question) was given again (it matches the journal's digest); the resumed run uses it")
            } else {
                let prefix = index == 0 ? "" : levels[index].workflowPath.dropFirst().joined(separator: "/") + ": "
                restored.needed[prefix + "vars." + result] = given.question
            }
        }
        return restored
    }
}
