import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
import MatterFlowStore

/// `matterflow submit WORKFLOW --store URL [--input ...]`: queues a run for the fleet's workers and prints its ID.
struct SubmitCommand {
    static let spec = CommandSpec(
        name: "submit",
        abstract: "Queue a run in a PostgreSQL run store for the workers; print its run ID.",
        arguments: [("<workflow>", "The workflow file to run (workers load it from this absolute path).", false)],
        options: [
            StoreOption.postgresOption,
            .init(name: "input", valueName: "<name=value>", repeatable: true, help: "An input value, typed by the workflow's declaration."),
            .init(name: "inputs", valueName: "<file>", help: "A JSON object of inputs; - reads it from standard input (--input overrides it)."),
            .init(name: "structure", valueName: "<id>", help: "The structure to commission into (default: the built-in home's)."),
            .init(name: "secrets", valueName: "<dir>", help: "Where the run's secret inputs and secret answers wait for its worker (the store never keeps them)."),
            .init(name: "run-id", valueName: "<id>", help: "The run's ID: no '/', no control characters, not first '.' (default: run- and 12 random hex digits). Sending the same submission again queues nothing more."),
            RunQuestions.option,
        ],
        discussion: """
            The workflow and inputs are checked first, as `run` checks them. Secret inputs (the onboarding payload)
            are never stored: they are written to <dir>/<run>.secrets (mode 0600) for the worker, which reads them
            from its own --secrets directory and removes the file when the run ends. See docs/store.md.

            --answer NAME=VALUE answers a question in advance (a secret question's answer goes to <dir>/<run>.answers,
            as secret inputs do); text and yes/no answers are checked now. A question left without one waits for an
            answer given with `matterflow answer RUN` until its timeout, then takes its onTimeout path; submit
            names those questions.

            With --run-id, the same submission sent again (same workflow file, structure, inputs and answers) prints
            the ID, says on stderr that nothing was queued again, and queues nothing more (secrets files written for a
            run that has ended are removed again); another run's ID is refused (runExists), and its secrets are never
            overwritten.

            Exit status: 0 (the run ID on stdout), 1 the same submission was made before and its run ended failed,
            cancelled or needsAttention (the ID on stdout all the same), 2 invalid workflow, inputs or answer names,
            another run's ID, or the store cannot be reached, 64 usage error (also: secret inputs or secret answers
            without --secrets).
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() throws(UsageError) -> Int32 {
        let err = environment.standardError
        let location = try StoreOption.value(arguments, command: Self.spec.name)
        let pairs = try NameValuePair.inputs(arguments, command: Self.spec.name)
        let structure = try arguments.nonEmptyValue("structure", command: Self.spec.name) ?? HomeDescription.defaultHome.structure.id
        let runID = arguments.value("run-id") ?? "run-" + SystemRandomSource().hexDigits(12)
        if let problem = RunIDRule.problem(with: runID) { throw UsageError(message: "--run-id: \(problem)", command: Self.spec.name) }
        let engine = WorkflowEngine()
        let workflow: Workflow
        let inputs: JSONObject
        do {
            workflow = try engine.load(path: AbsolutePath.of(arguments.positionals[0]))
            inputs = try RunInputParser(workflow: workflow, standardInputPath: environment.standardInputPath).parse(file: arguments.value("inputs"), pairs: pairs)
            _ = try workflow.resolveInputs(inputs)
        } catch {
            MatterflowTool.report(error.diagnostics, to: err)
            return ExitCode.invalidInput
        }
        guard let answers = try RunQuestions.answers(
            arguments, workflow: workflow, command: Self.spec.name, err: err, secrets: workflow.secretRedactor(inputs: inputs))
        else { return ExitCode.invalidInput }
        let unanswered = workflow.askStates(unansweredBy: Set(answers.keys))
        if !unanswered.isEmpty {
            err.line(
                "warning: \(workflow.name) asks questions no --answer answers (\(unanswered.joined(separator: ", "))); each waits "
                    + "for `matterflow answer RUN --answer NAME=VALUE` until its timeout, then the run takes that state's onTimeout path")
        }
        // A value holding a secret's (a device name holding the passcode) is kept as the secret is.
        let (secretNames, secretAnswerNames) = workflow.secretNames(inputs: inputs, answers: answers)
        if arguments.value("secrets") == nil,
            let refused = Self.secretsWithoutDirectory(inputs: secretNames, answers: secretAnswerNames, command: Self.spec.name)
        {
            throw refused
        }
        if !secretNames.isEmpty || !secretAnswerNames.isEmpty, !SecretsDirectoryOption.isValid(arguments, use: .writes, err: err) {
            return ExitCode.invalidInput
        }
        guard let store = try StoreOption.postgres(location, command: Self.spec.name, err: err) else { return ExitCode.invalidInput }
        // The secrets are written first, so the worker that claims the run finds them; a file of another run given
        // the same --run-id is never overwritten.
        let inbox = arguments.value("secrets").map(SecretInbox.init(directory:))
        // The secret values are part of the submission, as a digest with the fleet's key: a submission sent again
        // with another device's payload is another submission.
        let secretInputs = Self.picked(secretNames) { inputs[$0] }
        let secretAnswers = Self.picked(secretAnswerNames) { answers[$0] }
        var secretsDigest: String?
        if let inbox, !secretNames.isEmpty || !secretAnswerNames.isEmpty {
            if let exposure = inbox.exposure { err.line("warning: \(exposure)") }
            do throws(JournalError) {
                secretsDigest = try SecretDigestKey.loadOrCreate(inDirectory: inbox.directory).digest(of: ["inputs": .object(secretInputs), "answers": .object(secretAnswers)])
            } catch {
                err.line("error[\(error.code.rawValue)]: \(error.message)")
                return ExitCode.invalidInput
            }
        }
        var written: [SecretInbox.Kind] = []
        do {
            if let inbox {
                if !secretNames.isEmpty, try inbox.create(secretInputs, runID: runID) { written.append(.inputs) }
                if !secretAnswerNames.isEmpty, try inbox.create(secretAnswers, runID: runID, kind: .answers) {
                    written.append(.answers)
                }
            }
            let submitted = try store.submit(
                workflow, inputs: inputs, structureID: structure, runID: runID, answers: answers, secretsDigest: secretsDigest)
            if !submitted.queuedNow {
                err.line("note: run \(runID) was submitted before (\(submitted.status)); nothing was queued again")
                // Its worker removed its files when it ended: the ones written now would stay for ever.
                if !StoredRun.isOpen(submitted.status) { inbox?.discard(runID: runID, kinds: written) }
            }
            environment.standardOutput.line(submitted.runID)
            // A script that names runs by a key of its own (a device's serial) learns that this one will not be done
            // unless it tries again under a new ID.
            if !submitted.queuedNow, !StoredRun.isOpen(submitted.status), submitted.status != "succeeded" {
                err.line(
                    "error[runEnded]: run \(runID) ended \(submitted.status) (`matterflow history \(runID) --store URL` says why); "
                        + "to try again, submit with another --run-id")
                return ExitCode.failure
            }
            return ExitCode.success
        } catch {
            err.line("error[\(error.code.rawValue)]: \(error.message)")
            if let inbox, !written.isEmpty {
                if error.isOutOfReach {
                    // The run may have been queued before the store went away: its worker needs the files.
                    err.line(
                        "note: run \(runID) may have been queued; `matterflow runs --store URL` shows it. Its secrets stay in "
                            + "\(inbox.directory): submit again with --run-id \(runID) once the store is back (nothing is queued twice), or remove them")
                } else {
                    inbox.discard(runID: runID, kinds: written)
                }
            }
            return ExitCode.invalidInput
        }
    }

    /// The named values, in the names' order.
    static func picked(_ names: [String], _ value: (String) -> JSONValue?) -> JSONObject {
        JSONObject(names.compactMap { name in value(name).map { JSONObject.Member(key: name, value: $0) } })
    }

    /// The usage error for secret inputs or answers given without `--secrets` (`submit`, `answer`); nil when none is
    /// secret.
    static func secretsWithoutDirectory(inputs: [String], answers: [String], command: String) -> UsageError? {
        guard let what = secretsNamed(inputs: inputs, answers: answers) else { return nil }
        return UsageError(
            message: "\(what) secret and the store never keeps them; pass --secrets DIR (a directory the workers read with "
                + "their own --secrets)",
            command: command)
    }

    /// What is secret among the inputs and answers given (`the inputs a, b are`, `the answer to pin is`), nil when
    /// nothing is.
    private static func secretsNamed(inputs: [String], answers: [String]) -> String? {
        var parts: [String] = []
        if !inputs.isEmpty { parts.append("the input\(inputs.count == 1 ? "" : "s") \(inputs.joined(separator: ", "))") }
        if !answers.isEmpty { parts.append("the answer\(answers.count == 1 ? "" : "s") to \(answers.joined(separator: ", "))") }
        guard !parts.isEmpty else { return nil }
        return parts.joined(separator: " and ") + (inputs.count + answers.count == 1 ? " is" : " are")
    }
}
