import Dispatch
import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowSimulator
import Synchronization

/// `matterflow run WORKFLOW`: runs a workflow on the simulated home, with progress on standard error and the
/// result as one JSON object on standard output.
struct RunCommand {
    static let spec = CommandSpec(
        name: "run",
        abstract: "Run a workflow against the simulated home.",
        arguments: [("<workflow>", "The workflow file to run.", false)],
        options: [
            .init(name: "home", valueName: "<file>", help: "Home description to simulate (default: the built-in home)."),
            .init(name: "state", valueName: "<dir>", help: "Keep the simulated home in this directory between runs."),
            .init(name: "input", valueName: "<name=value>", repeatable: true, help: "An input value, typed by the workflow's declaration."),
            .init(name: "inputs", valueName: "<file>", help: "A JSON object of inputs (--input overrides it)."),
            .init(name: "trace", valueName: "<format>", help: "Progress on stderr: text (default), jsonl or none."),
            .init(name: "show-secrets", valueName: nil, help: "Show secret inputs and arguments in progress and traces."),
            .init(name: "clock", valueName: "<kind>", help: "virtual (default: simulated time passes at once) or real."),
            .init(name: "journal", valueName: "<dir>", help: "Write-ahead journal directory: the run is recorded in <dir>/<run>.journal."),
            CommissionerOption.option,
        ],
        discussion: """
            The simulated home runs on virtual time by default: its latencies, retry delays, timeouts and
            ePSKc lifetimes pass at once, in order. --clock real makes them take real time.

            With --state, the home is loaded from <dir>/home.json when it exists (--home only seeds an empty
            directory) and saved after every change, so consecutive runs see each other's effects.

            With --journal, every event and an intent and an outcome record around every hub call are written
            (and flushed) to <dir>/<run>.journal; after a crash, `matterflow recover --journal <dir>` settles the
            run. See docs/journal.md.

            Exit status: 0 succeeded, 1 failed or cancelled, 2 invalid workflow, inputs or home, 64 usage error,
            130 interrupted (after the cancel path has run).
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
        let clock = try environment.clock(named: arguments.value("clock"), command: Self.spec.name)
        let commissioner = try CommissionerOption.parse(arguments.all("commissioner"), command: Self.spec.name)
        let crash = try CrashHook.fromEnvironment(command: Self.spec.name)
        if let warning = crash?.warning { err.line(warning) }
        let engine = WorkflowEngine()
        let path = arguments.positionals[0]
        let workflow: Workflow
        let inputs: JSONObject
        let hub: SimulatedHub
        let structureID: StructureID
        do {
            workflow = try engine.load(path: path)
            inputs = try RunInputParser(workflow: workflow).parse(file: arguments.value("inputs"), pairs: arguments.all("input"))
            let opened = try SimulatedHomeOpener(homePath: arguments.value("home"), stateDirectory: arguments.value("state"))
                .open(clock: clock)
            (hub, structureID) = (opened.hub, opened.structureID)
            if let note = opened.note { err.line(note) }
        } catch {
            MatterflowTool.report(error.diagnostics, to: err)
            return ExitCode.invalidInput
        }
        if let commissioner { await hub.setCommissionerScript(commissioner, structure: structureID) }

        let showSecrets = arguments.flag("show-secrets")
        let options = RunOptions(
            structureID: structureID, clock: clock, showSecrets: showSecrets,
            observer: { event in
                switch trace {
                case .text: if event.isShownInTextTrace { err.line(TerminalText.escaping(event.text)) }
                case .jsonl: err.line(JSONWriter.compact(event.jsonValue))
                case .none: break
                }
            })
        // SIGINT is routed before the run starts, so an interrupt at any moment of the run takes its cancel path.
        let interruption = Mutex<(interrupted: Bool, handle: RunHandle?)>((false, nil))
        let signalSource = environment.handlesInterrupts ? Self.onInterrupt {
            interruption.withLock { state -> RunHandle? in
                state.interrupted = true
                return state.handle
            }?.cancel()
        } : nil
        let handle: RunHandle
        do {
            if let directory = arguments.value("journal") {
                handle = try RunJournal(directory: directory).start(
                    workflow, inputs: inputs, on: hub, options: options, engine: engine, testHook: crash?.hook)
            } else {
                handle = try engine.start(workflow, inputs: inputs, on: hub, options: options)
            }
        } catch let error as JournalError {
            signalSource?.cancel()
            err.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        } catch {
            signalSource?.cancel()
            MatterflowTool.report((error as? DiagnosticsError)?.diagnostics ?? [], to: err)
            return ExitCode.invalidInput
        }
        let interruptedBeforeStart = interruption.withLock { state -> Bool in
            state.handle = handle
            return state.interrupted
        }
        if interruptedBeforeStart { handle.cancel() }
        let result = await handle.result
        signalSource?.cancel()
        environment.standardOutput.line(JSONWriter.pretty(result.jsonValue))
        if interruption.withLock({ $0.interrupted }) { return ExitCode.interrupted }
        return result.outcome == .succeeded ? ExitCode.success : ExitCode.failure
    }

    /// Routes SIGINT to a handler instead of killing the process, so the cancel path can run.
    private static func onInterrupt(_ handler: @escaping @Sendable () -> Void) -> any DispatchSourceSignal {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }
}
