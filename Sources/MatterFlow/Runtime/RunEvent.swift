import MatterFlowJSON

/// Something that happened during a run, in order. Secrets are already redacted unless the run shows them.
public struct RunEvent: Sendable {
    /// What happened.
    public enum Kind: Sendable {
        case runStarted(inputs: JSONObject)
        case stateEntered(state: String, type: String)
        case guardChecked(state: String, guard: Guard, error: FlowError?)
        case hubCallStarted(state: String, operation: String, attempt: Int, arguments: JSONObject)
        case hubCallFinished(state: String, operation: String, attempt: Int, duration: Duration, error: FlowError?)
        case retryScheduled(state: String, attempt: Int, delaySeconds: Double, error: FlowError)
        case transition(from: String, to: String, edge: WorkflowEdge.Kind)
        case warning(state: String, message: String)
        case waitStarted(state: String, event: String, timeoutSeconds: Double)
        case eventReceived(state: String, event: String, value: String, fields: JSONObject)
        /// A delay state starts waiting this long.
        case delayStarted(state: String, seconds: Double)
        /// An ask state asks its question (prompt rendered, choices resolved) and waits for the answer.
        case questionAsked(state: String, question: Question)
        /// The question was answered with this value (redacted when the question is secret).
        case answered(state: String, question: String, value: JSONValue)
        /// An answer given in advance did not fit the question; the run waits for another.
        case answerRejected(state: String, question: String, reason: String)
        /// An assign state's `show` value, for whoever runs the workflow. `value` is redacted as every event is;
        /// `revealed` is the value itself, secrets included, for the person (as the run's output holds them): show it
        /// to them, and never write it where records, logs or traces go.
        case shown(state: String, value: JSONValue, revealed: JSONValue)
        /// The run was asked to cancel while in `state`; `reason` says why when whoever cancelled it said
        /// (``RunHandle/cancel(reason:)``).
        case cancelRequested(state: String, reason: String?)
        /// The run ended; `holdsSession` is ``RunResult/holdsSession``.
        case runFinished(outcome: RunResult.Outcome, error: FlowError?, holdsSession: Bool)
    }

    /// The run the event is of.
    public var runID: String
    /// Time on the run's clock.
    public var time: Duration
    /// The workflow names from the top-level run down to the one the event is about.
    public var workflowPath: [String]
    /// What happened.
    public var kind: Kind

    /// An event, as a service's own tests may need one (a run reports its own).
    public init(runID: String, time: Duration, workflowPath: [String], kind: Kind) {
        self.runID = runID
        self.time = time
        self.workflowPath = workflowPath
        self.kind = kind
    }

    /// The event's name in `--trace jsonl` output.
    public var name: String {
        switch kind {
        case .runStarted: "runStarted"
        case .stateEntered: "stateEntered"
        case .guardChecked: "guardChecked"
        case .hubCallStarted: "hubCallStarted"
        case .hubCallFinished: "hubCallFinished"
        case .retryScheduled: "retryScheduled"
        case .transition: "transitionTaken"
        case .warning: "warning"
        case .waitStarted: "waitStarted"
        case .eventReceived: "eventReceived"
        case .delayStarted: "delayStarted"
        case .questionAsked: "questionAsked"
        case .answered: "answered"
        case .answerRejected: "answerRejected"
        case .shown: "shown"
        case .cancelRequested: "cancelRequested"
        case .runFinished: "runFinished"
        }
    }

    /// The event as one JSON object (one line of `--trace jsonl`); a `shown` event's `value` as redacted.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["event"] = .string(name)
        object["runID"] = .string(runID)
        object["time"] = .double(time.secondsValue)
        object["workflow"] = .string(workflowPath.joined(separator: "/"))
        func error(_ error: FlowError?) -> JSONValue {
            error.map(Scope.json) ?? .null
        }
        switch kind {
        case .runStarted(let inputs):
            object["inputs"] = .object(inputs)
        case .stateEntered(let state, let type):
            object["state"] = .string(state)
            object["type"] = .string(type)
        case .guardChecked(let state, let guardName, let failure):
            object["state"] = .string(state)
            object["guard"] = .string(guardName.name)
            object["passed"] = .bool(failure == nil)
            if failure != nil { object["error"] = error(failure) }
        case .hubCallStarted(let state, let operation, let attempt, let arguments):
            object["state"] = .string(state)
            object["operation"] = .string(operation)
            object["attempt"] = .int(attempt)
            object["arguments"] = .object(arguments)
        case .hubCallFinished(let state, let operation, let attempt, let duration, let failure):
            object["state"] = .string(state)
            object["operation"] = .string(operation)
            object["attempt"] = .int(attempt)
            object["durationSeconds"] = .double(duration.secondsValue)
            object["succeeded"] = .bool(failure == nil)
            if failure != nil { object["error"] = error(failure) }
        case .retryScheduled(let state, let attempt, let delay, let failure):
            object["state"] = .string(state)
            object["nextAttempt"] = .int(attempt)
            object["delaySeconds"] = .double(delay)
            object["error"] = error(failure)
        case .transition(let from, let to, let edge):
            object["from"] = .string(from)
            object["to"] = .string(to)
            object["edge"] = .string(edge.description)
        case .warning(let state, let message):
            object["state"] = .string(state)
            object["message"] = .string(message)
        case .waitStarted(let state, let event, let timeout):
            object["state"] = .string(state)
            object["eventName"] = .string(event)
            object["timeoutSeconds"] = .double(timeout)
        case .eventReceived(let state, let event, let value, let fields):
            object["state"] = .string(state)
            object["eventName"] = .string(event)
            object["value"] = .string(value)
            object["fields"] = .object(fields)
        case .delayStarted(let state, let seconds):
            object["state"] = .string(state)
            object["seconds"] = .double(seconds)
        case .questionAsked(let state, let question):
            object["state"] = .string(state)
            object["question"] = question.jsonValue
        case .answered(let state, let question, let value):
            object["state"] = .string(state)
            object["question"] = .string(question)
            object["value"] = value
        case .answerRejected(let state, let question, let reason):
            object["state"] = .string(state)
            object["question"] = .string(question)
            object["reason"] = .string(reason)
        case .shown(let state, let value, _):
            object["state"] = .string(state)
            object["value"] = value
        case .cancelRequested(let state, let reason):
            object["state"] = .string(state)
            if let reason { object["reason"] = .string(reason) }
        case .runFinished(let outcome, let failure, let holdsSession):
            object["outcome"] = .string(outcome.rawValue)
            object["error"] = error(failure)
            if holdsSession { object["holdsSession"] = true }
        }
        return .object(object)
    }

    /// A line for people watching a run, indented by sub-workflow depth.
    public var text: String {
        let indent = String(repeating: "  ", count: workflowPath.count)
        switch kind {
        case .runStarted:
            return "▶ \(workflowPath.first ?? "") (run \(runID))"
        case .stateEntered(let state, let type):
            let qualified = workflowPath.count > 1 ? " in \(workflowPath.last ?? "")" : ""
            return "\(indent)● \(state)\(qualified) [\(type)]"
        case .guardChecked(_, let guardName, let failure):
            return "\(indent)  " + (failure.map { "✗ guard \(guardName.name): \($0)" } ?? "✓ guard \(guardName.name)")
        case .hubCallStarted(_, let operation, let attempt, _):
            return "\(indent)  … \(operation)" + (attempt > 1 ? " (attempt \(attempt))" : "")
        case .hubCallFinished(_, let operation, _, let duration, let failure):
            let time = Self.milliseconds(duration)
            return "\(indent)  " + (failure.map { "✗ \(operation) failed after \(time): \($0)" } ?? "✓ \(operation) (\(time))")
        case .retryScheduled(_, let attempt, let delay, let failure):
            return "\(indent)  ↻ attempt \(attempt) in \(Self.format(delay)) s after \(failure.cause.rawValue)"
        case .transition(_, let to, let edge):
            switch edge {
            case .error(_, _): return "\(indent)  ↘ error route to \(to)"
            case .cancel: return "\(indent)  ↘ cancel path to \(to)"
            case .event(let value): return "\(indent)  ⇢ \(value) → \(to)"
            case .eventOtherwise: return "\(indent)  ⇢ other event → \(to)"
            case .timeout: return "\(indent)  ⌛ timed out → \(to)"
            case .next, .choice, .choiceDefault: return "\(indent)  → \(to)"
            }
        case .warning(_, let message):
            return "\(indent)  ⚠ \(message)"
        case .waitStarted(_, let event, let timeout):
            return "\(indent)  … waiting for \(event) (up to \(Self.format(timeout)) s)"
        case .eventReceived(_, let event, let value, _):
            return "\(indent)  ✓ \(event): \(value)"
        case .delayStarted(_, let seconds):
            return "\(indent)  … waiting \(Self.format(seconds)) s"
        case .questionAsked(_, let question):
            return "\(indent)  ? \(question.prompt) (question \(question.name), up to \(Self.format(question.timeoutSeconds)) s)"
        case .answered(_, let question, let value):
            return "\(indent)  ✓ \(question): \(value.stringValue ?? JSONWriter.compact(value))"
        case .answerRejected(_, let question, let reason):
            return "\(indent)  ✗ answer to \(question) refused: \(reason)"
        case .shown(_, let value, _):
            return "\(indent)  » shown: \(value.stringValue ?? JSONWriter.compact(value))"
        case .cancelRequested(let state, let reason):
            return "\(indent)  ✋ cancel requested in \(state)" + (reason.map { ": \($0)" } ?? "")
        case .runFinished(let outcome, let failure, _):
            return "■ \(outcome.rawValue)" + (failure.map { ": \($0) (in \($0.state ?? "?"))" } ?? "")
        }
    }

    /// Whether the event is worth a line in the text trace (plain `next` transitions are implied by the next
    /// state's line).
    public var isShownInTextTrace: Bool {
        if case .transition(_, _, let edge) = kind {
            switch edge {
            case .next, .choice, .choiceDefault: return false
            case .error, .cancel, .event, .eventOtherwise, .timeout: return true
            }
        }
        return true
    }

    private static func milliseconds(_ duration: Duration) -> String {
        "\(format(duration.secondsValue * 1000)) ms"
    }

    private static func format(_ value: Double) -> String {
        NumberRange.format((value * 10).rounded() / 10)
    }
}
