import Dispatch
import Foundation
import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
import Synchronization

/// `matterflow run WORKFLOW`: runs a workflow on the simulated home or on a hub behind the hub protocol (`--hub`),
/// with progress on standard error and the result as one JSON object on standard output.
struct RunCommand {
    static let spec = CommandSpec(
        name: "run",
        abstract: "Run a workflow against the simulated home, or a real hub with --hub.",
        arguments: [("<workflow>", "The workflow file to run.", false)],
        options: [
            .init(name: "home", valueName: "<file>", help: "Home description to simulate (default: the built-in home)."),
            .init(name: "state", valueName: "<dir>", help: "Keep the simulated home in this directory between runs."),
            .init(name: "input", valueName: "<name=value>", repeatable: true, help: "An input value, typed by the workflow's declaration."),
            .init(name: "inputs", valueName: "<file>", help: "A JSON object of inputs; - reads it from standard input (--input overrides it)."),
            .init(name: "trace", valueName: "<format>", help: "Progress on stderr: text (default), jsonl or none."),
            .init(name: "show-secrets", valueName: nil, help: "Show secret inputs and arguments in progress and traces, and keep them in the run's journal file (--journal) for whoever reads it."),
            .init(name: "clock", valueName: "<kind>", help: "virtual (default: simulated time passes at once) or real."),
            .init(name: "journal", valueName: "<dir>", help: "Write-ahead journal directory: the run is recorded in <dir>/<run>.journal."),
            .init(name: "strict", valueName: nil, help: "Exit 1 when the run succeeded with warnings (a device commissioned but left unnamed), for scripts."),
            RunQuestions.option,
            CommissionerOption.option,
            HubOption.option,
            HubOption.structureOption,
            CatalogOption.option,
        ],
        discussion: """
            With --hub, the workflow runs against a hub in another process, spoken to with the hub protocol
            (docs/hub-protocol.md): a command MatterFlow starts ("COMMAND ARGS...", over its stdin and stdout),
            unix:PATH or tcp:HOST:PORT. --home, --state and --commissioner configure the simulated home and do not
            apply; time is real unless --clock virtual is given. A hub that cannot be started or reached, or fails
            the handshake, exits 2.

            The simulated home runs on virtual time by default: its latencies, retry delays, timeouts and
            ePSKc lifetimes pass at once, in order. --clock real makes them take real time.

            With --state, the home is loaded from <dir>/home.json when it exists (--home only seeds an empty
            directory) and saved after every change, so consecutive runs see each other's effects.

            A workflow with ask states asks its questions: on a terminal (standard input and standard error),
            interactively, with numbered choices; a wrong answer is refused with the reason and asked again, and end
            of input (Ctrl-D) cancels the run. --answer NAME=VALUE answers the ask state or question NAME in
            advance, for scripts. Without a terminal, a question no --answer answers (or answers wrongly) cancels
            the run at once, through its cancel path, and the command exits 2 naming the --answer to pass. An
            --answer no ask state of the workflow has exits 2 before the run.

            With --journal, every event and an intent and an outcome record around every hub call are written
            (and flushed) to <dir>/<run>.journal; after a crash, `matterflow recover --journal <dir>` settles the
            run. See docs/journal.md.

            Exit status: 0 succeeded, 1 failed or cancelled (or, with --strict, succeeded with warnings), 2 invalid
            workflow, inputs or home, 64 usage error,
            130 (SIGINT), 143 (SIGTERM), 129 (SIGHUP) or 128 + another signal that would end the process (SIGUSR1,
            SIGUSR2, SIGALRM, SIGPWR) interrupted, after the cancel path has run. A run this
            command cancelled (a signal, a question it could ask nobody: exit 2) says why in the result's
            "cancelledBecause": {"code": "signal", "signal": "SIGINT"} or {"code": "missingAnswer" or "invalidAnswer", "message": ...}.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    enum Trace: String {
        case text, jsonl, none
    }

    func execute() async throws(UsageError) -> Int32 {
        let err = environment.standardError
        let traceName = arguments.value("trace") ?? "text"
        guard let trace = Trace(rawValue: traceName) else {
            throw UsageError(message: "--trace must be text, jsonl or none, not '\(traceName)'", command: Self.spec.name)
        }
        let endpoint = try HubOption.endpoint(arguments, command: Self.spec.name)
        let clock = try environment.clock(
            named: arguments.value("clock") ?? (endpoint == nil ? nil : "real"), command: Self.spec.name)
        let commissioner = try CommissionerOption.parse(arguments.all("commissioner"), command: Self.spec.name)
        let pairs = try NameValuePair.inputs(arguments, command: Self.spec.name)
        let crash = try CrashHook.fromEnvironment(command: Self.spec.name)
        if let warning = crash?.warning { err.line(warning) }
        guard let catalog = CatalogOption.catalog(arguments, err: err) else { return ExitCode.invalidInput }
        let engine = WorkflowEngine(catalog: catalog)
        let path = arguments.positionals[0]
        let workflow: Workflow
        let inputs: JSONObject
        do {
            workflow = try engine.load(path: path)
            inputs = try RunInputParser(workflow: workflow, standardInputPath: environment.standardInputPath).parse(file: arguments.value("inputs"), pairs: pairs)
        } catch {
            MatterflowTool.report(error.diagnostics, to: err)
            return ExitCode.invalidInput
        }
        let shownSecrets = arguments.flag("show-secrets") ? nil : workflow.secretRedactor(inputs: inputs)
        guard let answers = try RunQuestions.answers(arguments, workflow: workflow, command: Self.spec.name, err: err, secrets: shownSecrets) else {
            return ExitCode.invalidInput
        }
        // SIGINT, SIGTERM and SIGHUP are routed from before the hub starts, so a signal at any moment stops the hub's
        // handshake, or takes the run's cancel path.
        let signals = environment.handlesInterrupts ? InterruptSignals() : nil
        // What a command hub writes on its standard error reaches ours without the run's secrets (a hub that echoes
        // its requests while being debugged), unless --show-secrets asks for them.
        let hubSecrets = arguments.flag("show-secrets") ? nil : SharedSecrets(recentRuns: 1, secretNames: engine.catalog.secretNames)
        guard
            let opened = await CommandHub.open(
                endpoint, arguments: arguments, clock: clock, err: err, seedsState: true, signals: signals, secrets: hubSecrets)
        else {
            signals?.stop()
            return signals?.exitCode ?? ExitCode.invalidInput
        }
        guard let structureID = opened.structure(arguments, err: err) else {
            signals?.stop()
            await opened.close()
            return ExitCode.invalidInput
        }
        let hub = opened.hub
        if let commissioner, let simulated = opened.simulated?.hub {
            await simulated.setCommissionerScript(commissioner, structure: structureID)
            if await !simulated.offersEpskc(structure: structureID) {
                err.line("warning: --commissioner has no effect: the home has no border router offering ePSKc (see thread.borderRouters in docs/home-format.md)")
            }
        }

        let showSecrets = arguments.flag("show-secrets")
        let ascii = environment.asciiGlyphs
        let shownNote = OnceFlag()
        let cancellation = RunCancellation()
        let questions = RunQuestions(answers: answers, terminal: environment.terminal, err: err, cancellation: cancellation)
        var options = RunOptions(
            structureID: structureID, clock: clock, showSecrets: showSecrets,
            observer: { event in
                questions.observe(event)
                // What the workflow shows the person goes to them whatever the trace; its secrets only to a terminal,
                // or when --show-secrets asks (a log or a trace file keeps none).
                if let lines = Self.shownLines(event, trace: trace, revealing: showSecrets || (environment.standardErrorIsTerminal && trace != .jsonl), noted: shownNote) {
                    for line in lines { err.line(line) }
                    return
                }
                switch trace {
                case .text:
                    guard event.isShownInTextTrace else { break }
                    err.line(TerminalText.escaping(ascii ? TerminalGlyphs.ascii(event.text) : event.text))
                case .jsonl: err.line(JSONWriter.compact(event.jsonValue))
                case .none: break
                }
            })
        options.cancellation = cancellation
        options.answers = answers
        options.sharedSecrets = hubSecrets
        // The trace and the questions hear the run through the observer; the handle's stream is not read.
        options.eventBufferLimit = 0
        // A person answers in real seconds; virtual time stands still while they do.
        if questions.isInteractive, clock is VirtualClock { options.questionClock = SystemClock() }
        let handle: RunHandle
        do {
            if let directory = arguments.value("journal") {
                var journal = try RunJournal(directory: directory)
                // Recovery settles the run only against the simulated home it acts on.
                journal.homeDirectory = endpoint == nil ? arguments.value("state") : nil
                journal.remoteHub = opened.identity(arguments)
                handle = try journal.start(
                    workflow, inputs: inputs, on: hub, options: options, engine: engine, testHook: crash?.hook)
                if let exposure = SecretDigestKey.exposure(inDirectory: directory) { err.line("warning: \(exposure)") }
                if showSecrets {
                    err.line("note: --show-secrets keeps this run's secrets in clear in its journal file in \(directory) until that file is removed (`matterflow store prune --store \(ShellWord.quoted(directory)) ...` once the run has ended)")
                }
            } else {
                handle = try engine.start(workflow, inputs: inputs, on: hub, options: options)
            }
        } catch let error as JournalError {
            signals?.stop()
            await opened.close()
            err.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        } catch {
            signals?.stop()
            await opened.close()
            MatterflowTool.report((error as? DiagnosticsError)?.diagnostics ?? [], to: err)
            return ExitCode.invalidInput
        }
        signals?.cancels(handle)
        // A person who presses Ctrl-C again hears that the first one is being acted on, and what stopping harder costs.
        let journalDirectory = arguments.value("journal")
        signals?.hearsAgain { signo in
            let recover = journalDirectory.map { "`matterflow recover --journal \(ShellWord.quoted($0))`" } ?? "`matterflow run Workflows/cancel.json` (or wait for its lease)"
            err.line(
                "\(Self.signalName(signo)) received again: already cancelling; the run ends once its cancel path has released what it "
                    + "holds (SIGKILL stops it at once and leaves that to \(recover))")
        }
        // Not awaited at the end: a prompt still waiting for a line when the run ends (a timeout) is abandoned.
        Task { await questions.serve(handle) }
        let result = await handle.result
        questions.finish()
        // A run ended (a signal) while a secret answer was being typed: echo comes back.
        environment.terminal?.restore()
        signals?.stop()
        await opened.close()
        environment.standardOutput.line(JSONWriter.pretty(Self.reported(result, missingAnswer: questions.missingAnswer, signal: signals?.receivedSignal)))
        if let directory = arguments.value("journal"), let journal = try? RunJournal(existingDirectory: directory) {
            if let warning = journal.unrecordedEnd(of: result.runID, outcome: result.outcome) { err.line("warning: \(warning)") }
            if result.error?.cause == .sessionBusy,
                let note = Self.interruptedHolders(
                    in: journal, structure: structureID, besides: result.runID, heldBy: result.error?.sessionHolder?.owner,
                    on: Self.hubOrState(arguments, endpoint: endpoint))
            {
                err.line(TerminalText.escaping("note: \(note)"))
            }
        }
        if let interrupted = signals?.exitCode { return interrupted }
        if let missing = questions.missingAnswer {
            err.line(TerminalText.escaping("error[\(missing.code)]: \(missing.message)"))
            return ExitCode.invalidInput
        }
        guard result.outcome == .succeeded else { return ExitCode.failure }
        if arguments.flag("strict"), !result.warnings.isEmpty {
            let count = result.warnings.count
            err.line("error: the run succeeded with \(count) warning\(count == 1 ? "" : "s") (its result's \"warnings\"), which --strict makes a failure")
            return ExitCode.failure
        }
        return ExitCode.success
    }

    /// The lines a `shown` event is printed as, for the person running the workflow (nil for other events): with
    /// `revealing`, its value itself (`shown: VALUE`, a string as it is, anything else as compact JSON; with
    /// `--trace jsonl`, the event's object with that value); otherwise as every event has it, secrets redacted,
    /// with a note the first time one is hidden saying how to see it. A value without secrets is the same either way.
    /// With `naming`, a text line says which run showed it (`run R shown: VALUE`), for commands continuing several.
    static func shownLines(_ event: RunEvent, trace: Trace, revealing: Bool, noted: OnceFlag, naming: Bool = false) -> [String]? {
        guard case .shown(_, let value, let revealed) = event.kind else { return nil }
        let shown = revealing ? revealed : value
        if trace == .jsonl {
            var object = event.jsonValue.objectValue ?? JSONObject()
            object["value"] = shown
            return [JSONWriter.compact(.object(object))]
        }
        let label = naming ? "run \(event.runID) shown: " : "shown: "
        var lines = [TerminalText.escaping(label + (shown.stringValue ?? JSONWriter.compact(shown)))]
        if shown != revealed, noted.setFirst() {
            lines.append("note: what the workflow shows holds secrets, hidden because standard error is no terminal (a log keeps them); --show-secrets shows them")
        }
        return lines
    }

    /// A flag set once, from any thread: whether something was said already.
    final class OnceFlag: Sendable {
        private let set = Mutex(false)

        /// Sets the flag; true the first time only.
        func setFirst() -> Bool {
            set.withLock { set in
                defer { set = true }
                return !set
            }
        }
    }

    /// For a run refused the structure's session: the runs of the journal directory that stopped on the structure
    /// without settling (interrupted, or left needing attention by a recovery that could not finish), which may hold
    /// it, and how to settle them; nil when there are none. When the refusal named the run holding the session
    /// (`holder`, as the hub told it), the error has said so: the note then only says how to settle that run, when it
    /// is one of them, and is nil when it is none of them (they do not hold the session).
    /// The `--hub unix:...` / `--hub tcp:...` or `--state DIR` this run used, to complete a command shown to the person;
    /// nil for a hub command, whose arguments may hold tokens, and for a home kept nowhere.
    static func hubOrState(_ arguments: ParsedArguments, endpoint: HubEndpoint?) -> String? {
        switch endpoint {
        case .unix?, .tcp?: arguments.value("hub").map { "--hub \(ShellWord.quoted($0))" }
        case .command?: nil
        case nil: arguments.value("state").map { "--state \(ShellWord.quoted($0))" }
        }
    }

    /// `home`, the `--state DIR` or `--hub SPEC` this run used (where the session is held), completes the command.
    static func interruptedHolders(
        in journal: RunJournal, structure: String, besides runID: String, heldBy holder: String?, on home: String?
    ) -> String? {
        let interrupted = ((try? journal.runs()) ?? []).filter {
            ($0.status == .interrupted || $0.status == .needsAttention) && $0.structureID == structure && $0.runID != runID
        }
        let command = "`matterflow recover --journal \(ShellWord.quoted(journal.directory))\(home.map { " " + $0 } ?? "")`"
        if let holder {
            guard interrupted.contains(where: { $0.runID == holder }) else { return nil }
            return "run \(holder) of \(journal.directory) stopped on structure \(structure) without settling: \(command)"
                + (home == nil ? " (with the --state or --hub it ran on)" : "") + " settles it"
        }
        guard !interrupted.isEmpty else { return nil }
        let names = interrupted.map(\.runID).joined(separator: ", ")
        return "\(interrupted.count == 1 ? "run" : "runs") \(names) of \(journal.directory) stopped on structure \(structure) without settling "
            + "and may hold its session: \(command)" + (home == nil ? " (with the --state or --hub they ran on)" : "") + " settles "
            + (interrupted.count == 1 ? "it" : "them")
    }

    /// The result as printed: for a run this command cancelled, `cancelledBecause` says why, as the exit status does
    /// (`{"code": "signal", "signal": "SIGINT"}`, or `{"code": "missingAnswer", "message": ...}` for a question it
    /// could put to nobody, `invalidAnswer` when the `--answer` given does not fit), so a script reading the JSON
    /// need not parse stderr.
    static func reported(_ result: RunResult, missingAnswer: RunQuestions.MissingAnswer?, signal: Int32?) -> JSONValue {
        guard result.outcome == .cancelled, var object = result.jsonValue.objectValue else { return result.jsonValue }
        if let signal {
            object["cancelledBecause"] = ["code": "signal", "signal": .string(Self.signalName(signal))]
        } else if let missingAnswer {
            object["cancelledBecause"] = ["code": .string(missingAnswer.code), "message": .string(missingAnswer.message)]
        } else {
            return result.jsonValue
        }
        return .object(object)
    }

    /// `SIGINT`, `SIGTERM`, `SIGHUP`, ... for the signals ``InterruptSignals/handled`` routes, or `signal N` for another.
    static func signalName(_ signal: Int32) -> String {
        let names: [(Int32, String)] = [
            (SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"), (SIGUSR1, "SIGUSR1"), (SIGUSR2, "SIGUSR2"), (SIGALRM, "SIGALRM"),
        ]
        #if os(Linux)
            if signal == SIGPWR { return "SIGPWR" }
        #endif
        return names.first { $0.0 == signal }?.1 ?? "signal \(signal)"
    }
}
