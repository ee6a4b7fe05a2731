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
        /// The question as its `questionAsked` record keeps it (choices resolved), read only when an answer is
        /// given again: ``asked``.
        var askedRecord: JSONValue?

        /// The question as it was asked; nil when its record could not be read.
        var asked: Question? { askedRecord.flatMap { Question(journaled: $0, state: state) } }
    }

    /// A secret answer the run was given, and the value given again for it (nil when none was).
    struct Resumed {
        var given: Given
        var value: JSONValue?
    }

    /// The run's salt (`runStarted`'s `secretDigests`).
    let digests: SecretDigests
    /// The last secret answer to each question that was not asked again afterwards, in journal order.
    let given: [Given]

    /// Reads the journal's secret answers; nil when it has none with a digest (journals written before answers were
    /// digested, runs that showed secrets).
    init?(entries: JournalEntries, digests: SecretDigests?) {
        guard let digests else { return nil }
        var last: [String: Given] = [:]
        var asked: [String: JSONValue] = [:]
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
                    question: question, state: state, workflowPath: event.workflow, digest: digest, askedRecord: asked[key])
            case .questionAsked:
                // Asked again: an answer now is for the new question, not the one before.
                last[key] = nil
                asked[key] = event.details["question"]
            default:
                continue
            }
        }
        let given = order.compactMap { last[$0] }
        guard !given.isEmpty else { return nil }
        self.digests = digests
        self.given = given
    }

    /// Each secret answer with the value given again for it in `answers` (by question or ask-state name) when that
    /// value, read as the run read its answer (``Question/accept(_:)``) or taken as it is, has the journal's digest;
    /// the names of the questions whose value given again does not.
    func resumed(with answers: [String: JSONValue]) -> (resumed: [Resumed], mismatched: [String]) {
        var resumed: [Resumed] = []
        var mismatched: [String] = []
        for given in given {
            guard let value = answers[given.question] ?? answers[given.state] else {
                resumed.append(Resumed(given: given, value: nil))
                continue
            }
            // The value as the run would read it (a choice by number or label), else as it is: the journal may
            // hold the question without it (choices that were secrets are redacted in its record), and the digest
            // tells the run's answer from any other either way.
            let readings = [given.asked.flatMap { try? $0.accept(value) }, value].compactMap { $0 }
            guard let read = readings.first(where: { digests.matches($0, digest: given.digest) }) else {
                mismatched.append(given.question)
                continue
            }
            resumed.append(Resumed(given: given, value: read))
        }
        return (resumed, mismatched)
    }
}
