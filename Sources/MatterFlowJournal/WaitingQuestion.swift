import MatterFlow
import MatterFlowJSON

/// A question a run waits for an answer to, as its records show: what `matterflow answer RUN` lists, and what an
/// answer to it is checked against (its choices as the run resolved them).
public struct WaitingQuestion: Sendable {
    /// The question as asked: prompt rendered, choices resolved.
    public var question: Question
    /// The workflow path of the level that asks it (`commission-device-interactive/rooms`).
    public var workflow: String
    /// When it was asked, in seconds since the Unix epoch.
    public var askedAt: Double

    /// The questions a run's records show it waiting for: each `questionAsked` not followed by its `answered`, by a
    /// transition out of its state (the answer taken, or the timeout), by the run's end or by a recovery (which asks
    /// again a question it resumes at); in the order asked. Records that cannot be read are passed over.
    public static func waiting(in records: [JournalRecord]) -> [WaitingQuestion] {
        var waiting: [WaitingQuestion] = []
        for record in records {
            guard let decoded = try? JournalEntryCodec.decode(record, path: "") else { continue }
            switch decoded.entry {
            case .event(let event):
                switch event.name {
                case .questionAsked:
                    guard let state = event.state, let asked = event.details["question"],
                        let question = Question(journaled: asked, state: state)
                    else { continue }
                    waiting.removeAll { $0.workflow == event.workflow && $0.question.state == state }
                    waiting.append(WaitingQuestion(question: question, workflow: event.workflow, askedAt: decoded.wallTime))
                case .answered:
                    waiting.removeAll { $0.workflow == event.workflow && $0.question.state == event.state }
                case .transitionTaken:
                    let from = event.details["from"]?.stringValue
                    waiting.removeAll { $0.workflow == event.workflow && $0.question.state == from }
                case .stateEntered, .guardChecked, .retryScheduled, .warning, .waitStarted, .eventReceived, .answerRejected,
                    .delayStarted, .cancelRequested:
                    continue
                }
            case .runFinished, .recoveryStarted:
                waiting.removeAll()
            case .runStarted, .checkpoint, .intent, .outcome, .lateResult, .tornTailDiscarded, .resolution, .recoveryDeferred,
                .recoveryFinished:
                continue
            }
        }
        return waiting
    }

    /// The question, the level asking it and when, as JSON (`matterflow answer RUN --json`).
    public var jsonValue: JSONValue {
        var object = question.jsonValue.objectValue ?? [:]
        object["state"] = .string(question.state)
        object["workflow"] = .string(workflow)
        object["askedAt"] = .double(askedAt)
        return .object(object)
    }
}
