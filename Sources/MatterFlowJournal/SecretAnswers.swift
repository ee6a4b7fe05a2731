import MatterFlow
import MatterFlowJSON

/// The secret answers a run was given before it stopped, as its journal knows them: for each question, the salted
/// digest its last `answered` record keeps (never the answer), so that `recover --resume --answer NAME=VALUE` can
/// check an answer given again and give it back to the resumed run.
struct SecretAnswers {
    /// One secret answer the run was given.
    struct Given {
        /// The question's name, and the ask state that asked it.
        var question: String
        var state: String
        /// The workflow path of the level that asked (`commission-device/commission`).
        var workflowPath: String
        var digest: String
    }

    /// The salt of the run's digests (`runStarted`'s `secretDigests`).
    let salt: String
    /// The last secret answer to each question that was not asked again afterwards, in journal order.
    let given: [Given]

    /// Reads the journal's secret answers; nil when it has none with a digest (journals written before answers were
    /// digested, runs that showed secrets).
    init?(entries: JournalEntries, started: RunStartedEntry) {
        guard let salt = started.secretDigests?.salt else { return nil }
        var last: [String: Given] = [:]
        var order: [String] = []
        for record in entries {
            // `answered` names its question; `questionAsked` carries the whole question, with its name.
            guard case .event(let event) = record.entry,
                let question = event.details["question"]?.stringValue ?? event.details["question"]?["name"]?.stringValue
            else { continue }
            let key = event.workflow + "\u{0}" + question
            switch event.name {
            case .answered:
                guard let digest = event.details["digest"]?.stringValue, let state = event.state else { continue }
                if last[key] == nil { order.append(key) }
                last[key] = Given(question: question, state: state, workflowPath: event.workflow, digest: digest)
            case .questionAsked:
                // Asked again: an answer now is for the new question, not the one before.
                last[key] = nil
            default:
                continue
            }
        }
        let given = order.compactMap { last[$0] }
        guard !given.isEmpty else { return nil }
        self.salt = salt
        self.given = given
    }

    /// The answer given again for `answer` (by question or ask-state name), read as the question's value: text as
    /// it is, or `yes`/`no` as a boolean when that is what matches. `.matched` when its digest is the journal's,
    /// `.mismatched` when none of its readings is, nil when no answer was given for it.
    func check(_ answer: Given, in answers: [String: JSONValue]) -> Check? {
        guard let value = answers[answer.question] ?? answers[answer.state] else { return nil }
        for candidate in Self.readings(of: value) where SecretDigests.digest(candidate, salt: salt) == answer.digest {
            return .matched(candidate)
        }
        return .mismatched
    }

    /// How an answer given again compares with the journal's digest.
    enum Check {
        case matched(JSONValue)
        case mismatched
    }

    /// The values a text answer may stand for: itself, and a boolean for `yes`/`no` (as ``Question/parse(_:)``
    /// reads a yes-or-no answer).
    private static func readings(of value: JSONValue) -> [JSONValue] {
        guard let text = value.stringValue else { return [value] }
        var readings: [JSONValue] = [value]
        switch text.lowercased() {
        case "y", "yes", "true": readings.append(.bool(true))
        case "n", "no", "false": readings.append(.bool(false))
        default: break
        }
        return readings
    }
}
