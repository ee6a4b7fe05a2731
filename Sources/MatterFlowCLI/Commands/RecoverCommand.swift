import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator

/// `matterflow recover --journal DIR`: settles every interrupted run of a journal directory against the simulated
/// home, and prints what it did.
struct RecoverCommand {
    static let spec = CommandSpec(
        name: "recover",
        abstract: "Recover interrupted runs: reconcile in-doubt calls, release what they hold.",
        arguments: [],
        options: [
            .init(name: "journal", valueName: "<dir>", required: true, help: "The journal directory of the runs."),
            .init(name: "state", valueName: "<dir>", help: "The simulated home's state directory the runs used."),
            .init(name: "home", valueName: "<file>", help: "Home description (when there is no saved state)."),
            .init(name: "resume", valueName: nil, help: "Continue runs from where they stopped, where that is safe."),
            .init(
                name: "input", valueName: "<name=value>", repeatable: true,
                help: "A secret input of the runs again (the journal never keeps them), to resume runs that need it."),
            .init(
                name: "answer", valueName: "<name=value>", repeatable: true,
                help: "Answer a resumed run's question NAME (asked again when the run stopped while it waited), or give a secret answer again."),
            .init(name: "clock", valueName: "<kind>", help: "virtual (default) or real: the simulated home's time."),
            .init(
                name: "show-secrets", valueName: nil,
                help: "Show what resumed runs show (an assign state's show) with its secrets even when standard error is no terminal."),
            HubOption.option,
            CatalogOption.option,
        ],
        discussion: """
            For each run whose process died (no terminal record, journal not locked by a live process): a torn
            last record is cut off; each call whose intent was recorded without an outcome is reconciled by reading
            the hub (never retried); then the run's workflow is restored from its last checkpoint and takes its own
            cancel path (its onCancel states), releasing what it holds; a session or ePSKc key it still left
            active is released by recovery itself. With --resume the run continues from where it stopped instead,
            where that is safe: the journal knows every value the rest of the run needs (pass secret inputs again
            with --input) and every in-doubt call was settled; a run whose secret input is not given again is left
            where it stopped (needs attention: recover again with it, or without --resume to take its cancel path).
            Everything is journaled. Runs that had ended are
            left untouched, so recovering twice changes nothing. Progress goes to stderr; a JSON report to stdout.

            A resumed run that stopped while an ask state waited for its answer asks again: give the answer with
            --answer NAME=VALUE (recovery asks nobody; a question with no fitting answer takes the run's cancel
            path). Questions answered before the run stopped are not asked again; a secret answer the run still
            holds must be given again with --answer, and is checked against the digest the journal keeps. What a
            resumed run shows (an assign state's show) is printed as `run RUN shown: VALUE`, with its secrets only
            when stderr is a terminal or --show-secrets asks (the journal never keeps them either way).

            With --hub, the runs are settled on a hub in another process (docs/hub-protocol.md) instead of the
            simulated home; in-doubt calls are reconciled through its activeSession method, and a hub without it
            leaves such a session to its lease. --home and --state do not apply then.

            Exit status: 0 when every run is settled, 1 when some need attention (recover again later), 2 invalid
            home, or a journal directory that does not exist or cannot be read (nothing is created), 64 usage
            error (--input or --answer without --resume among them). SIGINT, SIGTERM or SIGHUP (or SIGUSR1, SIGUSR2, SIGALRM, SIGPWR) make the runs being resumed take
            their cancel path; the command then exits 128 + the signal (130, 143, 129, ...).
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() async throws(UsageError) -> Int32 {
        let err = environment.standardError
        guard let directory = arguments.value("journal") else {
            throw UsageError(message: "Missing expected option '--journal <dir>'", command: Self.spec.name)
        }
        let endpoint = try HubOption.endpoint(arguments, command: Self.spec.name)
        let clock = try environment.clock(
            named: arguments.value("clock") ?? (endpoint == nil ? nil : "real"), command: Self.spec.name)
        if !arguments.flag("resume"), let option = ["input", "answer"].first(where: { arguments.value($0) != nil }) {
            throw UsageError(
                message: "--\(option) applies to runs recover resumes: add --resume (a run taking its cancel path needs no input or answer)",
                command: Self.spec.name)
        }
        let inputPairs = try NameValuePair.inputs(arguments, command: Self.spec.name)
        let answerPairs = try NameValuePair.answers(arguments, command: Self.spec.name)
        let crash = try CrashHook.fromEnvironment(command: Self.spec.name)
        if let warning = crash?.warning { err.line(warning) }
        guard let catalog = CatalogOption.catalog(arguments, err: err) else { return ExitCode.invalidInput }
        // The journal directory first: a mistyped one stops the command before anything (a state directory) is created.
        let journal: RunJournal
        do {
            journal = try RunJournal(existingDirectory: directory)
            _ = try journal.journalPaths()
        } catch {
            err.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
        if let exposure = SecretDigestKey.exposure(inDirectory: directory) { err.line("warning: \(exposure)") }
        var inputs = JSONObject()
        for pair in inputPairs { inputs[pair.name] = .string(pair.value) }
        var answers: [String: JSONValue] = [:]
        for pair in answerPairs { answers[pair.name] = .string(pair.value) }
        // A signal stops the hub's handshake, or makes the runs being resumed take their cancel path; the command then
        // exits 128 + the signal.
        let signals = environment.handlesInterrupts ? InterruptSignals() : nil
        // A command hub's standard error reaches ours without the secrets of the runs recovery continues, and without
        // the values after secret members' names.
        let hubSecrets = arguments.flag("show-secrets") ? nil : SharedSecrets(secretNames: catalog.secretNames)
        guard
            let opened = await CommandHub.open(
                endpoint, arguments: arguments, clock: clock, err: err, seedsState: false, signals: signals, secrets: hubSecrets)
        else {
            signals?.stop()
            return signals?.exitCode ?? ExitCode.invalidInput
        }
        let interrupt = RecoveryInterrupt()
        signals?.hears { interrupt.interrupt(reason: "recovery interrupted: " + InterruptSignals.reason($0)) }
        var options = RecoveryOptions(
            resume: arguments.flag("resume"), inputs: inputs, engine: WorkflowEngine(catalog: catalog), clock: clock,
            testHook: crash?.hook, interrupt: interrupt)
        options.answers = answers
        options.sharedSecrets = hubSecrets
        options.keepsRunsItCannotResume = true
        // What a resumed run shows goes to the person as `run` prints it: its secrets only to a terminal, or when
        // --show-secrets asks.
        let revealing = arguments.flag("show-secrets") || environment.standardErrorIsTerminal
        let shownNote = RunCommand.OnceFlag()
        options.observer = { event in
            for line in RunCommand.shownLines(event, trace: .none, revealing: revealing, noted: shownNote, naming: true) ?? [] {
                err.line(line)
            }
        }
        // The simulated home this recovery acts on: a run journaled against another is left for the right one.
        options.homeDirectory = endpoint == nil ? arguments.value("state") : nil
        options.remoteHub = opened.identity(arguments)
        let report = await journal.recover(on: opened.hub, options: options)
        signals?.stop()
        await opened.close()
        if let problem = report.problem { err.line("error: \(problem)") }
        // Runs with nothing to do are listed one by one only when few: a directory of thousands of ended runs
        // drowned the few recovery acted on.
        let isIdle = { (run: RunRecovery) in run.action == .alreadyFinished || run.action == .notStarted }
        let idle = report.runs.count(where: isIdle)
        for run in report.runs where idle <= Self.idleRunsListed || !isIdle(run) {
            err.line(environment.glyphs(TerminalText.escaping(Self.line(run))))
        }
        if idle > Self.idleRunsListed {
            err.line(
                "\(idle) runs had ended already or never started: nothing to do (the JSON report lists them; "
                    + "`matterflow runs --journal \(ShellWord.quoted(directory))` shows them)")
        }
        environment.standardOutput.line(JSONWriter.pretty(report.jsonValue))
        if let interrupted = signals?.exitCode { return interrupted }
        return report.needsAttention ? ExitCode.failure : ExitCode.success
    }

    /// How many runs with nothing to do are listed one by one; more are counted in one line.
    static let idleRunsListed = 5

    /// One line per run for people.
    static func line(_ run: RunRecovery) -> String {
        var text = "\(run.runID): "
        switch run.action {
        case .recovered:
            text += "recovered → \(run.status.rawValue)"
            if let state = run.interruptedIn { text += " (interrupted in \(state))" }
            for resolution in run.resolutions {
                text += "; \(resolution.operation) was in doubt: \(resolution.verdict.rawValue) (\(resolution.evidence))"
            }
            if run.resumed { text += "; resumed" }
            if run.releasedSession { text += "; released its session" }
            for router in run.withdrewEpskc { text += "; withdrew the ePSKc key of \(router)" }
        case .alreadyFinished: text += "already \(run.status.rawValue); nothing to do"
        case .running: text += "still running in another process; left alone"
        case .continuing: text += "continuing in a pool of this process"
        case .notStarted: text += "never started (no complete record); nothing to do"
        case .deferred: text += "needs attention"
        case .unreadable: text += "unreadable"
        }
        for note in run.notes { text += "; \(note)" }
        return text
    }
}
