import Foundation
import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowStore

/// Exit codes of the `matterflow` command.
public enum ExitCode {
    /// The command succeeded: for `run`, the workflow succeeded; for `test`, every fixture passed.
    public static let success: Int32 = 0
    /// The workflow failed or was cancelled; for `test`, a fixture failed.
    public static let failure: Int32 = 1
    /// An invalid workflow, home, inputs or other input file.
    public static let invalidInput: Int32 = 2
    /// `watch --timeout`: the run had not ended when the time was up (neither a success nor a failure yet).
    public static let stillRunning: Int32 = 3
    /// The command line itself is wrong.
    public static let usage: Int32 = 64
    /// Interrupted by SIGINT (after the cancel path ran); SIGTERM, SIGHUP and the other routed signals
    /// (``InterruptSignals/handled``) give 128 + their numbers: 143, 129, ....
    public static let interrupted: Int32 = 130
}

/// What the CLI may touch beyond its arguments, injectable for in-process tests.
public struct ToolEnvironment: Sendable {
    /// Where the command writes its results.
    public var standardOutput: any TextSink
    /// Where the command writes diagnostics and errors.
    public var standardError: any TextSink
    /// Route SIGINT, SIGTERM and SIGHUP to a cancel of the running workflow, and, as PID 1, reap orphaned processes
    /// (the real process does; tests need not).
    public var handlesInterrupts: Bool
    /// The clock for runs and the simulated hub; nil lets `--clock` choose (virtual time unless `--clock real`).
    public var clock: (any WorkflowClock)?
    /// Where a person types answers to a run's questions; nil when nobody is there (no terminal), so a question
    /// without an `--answer` fails fast.
    public var terminal: (any PromptTerminal)?
    /// The wall-clock time, in seconds since the Unix epoch (what `store prune --older-than` counts back from).
    public var now: @Sendable () -> Double
    /// What `--inputs -` reads: the process's standard input (``processStandardInput``), or a file in tests.
    public var standardInputPath: String
    /// Write the text trace's symbols (▶ ● ✓ → …) in ASCII: the process's locale says its terminal takes no UTF-8
    /// (``TerminalGlyphs/asciiOnly(environment:)``). False unless set.
    public var asciiGlyphs = false

    /// `text` for a person's terminal: its symbols (→ …) in ASCII where ``asciiGlyphs`` says the terminal takes no
    /// UTF-8, as it is otherwise. Never for JSON, whose values are data.
    func glyphs(_ text: String) -> String {
        asciiGlyphs ? TerminalGlyphs.ascii(text) : text
    }
    /// Standard error is a terminal, so a person reads it: what a workflow shows them (an assign state's `show`, such
    /// as an ePSKc) is printed with its secrets. False unless set: a log or a file keeps no secret.
    public var standardErrorIsTerminal = false
    /// Standard error is the systemd journal's stream (``JournalStream``): a worker starts each log line with its
    /// syslog priority, which journald keeps as the line's. False unless set.
    public var standardErrorIsJournal = false

    /// Whether the process's standard error is the journal stream `environment`'s `JOURNAL_STREAM` names.
    public static func standardErrorIsJournal(environment: [String: String]) -> Bool {
        JournalStream.matches(environment["JOURNAL_STREAM"], descriptor: STDERR_FILENO)
    }

    /// The process's own standard input: read from its descriptor, not opened by this path (a socket, which a
    /// parent process may pass, cannot be).
    public static let processStandardInput = "/dev/stdin"

    /// By default: the process's standard output and error, no interrupt handling, no injected clock (`--clock`
    /// chooses), no terminal, the system's wall-clock time, and the process's standard input.
    public init(
        standardOutput: any TextSink = StandardStream.output, standardError: any TextSink = StandardStream.error,
        handlesInterrupts: Bool = false, clock: (any WorkflowClock)? = nil, terminal: (any PromptTerminal)? = nil,
        now: @escaping @Sendable () -> Double = { Date().timeIntervalSince1970 },
        standardInputPath: String = ToolEnvironment.processStandardInput
    ) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.handlesInterrupts = handlesInterrupts
        self.clock = clock
        self.terminal = terminal
        self.now = now
        self.standardInputPath = standardInputPath
    }
}

extension ToolEnvironment {
    /// The clock a command runs on: the injected one (tests), else `--clock virtual` (the default) or `real`.
    func clock(named name: String?, command: String) throws(UsageError) -> any WorkflowClock {
        if let clock { return clock }
        switch name ?? "virtual" {
        case "virtual": return VirtualClock()
        case "real": return SystemClock()
        case let other: throw UsageError(message: "--clock must be virtual or real, not '\(other)'", command: command)
        }
    }
}

/// The `matterflow` command: `main.swift` calls this and exits with what it returns.
public enum MatterflowTool {
    /// The tool's version: what `matterflow --version` prints, and the client version given to a remote hub.
    public static let version = MatterFlowVersion.current

    static let commands: [CommandSpec] = [
        RunCommand.spec, ValidateCommand.spec, TestCommand.spec, OperationsCommand.spec, PayloadCommand.spec,
        PayloadCommand.generateSpec, DatasetCommand.spec, GraphCommand.spec, RunsCommand.spec, HistoryCommand.spec, RecoverCommand.spec,
        HubServeCommand.spec, HubCheckCommand.spec,
        SubmitCommand.spec, AnswerCommand.spec, CancelCommand.spec, WorkerCommand.spec, WorkersCommand.spec, WatchCommand.spec,
        StoreMigrateCommand.spec, StorePruneCommand.spec, StoreMetricsCommand.spec,
    ]

    static var overview: String {
        var text = """
            OVERVIEW: Run Matter commissioning workflows as explicit state machines.

            USAGE: matterflow <subcommand> [options]

            OPTIONS:

            """
        text += CommandSpec.row("-h, --help", "Show help information.")
        text += CommandSpec.row("--version", "Show the version.")
        text += "\nSUBCOMMANDS:\n"
        for command in commands { text += CommandSpec.row(command.name, command.abstract) }
        text += CommandSpec.row("help <subcommand>", "Show help for a subcommand.")
        text += "\n  See 'matterflow help <subcommand>' for detailed help.\n"
        return text
    }

    /// Runs the command line and returns the process exit code.
    ///
    /// Everything it prints goes through ``TerminalText``: control characters in text from files, hubs and datasets
    /// are shown escaped, never sent raw to the terminal.
    ///
    /// It leaves the caller's actor (`@concurrent`), so the tool's work never holds up the main actor that a
    /// `main.swift` calls it from.
    /// Output that could not be written (a full disk, a reader that went away) is said on standard error, and a
    /// command that would have exited 0 exits 1: what it printed is lost.
    @concurrent public static func main(arguments: [String], environment given: ToolEnvironment = ToolEnvironment()) async -> Int32 {
        // The process's own concerns: as PID 1 (a container without an init) it reaps the orphans its hubs leave.
        if given.handlesInterrupts { OrphanReaper.startIfInit() }
        let code = await execute(arguments: arguments, environment: given)
        guard let failure = given.standardOutput.writeFailure else { return code }
        given.standardError.line("error[\(ReportFile.notWrittenCode)]: the output could not be written to standard output (\(failure)); it is lost")
        return code == ExitCode.success ? ExitCode.failure : code
    }

    /// Runs the command line as the process received it, each argument's bytes: one that is not UTF-8 text (a
    /// name typed in a Latin-1 terminal) is a usage error naming it by its number, the name before its `=` and the
    /// byte (never its value, which may be a secret), rather than read with replacement characters that would reach
    /// the hub as the device's name.
    @concurrent public static func main(rawArguments: [[UInt8]], environment: ToolEnvironment = ToolEnvironment()) async -> Int32 {
        var arguments: [String] = []
        for (index, bytes) in rawArguments.enumerated() {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                let offset = JSONDocument.firstNonUTF8Byte(in: bytes)
                let byte = bytes[min(offset, bytes.count - 1)]
                // The name a `NAME=VALUE` argument gives, when the bad byte is in its value: the value is not shown.
                let equals = bytes.firstIndex(of: UInt8(ascii: "="))
                let name = equals.flatMap { $0 < offset ? String(validating: bytes[..<$0], as: UTF8.self) : nil } ?? ""
                let named = name.isEmpty ? "" : " (the value of \(TerminalText.escaping(name)))"
                environment.standardError.line(
                    "Error: argument \(index + 1)\(named) is not UTF-8 text: byte 0x\(String(byte, radix: 16, uppercase: true)) "
                        + "at byte \(offset + 1) of it; run matterflow from a UTF-8 locale (LANG=C.UTF-8), or convert the text "
                        + "(iconv -f LATIN1 -t UTF-8)")
                return ExitCode.usage
            }
            arguments.append(text)
        }
        return await main(arguments: arguments, environment: environment)
    }

    private static func execute(arguments: [String], environment given: ToolEnvironment) async -> Int32 {
        var environment = given
        environment.standardOutput = TerminalSafeSink(base: given.standardOutput)
        environment.standardError = TerminalSafeSink(base: given.standardError)
        let out = environment.standardOutput
        let err = environment.standardError
        guard let first = arguments.first else {
            err.write("Error: Missing subcommand\n\n" + overview)
            return ExitCode.usage
        }
        switch first {
        case "-h", "--help":
            out.write(overview)
            return ExitCode.success
        case "--version":
            // What this build reads and writes, for an operator running several versions side by side.
            out.line(
                "matterflow \(version) (store schema \(StoreMigrations.latest), journal format \(JournalFrame.formatVersion), "
                    + "hub protocol \(HubMethod.protocolVersion))")
            return ExitCode.success
        case "help":
            guard let name = arguments.dropFirst().first else {
                out.write(overview)
                return ExitCode.success
            }
            let words = arguments.dropFirst().joined(separator: " ")
            guard let command = commands.first(where: { $0.name == words }) ?? commands.first(where: { $0.name == name }) else {
                if let group = CommandGroup.named(name, among: commands) {
                    guard arguments.count > 2 else {
                        out.write(group.help)
                        return ExitCode.success
                    }
                    return groupError("Unknown subcommand '\(words)'\(subcommandHint(Array(arguments.dropFirst()), among: commands))", group, err)
                }
                let hint = subcommandHint(Array(arguments.dropFirst()), among: commands)
                return usageError(UsageError(message: "Unknown subcommand '\(name)'\(hint)", command: nil), err)
            }
            out.write(command.help)
            return ExitCode.success
        default:
            break
        }
        // Two-word subcommands ("payload generate") take precedence over their first word.
        var rest = Array(arguments.dropFirst())
        var name = first
        if let second = rest.first, commands.contains(where: { $0.name == "\(first) \(second)" }) {
            name = "\(first) \(second)"
            rest.removeFirst()
        }
        guard let spec = commands.first(where: { $0.name == name }) else {
            if let group = CommandGroup.named(first, among: commands) {
                // A group's first word alone ("hub") names no subcommand: list the group's.
                switch rest.first {
                case nil:
                    return groupError("Missing subcommand after '\(first)'", group, err)
                case "-h", "--help":
                    out.write(group.help)
                    return ExitCode.success
                case let second?:
                    let hint = SpellingSuggestion.closest(to: "\(first) \(second)", among: group.commands.map(\.name))
                        .map { "; did you mean '\($0)'?" } ?? ""
                    return groupError("Unknown subcommand '\(first) \(second)'\(hint)", group, err)
                }
            }
            // An option before any command is one of the tool's own (`--help`, `--version`), misspelt.
            if first.hasPrefix("-") {
                let hint = SpellingSuggestion.closest(to: first, among: ["--help", "--version"]).map { "; did you mean '\($0)'?" } ?? ""
                return usageError(UsageError(message: "Unknown option '\(first)'\(hint)", command: nil), err)
            }
            let hint = subcommandHint(arguments, among: commands)
            return usageError(UsageError(message: "Unknown subcommand '\(first)'\(hint)", command: nil), err)
        }
        let parsed: ParsedArguments
        do {
            parsed = try spec.parse(rest)
        } catch {
            return usageError(error, err)
        }
        if parsed.wantsHelp {
            out.write(spec.help)
            return ExitCode.success
        }
        do {
            switch spec.name {
            case RunCommand.spec.name: return try await RunCommand(arguments: parsed, environment: environment).execute()
            case ValidateCommand.spec.name: return try await ValidateCommand(arguments: parsed, environment: environment).execute()
            case GraphCommand.spec.name: return try await GraphCommand(arguments: parsed, environment: environment).execute()
            case RunsCommand.spec.name: return try RunsCommand(arguments: parsed, environment: environment).execute()
            case HistoryCommand.spec.name: return try HistoryCommand(arguments: parsed, environment: environment).execute()
            case RecoverCommand.spec.name: return try await RecoverCommand(arguments: parsed, environment: environment).execute()
            case TestCommand.spec.name: return await TestCommand(arguments: parsed, environment: environment).execute()
            case OperationsCommand.spec.name: return OperationsCommand(arguments: parsed, environment: environment).execute()
            case PayloadCommand.spec.name: return PayloadCommand(arguments: parsed, environment: environment).decode()
            case PayloadCommand.generateSpec.name: return try PayloadCommand(arguments: parsed, environment: environment).generate()
            case DatasetCommand.spec.name: return DatasetCommand(arguments: parsed, environment: environment).execute()
            case HubServeCommand.spec.name: return try await HubServeCommand(arguments: parsed, environment: environment).execute()
            case HubCheckCommand.spec.name: return try await HubCheckCommand(arguments: parsed, environment: environment).execute()
            case SubmitCommand.spec.name: return try SubmitCommand(arguments: parsed, environment: environment).execute()
            case AnswerCommand.spec.name: return try AnswerCommand(arguments: parsed, environment: environment).execute()
            case CancelCommand.spec.name: return try CancelCommand(arguments: parsed, environment: environment).execute()
            case WorkerCommand.spec.name: return try await WorkerCommand(arguments: parsed, environment: environment).execute()
            case WorkersCommand.spec.name: return try WorkersCommand(arguments: parsed, environment: environment).execute()
            case WatchCommand.spec.name: return try WatchCommand(arguments: parsed, environment: environment).execute()
            case StoreMigrateCommand.spec.name: return try StoreMigrateCommand(arguments: parsed, environment: environment).execute()
            case StorePruneCommand.spec.name: return try StorePruneCommand(arguments: parsed, environment: environment).execute()
            case StoreMetricsCommand.spec.name: return try StoreMetricsCommand(arguments: parsed, environment: environment).execute()
            default: return usageError(UsageError(message: "Unknown subcommand '\(first)'", command: nil), err)
            }
        } catch {
            return usageError(error, err)
        }
    }

    /// `; did you mean 'X'?` for words that start with no subcommand's name, when a subcommand is close to them: a
    /// two-word one (`stor migrate`, `hbu check`) by the first two words, else a one-word one or a group (`hub`,
    /// `store`) by the first; all of those equally close (`runz`: `'run' or 'runs'`).
    static func subcommandHint(_ words: [String], among commands: [CommandSpec]) -> String {
        let names = commands.map(\.name)
        let twoWords = names.filter { $0.contains(" ") }
        let groups = Set(twoWords.compactMap { $0.split(separator: " ").first.map(String.init) })
        let oneWord = names.filter { !$0.contains(" ") } + groups.sorted()
        var matches = words.count >= 2 ? SpellingSuggestion.closestAll(to: words.prefix(2).joined(separator: " "), among: twoWords) : []
        if matches.isEmpty, let first = words.first { matches = SpellingSuggestion.closestAll(to: first, among: oneWord) }
        guard !matches.isEmpty else { return "" }
        return "; did you mean " + matches.map { "'\($0)'" }.joined(separator: " or ") + "?"
    }

    static func usageError(_ error: UsageError, _ err: any TextSink) -> Int32 {
        err.line("Error: \(error.message)")
        if let name = error.command, let command = commands.first(where: { $0.name == name }) {
            err.line("Usage: \(command.usage)")
            err.line("  See 'matterflow \(name) --help' for more information.")
        } else {
            err.line("Usage: matterflow <subcommand> [options]")
            err.line("  See 'matterflow --help' for more information.")
        }
        return ExitCode.usage
    }

    /// Reports a usage mistake within a group of subcommands (`matterflow hub`) with the group's subcommands.
    static func groupError(_ message: String, _ group: CommandGroup, _ err: any TextSink) -> Int32 {
        err.write("Error: \(message)\n\n" + group.help)
        return ExitCode.usage
    }

    /// How many findings of one code in one file are printed before the rest are counted instead.
    static let findingsShownPerCode = 20

    /// Prints diagnostics, one per line, compiler style: of each file's findings of one code and severity, the first
    /// ``findingsShownPerCode``, then one line counting the rest (5,000 devices with the same typo were 10,000 lines
    /// that hid every other finding). A command's `--json` lists them all.
    static func report(_ diagnostics: [Diagnostic], to sink: any TextSink) {
        // Findings of each file, severity and code so far; the groups past the limit, in the order they went past it.
        var shown: [String: Int] = [:]
        var hidden: [(key: String, file: String?, severity: Diagnostic.Severity, code: String)] = []
        for diagnostic in diagnostics {
            let key = "\(diagnostic.file ?? "")\u{0}\(diagnostic.severity.rawValue)\u{0}\(diagnostic.code)"
            shown[key, default: 0] += 1
            guard shown[key, default: 0] > findingsShownPerCode else {
                sink.line(diagnostic.description)
                continue
            }
            if shown[key] == findingsShownPerCode + 1 { hidden.append((key, diagnostic.file, diagnostic.severity, diagnostic.code)) }
        }
        for group in hidden {
            let count = (shown[group.key] ?? 0) - findingsShownPerCode
            sink.line(
                "\(group.file.map { $0 + ": " } ?? "")\(group.severity.rawValue)[\(group.code)]: \(count) more like the "
                    + "\(findingsShownPerCode) above, not shown")
        }
    }
}
