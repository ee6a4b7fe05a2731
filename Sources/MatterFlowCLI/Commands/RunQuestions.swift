import MatterFlow
import MatterFlowJSON
import Synchronization

/// How `matterflow run` (and `recover --resume`) answers a run's questions: answers given with `--answer`, then,
/// on a terminal, the person at it; without a terminal, a question nobody answered cancels the run at once (its
/// cancel path releases what it holds) and the command exits 2, naming the `--answer` to pass.
final class RunQuestions: Sendable {
    static let option = CommandSpec.Option(
        name: "answer", valueName: "<name=value>", repeatable: true,
        help: "Answer the ask state (or question) NAME in advance: a choice's value, label or number; text; yes or no.")

    private struct State {
        /// Names of answers given with `--answer` and not used yet.
        var unused: Set<String>
        /// The question asked last.
        var asked: Question?
        /// Why the run was cancelled for want of an answer.
        var missing: MissingAnswer?
    }

    /// The answers given with `--answer`, by name, as the run takes them.
    let answers: [String: JSONValue]
    private let terminal: (any PromptTerminal)?
    private let err: any TextSink
    private let cancellation: RunCancellation
    private let state: Mutex<State>
    private let questions: AsyncStream<Question>
    private let queue: AsyncStream<Question>.Continuation

    /// The answers of the command's `--answer NAME=VALUE` pairs; nil once a name no ask state of the workflow has,
    /// or an answer that cannot fit its question whatever the run does (``fitAhead(_:workflow:err:)``),
    /// is reported to `err` (the command exits 2): before the run acts on a hub. A name given twice is a usage error.
    /// `secrets`: the run's secrets, taken out of what is reported (an answer that quotes the passcode).
    static func answers(
        _ arguments: ParsedArguments, workflow: Workflow, command: String, err: any TextSink, secrets: SecretRedactor? = nil
    ) throws(UsageError) -> [String: JSONValue]? {
        switch try parseAnswers(arguments.all("answer"), workflow: workflow, command: command) {
        case .success(let given): return fitAhead(given, workflow: workflow, err: err, secrets: secrets) ? given : nil
        case .failure(let error):
            MatterflowTool.report(error.diagnostics, to: err)
            return nil
        }
    }

    /// Reads `--answer NAME=VALUE` pairs; names no ask state of the workflow has are refused (exit 2), and a name
    /// given twice is a usage error.
    static func parseAnswers(
        _ pairs: [String], workflow: Workflow, command: String
    ) throws(UsageError) -> Result<[String: JSONValue], DiagnosticsError> {
        var answers: [String: JSONValue] = [:]
        let known = workflow.questionNames
        for pair in try NameValuePair.split(pairs, option: "answer", command: command) {
            let name = pair.name
            guard known.contains(name) else {
                let listed = known.isEmpty ? "the workflow asks no questions" : "its questions: \(known.sorted().joined(separator: ", "))"
                return .failure(DiagnosticsError([Diagnostic(
                    severity: .error, code: "unknownQuestion",
                    message: "no ask state of \(workflow.name) is called \"\(name)\" (\(listed))\(SpellingSuggestion.hint(for: name, among: Array(known)))",
                    file: "--answer")]))
            }
            answers[name] = .string(pair.value)
        }
        return .success(answers)
    }

    /// Reports each answer that cannot fit its question, as far as the workflow tells before the question is asked
    /// (``Workflow/answerMisfit(_:to:)``); false when one was reported.
    static func fitAhead(_ answers: [String: JSONValue], workflow: Workflow, err: any TextSink, secrets: SecretRedactor? = nil) -> Bool {
        report(answers, err: err, fitting: "its question", secrets: secrets) { name, value in workflow.answerMisfit(value, to: name) }
    }

    /// Reports an `invalidAnswer` for each answer `misfit` gives a reason for (`--answer NAME does not fit <what>:`),
    /// without `secrets`; false when one was reported.
    static func report(
        _ answers: [String: JSONValue], err: any TextSink, fitting what: String, secrets: SecretRedactor? = nil,
        misfit: (String, JSONValue) -> AnswerError?
    ) -> Bool {
        let diagnostics = answers.keys.sorted().compactMap { name -> Diagnostic? in
            guard let value = answers[name], let reason = misfit(name, value) else { return nil }
            let message = "--answer \(name) does not fit \(what): \(reason.message)"
            return Diagnostic(
                severity: .error, code: "invalidAnswer", message: secrets.map { $0.redacting(message) } ?? message, file: "--answer")
        }
        MatterflowTool.report(diagnostics, to: err)
        return diagnostics.isEmpty
    }

    init(answers: [String: JSONValue], terminal: (any PromptTerminal)?, err: any TextSink, cancellation: RunCancellation) {
        self.answers = answers
        self.terminal = terminal
        self.err = err
        self.cancellation = cancellation
        state = Mutex(State(unused: Set(answers.keys)))
        (questions, queue) = AsyncStream<Question>.makeStream(bufferingPolicy: .unbounded)
    }

    /// Whether a person is asked (a terminal is there).
    var isInteractive: Bool { terminal != nil }

    /// Why the run was cancelled for want of a fitting answer: `missingAnswer` when none was given, `invalidAnswer`
    /// when the one given with `--answer` does not fit.
    struct MissingAnswer: Sendable {
        /// `missingAnswer` or `invalidAnswer`.
        var code: String
        /// What the question was, what went wrong, and what to pass.
        var message: String
    }

    /// Why the run was cancelled for want of a fitting answer; nil when it was not.
    var missingAnswer: MissingAnswer? { state.withLock { $0.missing } }

    /// Follows the run's events (called from its observer): a question answered in advance is left to the run; any
    /// other goes to the person, or, without one, cancels the run.
    func observe(_ event: RunEvent) {
        switch event.kind {
        case .questionAsked(_, let question):
            let answered = state.withLock { state -> Bool in
                state.asked = question
                return state.unused.remove(question.name) != nil || state.unused.remove(question.state) != nil
            }
            if !answered { needAnswer(question, refused: nil) }
        case .answerRejected(_, _, let reason):
            guard let question = state.withLock({ $0.asked }) else { return }
            needAnswer(question, refused: reason)
        default:
            break
        }
    }

    private func needAnswer(_ question: Question, refused reason: String?) {
        if isInteractive {
            if let reason { err.line(TerminalText.escaping("✗ --answer \(question.name): \(reason)")) }
            queue.yield(question)
            return
        }
        let why =
            reason.map { "the answer given with --answer \(question.name) does not fit: \($0)" }
            ?? "no --answer gives its answer"
        let message =
            "state \(question.state) asks \"\(question.prompt)\" and \(why); pass --answer \(question.name)=VALUE "
            + "(\(question.schema.expectation)), or run on a terminal to be asked"
        state.withLock { $0.missing = MissingAnswer(code: reason == nil ? "missingAnswer" : "invalidAnswer", message: message) }
        cancellation.cancel(
            reason: reason.map { "the answer to question \(question.name) does not fit: \($0)" } ?? "no answer to question \(question.name)")
    }

    /// Asks the person each question the run waits on, until ``finish()``.
    func serve(_ handle: RunHandle) async {
        for await question in questions {
            await ask(question, handle)
        }
    }

    /// Ends ``serve(_:)`` (the run has ended).
    func finish() {
        queue.finish()
    }

    /// Shows a question and reads answers until one fits; end of input cancels the run.
    private func ask(_ question: Question, _ handle: RunHandle) async {
        guard let terminal else { return }
        err.line(TerminalText.escaping("? \(question.prompt)"))
        if case .choice(let choices) = question.schema {
            // Choices that are numbers themselves are not numbered: a number typed is one of them.
            for (index, choice) in choices.enumerated() {
                err.line(TerminalText.escaping(question.schema.takesPositions ? "  \(index + 1)) \(choice.label)" : "  - \(choice.label)"))
            }
        }
        while true {
            err.write((question.secret && terminal.hidesSecretInput ? "(typing is hidden) " : "") + TerminalText.escaping(Self.hint(question.schema)) + " ")
            guard let line = await (question.secret ? terminal.readSecretLine() : terminal.readLine()) else {
                err.line("")
                err.line("end of input: cancelling the run")
                handle.cancel(reason: "end of input while asking question \(question.name)")
                return
            }
            do throws(AnswerError) {
                try handle.answer(.string(line), to: question.name)
                return
            } catch {
                switch error.code {
                case .invalidAnswer:
                    err.line(TerminalText.escaping("✗ \(error.message); try again"))
                case .noPendingQuestion:
                    err.line(TerminalText.escaping("✗ \(error.message)"))
                    return
                }
            }
        }
    }

    private static func hint(_ schema: QuestionSchema) -> String {
        switch schema {
        case .choice(let choices): schema.takesPositions ? "[1-\(choices.count)]>" : ">"
        case .text: ">"
        case .yesNo: "[yes/no]>"
        }
    }
}
