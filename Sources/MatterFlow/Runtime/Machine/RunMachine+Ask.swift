import MatterFlowJSON

/// An ask state's wait: the question, and when it times out.
struct QuestionWait: Sendable {
    let question: Question
    let timeout: Duration
    /// False on a cancel path, which no cancel interrupts.
    let cancellable: Bool
}

/// How a wait for an answer ended, as fed to ``RunMachine/answerEnded(_:)``.
enum AnswerEnd: Sendable {
    /// The answer, already checked against the question's schema.
    case answered(JSONValue)
    case timedOut
    /// A cancel ended the wait (only a cancellable one).
    case cancelled
}

extension RunMachine {
    // An ask state renders its prompt and resolves its choices, publishes the question and hands the wait for the
    // answer to the driver; the answer binds the state's result and leads to `next`, no answer in time to
    // `onTimeout`, a cancel to the cancel path.

    /// The wait for an answer ended: the answer arrived, the timeout passed, or a cancel ended it.
    mutating func answerEnded(_ end: AnswerEnd) throws(RunMachineError) -> RunActions {
        let left = leavePhase()
        guard case .waitingAnswer(let ask, let question) = left else {
            phase = left
            throw refuse(.answerEnded)
        }
        if case .cancelled = end { noteCancel() }
        drive(.move(answerEnded(end, ask, question)))
        return takeActions()
    }

    /// Renders the question and hands the wait to the driver; a prompt or choice list that does not evaluate ends
    /// the level.
    mutating func startAsk(_ ask: AskState, waited: Duration?) -> Continuation {
        let question: Question
        do throws(FlowError) {
            question = try Self.question(of: ask, state: top.current, scope: top.scope)
        } catch {
            return .move(.end(.failed(located(error, top.qualifiedCurrent))))
        }
        report(top.path, .questionAsked(state: top.current, question: question))
        let timeout = Self.remaining(.seconds(rounding: ask.timeoutSeconds), after: waited)
        let wait = QuestionWait(question: question, timeout: timeout, cancellable: !top.onCancelPath)
        return handOver(.waitingAnswer(ask, question), .askQuestion(wait))
    }

    /// Where an answer's end sends the level.
    private mutating func answerEnded(_ end: AnswerEnd, _ ask: AskState, _ question: Question) -> Move {
        switch end {
        case .answered(let value):
            if ask.secret { secrets.add(value) }
            let shown: JSONValue = ask.secret && !configuration.showSecrets ? .string(RunOptions.redacted) : value
            report(top.path, .answered(state: top.current, question: question.name, value: shown))
            if let result = ask.result { top.scope.bind(result, value) }
            // The `next` edge comes first, then the timeout's.
            return transition(top.planned.firstEdge)
        case .timedOut:
            return transition(top.planned.firstEdge + 1)
        case .cancelled:
            return .cancel
        }
    }

    /// The question an ask state asks in a scope: its prompt rendered, its choices taken from their list.
    static func question(of ask: AskState, state: String, scope: Scope) throws(FlowError) -> Question {
        let rendered = try scope.evaluate(ask.prompt)
        let schema: QuestionSchema
        switch ask.answer {
        case .choice(let from, let label, let value):
            let list = try scope.evaluate(from)
            guard let elements = list.arrayValue else {
                throw FlowError(
                    code: .invalidArgument, cause: .invalidArgumentValue,
                    message: "the choices of question \(ask.question) must be a list, found \(list.typeName)", state: nil)
            }
            var choices: [QuestionSchema.Choice] = []
            for (index, element) in elements.enumerated() {
                let shown = label.map { element[$0] } ?? element
                let given = value.map { element[$0] } ?? element
                guard let shown, let given, shown != .null, given != .null else {
                    throw FlowError(
                        code: .invalidArgument, cause: .invalidArgumentValue,
                        message: "choice \(index) of question \(ask.question) has no \"\(label ?? value ?? "value")\" field", state: nil)
                }
                choices.append(QuestionSchema.Choice(label: shown.stringValue ?? JSONWriter.compact(shown), value: given))
            }
            schema = .choice(choices)
        case .text(let minLength, let maxLength, let maxBytes, let pattern):
            schema = .text(minLength: minLength, maxLength: maxLength, maxBytes: maxBytes, pattern: pattern)
        case .yesNo:
            schema = .yesNo
        }
        return Question(
            name: ask.question, state: state, prompt: rendered.stringValue ?? JSONWriter.compact(rendered), schema: schema,
            secret: ask.secret, timeoutSeconds: ask.timeoutSeconds)
    }
}
