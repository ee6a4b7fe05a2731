import MatterFlowStore

/// `matterflow cancel RUN --store URL [--secrets DIR]`: cancels a fleet run from any machine.
struct CancelCommand {
    static let spec = CommandSpec(
        name: "cancel",
        abstract: "Cancel a run in a PostgreSQL run store: at once when no worker has claimed it, or along its cancel path on a worker.",
        arguments: [("<run>", "The run ID (as printed by submit and runs).", false)],
        options: [
            StoreOption.postgresOption,
            .init(
                name: "secrets", valueName: "<dir>",
                help: "The secrets directory given to submit: the files of a run that ends at once are removed from it."),
        ],
        discussion: """
            A queued run no worker has claimed ends at once, cancelled, without a call; `cancelled` is printed. A run
            claimed before (running, or queued again where it waited) takes its cancel path on a worker, as a run
            interrupted with Ctrl-C does: its calls are ended, its session released, and what its workflow's cancel
            states undo is undone; `cancelling` is printed, and `matterflow watch RUN` follows it to its end. The
            worker running it is told at once (PostgreSQL NOTIFY on the channel matterflow_cancels); a worker that
            claims it later, or takes it over, takes its cancel path too. Cancelling again says the same (`cancelled`
            once the run has ended so); a run that ended otherwise is refused, except one that ended needsAttention
            (its recovery could not read the hub): it is settled again, a worker taking it over, reading the hub
            and taking its cancel path (`cancelling` is printed, and a note says so).

            No worker runs a run that ends at once: --secrets names the directory submit wrote its secrets files
            to, to remove them now; without it they stay until a worker with that directory sweeps it (when it
            starts, then at most once a minute while it finds nothing to claim).

            Exit status: 0 cancelled or cancelling (on stdout), 2 no such run, the run has ended, or the store cannot
            be reached, 64 usage error.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() throws(UsageError) -> Int32 {
        let err = environment.standardError
        let location = try StoreOption.value(arguments, command: Self.spec.name)
        let runID = arguments.positionals[0]
        guard let store = try StoreOption.postgres(location, command: Self.spec.name, err: err),
            SecretsDirectoryOption.isValid(arguments, use: .removes, err: err)
        else { return ExitCode.invalidInput }
        let outcome: (request: CancelRequest, secretsLeft: Bool)
        do {
            outcome = try store.requestCancel(runID: runID)
        } catch {
            err.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
        if outcome.secretsLeft {
            if let directory = arguments.value("secrets") {
                SecretInbox(directory: directory).remove(runID: runID)
            } else {
                err.line(
                    "note: run \(runID) has secrets files in the directory submit was given (--secrets); no worker ran it, so "
                        + "they stay there until a worker with that directory sweeps it (when it starts, then at most once a minute "
                        + "while idle); to remove them now, cancel again with --secrets DIR")
            }
        }
        switch outcome.request {
        case .settlingAgain:
            err.line(
                "note: run \(runID) needed attention (its recovery could not read the hub); a worker takes it over again, reads the "
                    + "hub and takes its cancel path: `matterflow watch \(runID) --store URL` follows it (needsAttention again if the hub still cannot say)")
            environment.standardOutput.line(CancelRequest.cancelling.rawValue)
        case .cancelled, .cancelling:
            environment.standardOutput.line(outcome.request.rawValue)
        }
        return ExitCode.success
    }
}
