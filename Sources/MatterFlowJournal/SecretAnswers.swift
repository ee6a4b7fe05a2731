import MatterFlow
import MatterFlowJSON

/// The secret answers a run was given before it stopped, as its journal knows them: for each question, the salted
/// digest its last `answered` record keeps (never the answer) and the question as its `questionAsked` record
/// published it, so that `recover --resume --answer NAME=VALUE` can read an answer given again as the run read it,
/// compare it with the digest, and give it back to the resumed run.
struct SecretAnswers {
    /// One secret answer the run was given.
    struct Given {
        /// The question's name, and the ask state that asked it.
        var question: String
        var state: String
        /// The workflow path of the level that asked (`commission-device/commission`).
        var workflowPath: String
        var digest: String
        /// The question as it was asked (choices resolved); nil when its record could not be read.
        var asked: Question?
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
        var asked: [String: Question] = [:]
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
                last[key] = Given(
                    question: question, state: state, workflowPath: event.workflow, digest: digest, asked: asked[key])
            case .questionAsked:
                // Asked again: an answer now is for the new question, not the one before.
                last[key] = nil
                asked[key] = event.details["question"].flatMap { Question(journaled: $0, state: event.state ?? "") }
            default:
                continue
            }
        }
        let given = order.compactMap { last[$0] }
        guard !given.isEmpty else { return nil }
        self.salt = salt
        self.given = given
    }

    /// The answer given again for `answer` (by question or ask-state name), read as the run read its answer
    /// (``Question/accept(_:)``: a choice by number or label, `yes`/`no`, whitespace trimmed). `.matched` when its
    /// digest is the journal's, `.mismatched` when it is not or the question refuses it, nil when no answer was given
    /// for it.
    func check(_ answer: Given, in answers: [String: JSONValue]) -> Check? {
        guard let value = answers[answer.question] ?? answers[answer.state] else { return nil }
        // An answer the question refuses is not the one the run took. Without the question's record the value is
        // compared as it is: the digest still tells the run's answer from any other.
        let read: JSONValue?
        if let asked = answer.asked { read = try? asked.accept(value) } else { read = value }
        guard let read, SecretDigests.digest(read, salt: salt) == answer.digest else { return .mismatched }
        return .matched(read)
    }

    /// How an answer given again compares with the journal's digest.
    enum Check {
        case matched(JSONValue)
        case mismatched
    }
}
