import Foundation
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowStore

/// `matterflow runs --journal DIR`: the journaled runs with their status.
struct RunsCommand {
    static let spec = CommandSpec(
        name: "runs",
        abstract: "List the runs in a journal directory or run store with their status.",
        arguments: [],
        options: [
            .init(name: "journal", valueName: "<dir>", alternative: "store", help: "The journal directory (as given to run --journal)."),
            StoreOption.option,
            .init(name: "json", valueName: nil, help: "Print the runs as a JSON array."),
            .init(name: "waiting", valueName: nil, help: "With --store: only the runs that wait for answers, a line per question."),
            .init(name: "status", valueName: "<status>", repeatable: true, help: "Only runs with this status (repeatable)."),
            .init(name: "structure", valueName: "<id>", repeatable: true, help: "Only runs on this structure, a home (repeatable)."),
            .init(name: "since", valueName: "<time>", help: "Only runs started since: a time back from now (2h, 30m, 7d), an ISO-8601 timestamp, a date (UTC), or a time as runs prints it (UTC)."),
            .init(name: "limit", valueName: "<n>", help: "Only the newest n runs of those listed (1...1000000; default 100)."),
            .init(name: "all", valueName: nil, help: "Every run listed, however many (instead of the newest 100)."),
        ],
        discussion: """
            Status: running (a live process holds the journal), succeeded, failed, cancelled, interrupted (the
            process died; run `matterflow recover`), notStarted (it died before the run began), needsAttention
            (a recovery could not finish), unreadable; in a PostgreSQL store, queued and running (a worker holds
            it), succeeded, failed, cancelled, needsAttention. A run settled by recovery is marked "recovered"; a
            run that ended with an error shows its cause and message in NOTES.

            --status, --structure, --since and --limit combine: the newest --limit runs of those with a --status, on
            a --structure, that started since --since (a queued run counts from when it was submitted), listed oldest
            first. Without --limit,
            the newest 100 are listed, and a note on stderr says when more match; --all lists every one (a store
            keeps every run until `matterflow store prune` removes it).

            --waiting lists the questions runs wait for (answer them with `matterflow answer RUN --store URL
            --answer NAME=VALUE`): run, workflow, structure, question, when it was asked (UTC), prompt. A queued run
            is listed when a worker handed it back while it waited.

            Exit status: 0, or 2 when the directory or store cannot be read, 64 usage error.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() throws(UsageError) -> Int32 {
        let statuses = Set(arguments.all("status"))
        var filter = RunFilter(statuses: statuses, structures: Set(arguments.all("structure")))
        filter.since = try arguments.value("since").map { text throws(UsageError) in
            try AgeOption.moment(text, option: "since", command: Self.spec.name, now: environment.now())
        }
        filter.limit = try arguments.wholeNumber("limit", range: 1...1_000_000, command: Self.spec.name)
        if filter.limit != nil && arguments.flag("all") {
            throw UsageError(message: "--limit and --all contradict each other: --all lists every run; drop one of them", command: Self.spec.name)
        }
        // A span back from now counts from the store's clock when a store is read (a timestamp is a timestamp).
        let span = arguments.value("store") == nil ? nil : arguments.value("since").flatMap { AgeOption.span($0) }
        let listing = RunListing(filter: filter, every: arguments.flag("all"), sinceSpan: span)
        if let store = try StoreOption.readingEither(arguments, command: Self.spec.name) {
            if arguments.flag("waiting") {
                if let narrowing = ["status", "since", "limit", "structure"].first(where: { arguments.value($0) != nil }) ?? (arguments.flag("all") ? "all" : nil) {
                    throw UsageError(message: "--\(narrowing) narrows the runs listed, not the questions --waiting lists; drop one of them", command: Self.spec.name)
                }
                return StoreListing.waiting(store, json: arguments.flag("json"), environment: environment)
            }
            try Self.checkStatuses(statuses, known: ["queued", "running", "succeeded", "failed", "cancelled", "needsAttention"])
            return StoreListing.runs(store, listing: listing, json: arguments.flag("json"), environment: environment)
        }
        if arguments.flag("waiting") {
            throw UsageError(message: "--waiting reads a run store: pass --store URL (or --store DIR for a journal directory)", command: Self.spec.name)
        }
        guard let directory = arguments.value("journal") else {
            throw UsageError(message: "Missing expected option '--journal <dir>' (or '--store <url>')", command: Self.spec.name)
        }
        try Self.checkStatuses(statuses, known: JournalRunStatus.allCases.map(\.rawValue))
        let runs: [JournalRunSummary]
        let total: Int
        do {
            let all = try RunJournal(existingDirectory: directory).runs()
            total = all.count
            runs = listing.filter.apply(to: all, status: \.status.rawValue, startedAt: \.startedAt, structure: \.structureID)
        } catch {
            environment.standardError.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
        defer { listing.noteCut(runs.count, environment: environment) }
        return StoreListing.show(
            listing.shown(runs), json: arguments.flag("json"), jsonValue: \.jsonValue,
            empty: total == 0 ? "no runs in \(directory)" : "no runs in \(directory) match (\(total) run\(total == 1 ? "" : "s") in all)",
            header: ["RUN", "WORKFLOW", "STATUS", "STARTED (UTC)", "RECORDS", "NOTES"], environment: environment
        ) { run in
            var notes = run.notes
            if let error = StoreListing.errorNote(run.error) { notes.insert(error, at: 0) }
            if run.recovered { notes.insert("recovered", at: 0) }
            return [[
                run.runID, run.workflow ?? "-", run.status.rawValue, run.startedAt.map(Self.timestamp) ?? "-",
                String(run.recordCount), notes.joined(separator: "; "),
            ]]
        }
    }

    /// Refuses a `--status` no run can have here.
    static func checkStatuses(_ statuses: Set<String>, known: [String]) throws(UsageError) {
        if let unknown = statuses.subtracting(known).sorted().first {
            throw UsageError(message: "--status \(unknown) is no run status here; use one of \(known.joined(separator: ", "))", command: spec.name)
        }
    }

    /// A wall-clock time as `2025-01-31 12:00:00`, in UTC.
    static func timestamp(_ seconds: Double) -> String {
        UTCTime.dateTime(seconds)
    }
}
