import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowStore

/// `matterflow answer RUN --store URL [--answer NAME=VALUE]...`: shows the questions a fleet run waits for, or answers
/// them (and questions it has not asked yet) while it is queued or running.
struct AnswerCommand {
    static let spec = CommandSpec(
        name: "answer",
        abstract: "Show the questions a run in a PostgreSQL run store waits for, or answer them while it is queued or running.",
        arguments: [("<run>", "The run ID (as printed by submit and runs).", false)],
        options: [
            StoreOption.postgresOption,
            .init(
                name: "answer", valueName: "<name=value>", repeatable: true,
                help: "Answer the ask state (or question) NAME: a choice's value, label or number; text; yes or no."),
            .init(name: "secrets", valueName: "<dir>", help: "Where the run's secret answers wait for its worker (as given to submit)."),
            .init(name: "json", valueName: nil, help: "Without --answer: the questions waiting as a JSON array."),
        ],
        discussion: """
            Without --answer, prints the questions the run waits for now, as its records show them: name, prompt, what
            an answer must be, a choice's numbered choices.

            The answers are kept with the run and announced to the worker running it (PostgreSQL NOTIFY on the
            channel matterflow_answers), which hands each to the run: the question waiting now takes its answer at
            once; an answer to a question not asked yet waits until the run asks it, as one given to submit does. A
            worker that claims the run later, or takes it over, has the answers too. `watch` shows the run's
            questionAsked, answered and answerRejected records.

            The run's workflow file is read (at the path it was submitted with) to check the names, and the values
            of text and yes/no questions; an answer to a question the run waits for now is checked against it as
            asked (a choice's value, label or number among its choices). A secret question's answer is never stored: it is added to <dir>/<run>.answers, which the
            run's worker reads from its own --secrets directory.

            Exit status: 0 answered (the run's status, queued or running, on stdout) or questions shown, 2 no such
            run, the run has ended, the workflow cannot be read, an unknown question or an answer that does not fit,
            or the store cannot be reached, 64 usage error (also: a secret answer without --secrets, --json with
            --answer).
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() throws(UsageError) -> Int32 {
        let err = environment.standardError
        let location = try StoreOption.value(arguments, command: Self.spec.name)
        let runID = arguments.positionals[0]
        if arguments.flag("json") && !arguments.all("answer").isEmpty {
            throw UsageError(message: "--json lists the questions waiting; drop it to answer with --answer", command: Self.spec.name)
        }
        guard let store = try StoreOption.postgres(location, command: Self.spec.name, err: err) else { return ExitCode.invalidInput }
        let submission: (workflowFile: String, status: String)
        do {
            submission = try store.submission(of: runID)
        } catch {
            err.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
        let waiting: [WaitingQuestion]
        do {
            waiting = WaitingQuestion.waiting(in: try store.records(of: runID))
        } catch {
            err.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
        if arguments.all("answer").isEmpty {
            show(waiting, runID: runID, status: submission.status)
            return ExitCode.success
        }
        let workflow: Workflow
        do {
            workflow = try WorkflowEngine().load(path: submission.workflowFile)
        } catch {
            err.line("error: the workflow of run \(runID) (\(submission.workflowFile)) cannot be read here to check the answers:")
            MatterflowTool.report(error.diagnostics, to: err)
            return ExitCode.invalidInput
        }
        // A run that has ended gets no secrets file: its worker removed its files, and nothing would remove a new one.
        guard StoredRun.isOpen(submission.status) else {
            err.line("error[runEnded]: run \(runID) has ended (\(submission.status)) and takes no more answers")
            return ExitCode.invalidInput
        }
        let directory = arguments.value("secrets")
        // The run's secrets, as its secrets directory keeps them: not quoted back, and an answer holding one is kept
        // as a secret answer is. A file there that cannot be read stops the command: it would not know them.
        var kept: [JSONValue] = []
        if let inbox = directory.map(SecretInbox.init(directory:)) {
            do {
                for kind in [SecretInbox.Kind.inputs, .answers] {
                    if let values = try inbox.takeIfPresent(runID: runID, kind: kind) { kept.append(.object(values)) }
                }
            } catch {
                err.line("error[\(error.code.rawValue)]: \(error.message)")
                return ExitCode.invalidInput
            }
        }
        let secrets = SecretRedactor(kept)
        guard let answers = try RunQuestions.answers(arguments, workflow: workflow, command: Self.spec.name, err: err, secrets: secrets),
            Self.fitNow(answers, waiting: waiting, err: err, secrets: secrets)
        else { return ExitCode.invalidInput }
        let secretQuestions = workflow.secretQuestionNames
        let secretNames = secrets.keptNames(answers.keys.sorted(), of: { answers[$0] }, declared: secretQuestions)
        if directory == nil, let refused = SubmitCommand.secretsWithoutDirectory(inputs: [], answers: secretNames, command: Self.spec.name) {
            throw refused
        }
        guard secretNames.isEmpty || SecretsDirectoryOption.isValid(arguments, use: .writes, err: err) else { return ExitCode.invalidInput }
        let inbox = directory.map(SecretInbox.init(directory:))
        do {
            if let inbox, !secretNames.isEmpty {
                try inbox.add(SubmitCommand.picked(secretNames) { answers[$0] }, runID: runID, kind: .answers)
            }
            var status = submission.status
            for name in answers.keys.sorted() {
                guard let value = answers[name] else { continue }
                status = try store.answer(runID: runID, name: name, value: value, secret: secretNames.contains(name))
            }
            environment.standardOutput.line(status)
            return ExitCode.success
        } catch {
            // The run ended meanwhile: its worker may have removed its files already, so the secret just added goes.
            if error.code == .runEnded, !secretNames.isEmpty { inbox?.remove(runID: runID) }
            err.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
    }

    /// Prints the questions waiting: a line each (name, the level asking, prompt, what an answer must be), a choice's
    /// choices numbered below it; or, with `--json`, a JSON array of them.
    private func show(_ waiting: [WaitingQuestion], runID: String, status: String) {
        let out = environment.standardOutput
        if arguments.flag("json") {
            out.line(JSONWriter.compact(.array(waiting.map(\.jsonValue))))
            return
        }
        guard !waiting.isEmpty else {
            out.line("run \(runID) (\(status)) waits for no question now")
            return
        }
        out.line("run \(runID) (\(status)) waits for:")
        for asked in waiting {
            let question = asked.question
            let secret = question.secret ? ", secret" : ""
            out.line(TerminalText.escaping("  \(question.name) (\(asked.workflow)/\(question.state)\(secret)): \(question.prompt) [\(question.schema.expectation)]"))
            if case .choice(let choices) = question.schema {
                for (index, choice) in choices.enumerated() {
                    out.line(TerminalText.escaping("    \(index + 1). \(choice.label)"))
                }
            }
        }
    }

    /// Reports each answer that does not fit the question of its name the run waits for now, checked as the run
    /// checks it (a choice among the choices it resolved); false when one was reported.
    static func fitNow(_ answers: [String: JSONValue], waiting: [WaitingQuestion], err: any TextSink, secrets: SecretRedactor? = nil) -> Bool {
        RunQuestions.report(answers, err: err, fitting: "the question the run waits for", secrets: secrets) { name, value in
            Question.misfit(of: value, among: waiting.map(\.question).filter { $0.answers(to: name) })
        }
    }
}
