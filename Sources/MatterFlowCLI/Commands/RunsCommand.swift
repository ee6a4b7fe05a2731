import Foundation
import MatterFlowJSON
import MatterFlowJournal

/// `matterflow runs --journal DIR`: the journaled runs with their status.
struct RunsCommand {
    static let spec = CommandSpec(
        name: "runs",
        abstract: "List the runs in a journal directory with their status.",
        arguments: [],
        options: [
            .init(name: "journal", valueName: "<dir>", help: "The journal directory (as given to run --journal)."),
            StoreOption.option,
            .init(name: "json", valueName: nil, help: "Print the runs as a JSON array."),
            .init(name: "waiting", valueName: nil, help: "With --store: only the runs that wait for answers, a line per question."),
        ],
        discussion: """
            Status: running (a live process holds the journal), succeeded, failed, cancelled, interrupted (the
            process died; run `matterflow recover`), notStarted (it died before the run began), needsAttention
            (a recovery could not finish), unreadable. A run settled by recovery is marked "recovered".

            --waiting lists the questions runs wait for (answer them with `matterflow answer RUN --store URL
            --answer NAME=VALUE`): run, workflow, structure, question, when it was asked (UTC), prompt. A queued run
            is listed when a worker handed it back while it waited.

            Exit status: 0, or 2 when the directory cannot be read, 64 usage error.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() throws(UsageError) -> Int32 {
        if let store = try StoreOption.readingEither(arguments, command: Self.spec.name) {
            if arguments.flag("waiting") { return StoreListing.waiting(store, json: arguments.flag("json"), environment: environment) }
            return StoreListing.runs(store, json: arguments.flag("json"), environment: environment)
        }
        if arguments.flag("waiting") {
            throw UsageError(message: "--waiting reads a run store: pass --store URL (or --store DIR for a journal directory)", command: Self.spec.name)
        }
        guard let directory = arguments.value("journal") else {
            throw UsageError(message: "Missing expected option '--journal <dir>' (or '--store <url>')", command: Self.spec.name)
        }
        let runs: [JournalRunSummary]
        do {
            runs = try RunJournal(existingDirectory: directory).runs()
        } catch {
            environment.standardError.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
        return StoreListing.show(
            runs, json: arguments.flag("json"), jsonValue: \.jsonValue, empty: "no runs in \(directory)",
            header: ["RUN", "WORKFLOW", "STATUS", "STARTED (UTC)", "RECORDS", "NOTES"], environment: environment
        ) { run in
            var notes = run.notes
            if run.recovered { notes.insert("recovered", at: 0) }
            return [[
                run.runID, run.workflow ?? "-", run.status.rawValue, run.startedAt.map(Self.timestamp) ?? "-",
                String(run.recordCount), notes.joined(separator: "; "),
            ]]
        }
    }

    /// A wall-clock time as `2025-01-31 12:00:00`, in UTC.
    static func timestamp(_ seconds: Double) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
