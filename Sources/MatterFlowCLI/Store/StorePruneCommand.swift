import MatterFlowJournal
import MatterFlowStore

/// `matterflow store prune --store URL --older-than AGE`: removes the runs that ended long enough ago, with their
/// records, from a PostgreSQL run store or a journal directory; `--run RUN` and `--structure ID` erase one run's or
/// one structure's runs.
struct StorePruneCommand {
    static let spec = CommandSpec(
        name: "store prune",
        abstract: "Remove runs that ended long enough ago, or one run's or structure's runs, with their records, from a run store or journal directory; or workers' rows gone.",
        arguments: [],
        options: [
            StoreOption.requiredOption,
            .init(
                name: "older-than", valueName: "<age>",
                help: "Remove runs that ended more than this long ago: 90d, 12h, 30m or 45s (0s: every ended run). Required unless --run or --structure names runs (then: any age) or --workers is given."),
            .init(
                name: "status", valueName: "<status>", repeatable: true,
                help: "Only runs that ended so: succeeded, failed, cancelled or needsAttention (default: the first three)."),
            .init(name: "run", valueName: "<run>", repeatable: true, help: "Only this run (erasing one run's data); with --structure, this run too."),
            .init(
                name: "structure", valueName: "<id>", repeatable: true,
                help: "Only the runs of this structure (erasing one household's data); with --run, these runs too."),
            .init(
                name: "secrets", valueName: "<dir>",
                help: "The secrets directory given to submit: the removed runs' files go too, and (PostgreSQL) those of runs pruned before without it."),
            .init(
                name: "workers", valueName: nil,
                help: "Only workers' rows (PostgreSQL): those stopped, or silent for longer than their lease, holding no run (with --older-than: gone that long); runs stay."),
            .init(name: "dry-run", valueName: nil, help: "Remove nothing; list the runs (or with --workers, the workers) that would go, and those named that would stay."),
        ],
        discussion: """
            A store keeps every run and its records until they are removed: about 17 KB per commission-device run.
            Prune removes the runs that ended (by the time of their final status) before AGE ago, oldest first, AGE
            measured by the store's clock (PostgreSQL's now(), whatever this machine's says; a journal directory's,
            this machine's): in PostgreSQL their rows, record batches, answers and watchers, in transactions of 500
            runs; in a journal directory their journal files, each under its lock. It prints how many runs and
            records went; --dry-run lists each run that would go, and removes nothing.

            Never removed: queued and running runs; a run that still holds a structure's commissioning session; in a
            journal directory, runs going on, interrupted, not started or unreadable (they need `matterflow recover`).
            Runs that need attention go only when --status needsAttention names them: their records are what a
            person reads to settle them. A run's ID may be used again once it is removed.

            Erasing a household's or a run's data: --structure ID and --run RUN take only those runs, of any age
            unless --older-than is given too. Each run named that stays is printed on stderr with why and what to do
            (cancel an open run, recover an interrupted one, release a held session, name --status needsAttention),
            and prune then exits 1: prune again once that is done. A run named that the store does not have is noted
            (removed before, or mistyped). Run it with --dry-run first, and with --secrets DIR in a fleet. Workers'
            rows are left alone. docs/store.md ("Erasing a household's data") lists what a run's records hold and
            the simulated homes' files to remove too.

            With --secrets DIR (PostgreSQL), the removed runs' files go, and so do the files of runs the store no
            longer has (pruned before without --secrets) once untouched for 10 minutes: a submit writes its run's
            files just before it queues the run. Without it, workers given that directory remove those files as
            they sweep it.

            In PostgreSQL, the rows of workers not heard from since before AGE ago go too, when the worker stopped or
            has been silent for longer than its lease and holds no run (`matterflow workers` lists them). --workers
            removes those rows alone, of any age unless --older-than is given, and keeps every run: after a worker
            is retired or crashed for good, its row (and the alert on silent workers) goes without pruning runs.

            A directory that holds no journal but a simulated home (home.json), a worker's homes or secrets files is
            refused (invalidStore): nothing is removed.

            Exit status: 0; 1 when runs named by --run or --structure stay; 2 when the store cannot be reached, is not
            a journal directory, or a file cannot be removed (what went before stays removed); 64 usage error.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() throws(UsageError) -> Int32 {
        let location = try StoreOption.value(arguments, command: Self.spec.name)
        if arguments.flag("workers") { return try pruneWorkers(location) }
        let runIDs = Set(arguments.all("run"))
        let structureIDs = Set(arguments.all("structure"))
        let ageText = arguments.value("older-than")
        guard ageText != nil || !runIDs.isEmpty || !structureIDs.isEmpty else {
            throw UsageError(
                message: "Missing expected option '--older-than <age>' (90d, 12h, 30m, 45s; 0s for every ended run), or --run/--structure naming the runs to remove",
                command: Self.spec.name)
        }
        let age = try ageText.map { text throws(UsageError) in try AgeOption.seconds(text, option: "older-than", command: Self.spec.name) }
        let statuses = try Self.statuses(arguments.all("status"))
        // Without an age, runs named go whenever they ended: no cutoff, so no clock of this machine's is compared
        // with the store's.
        let request = PruneRequest(
            statuses: statuses, endedBefore: age.map { environment.now() - $0 } ?? .infinity, olderThan: age,
            dryRun: arguments.flag("dry-run"), runIDs: runIDs, structureIDs: structureIDs)
        guard SecretsDirectoryOption.isValid(arguments, use: .removes, err: environment.standardError) else { return ExitCode.invalidInput }
        let inbox = arguments.value("secrets").map(SecretInbox.init(directory:))
        let report: PruneReport
        var swept = SecretsSweep()
        let store: any RunStore
        // The structures named that have no run in the store (mistyped, or pruned before), found before the prune.
        var unknownStructures: [String] = []
        do throws(StoreError) {
            store = try openRunStore(location)
            if !structureIDs.isEmpty {
                let held = Set(try store.runs(RunFilter(structures: structureIDs)).compactMap(\.structureID))
                unknownStructures = structureIDs.subtracting(held).sorted()
            }
            // Each batch's secrets files go once the batch is removed, so a failure later leaves none behind.
            report = try store.prune(request) { removed in
                for runID in removed { inbox?.remove(runID: runID, output: true) }
            }
            if let inbox, let postgres = store as? PostgresRunStore {
                swept = try postgres.sweepSecrets(inbox, now: environment.now(), endedRuns: false, dryRun: request.dryRun)
            }
        } catch {
            environment.standardError.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
        let out = environment.standardOutput
        let err = environment.standardError
        let summary =
            "\(report.runIDs.count) run\(report.runIDs.count == 1 ? "" : "s") (\(report.records) records)"
            + Self.scope(of: request, cutoff: ageText == nil ? nil : report.cutoff ?? request.endedBefore)
        let workers = "\(report.workers.count) worker\(report.workers.count == 1 ? "" : "s") gone since before then (stopped, or silent for longer than their lease) and holding no run"
        let would = request.dryRun ? "would remove" : "removed"
        if request.dryRun { for runID in report.runIDs { out.line(runID) } }
        out.line("\(would) \(summary)")
        if !report.workers.isEmpty { out.line("\(would) \(workers): \(report.workers.joined(separator: ", "))") }
        if let inbox, !swept.orphaned.isEmpty {
            out.line(
                "\(would) from \(inbox.directory) the files of \(swept.orphaned.count) run\(swept.orphaned.count == 1 ? "" : "s") pruned "
                    + "before (\(SecretsSweep.naming(swept.orphaned)))")
        }
        // Once a run's row is gone, only a sweep of the secrets directory finds the files it left there.
        if inbox == nil, !report.runIDs.isEmpty, PostgresRunStore.isPostgres(location) {
            err.line(
                "note: without --secrets, files these runs left in the secrets directory given to submit (their secret inputs, answers and "
                    + "outputs, in clear) \(request.dryRun ? "would stay" : "stay") until a worker given that directory sweeps it (as it "
                    + "starts, then while idle); to remove them now, \(request.dryRun ? "prune" : "prune again") with --secrets DIR")
        }
        if report.runIDs.isEmpty, let journal = store as? JournalDirectoryStore, !journal.holdsJournals {
            err.line("note: \(journal.journal.directory) holds no journal file: nothing to prune (is it the directory given to `run --journal`?)")
        }
        for runID in report.notFound { err.line("note: the store has no run \(runID) (removed before, or mistyped)") }
        for structure in unknownStructures { err.line("note: the store has no run of structure \(structure) (removed before, or mistyped)") }
        for kept in report.kept { err.line(kept.advice(postgres: PostgresRunStore.isPostgres(location), dryRun: request.dryRun)) }
        return report.kept.isEmpty ? ExitCode.success : ExitCode.failure
    }

    /// `--workers`: removes the rows of workers gone (stopped, or silent for longer than their lease) and holding
    /// no run, and no run.
    private func pruneWorkers(_ location: String) throws(UsageError) -> Int32 {
        if let other = ["run", "structure", "status", "secrets"].first(where: { !arguments.all($0).isEmpty }) {
            throw UsageError(message: "--workers removes workers' rows and no run; drop --\(other)", command: Self.spec.name)
        }
        let age = try arguments.value("older-than").map { text throws(UsageError) in
            try AgeOption.seconds(text, option: "older-than", command: Self.spec.name)
        }
        guard let store = try StoreOption.postgres(location, command: Self.spec.name, err: environment.standardError, asClient: false) else {
            return ExitCode.invalidInput
        }
        let dryRun = arguments.flag("dry-run")
        let workers: [String]
        do {
            workers = try store.pruneWorkers(olderThan: age, dryRun: dryRun)
        } catch {
            environment.standardError.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
        let since = arguments.value("older-than").map { " for more than \($0)" } ?? ""
        environment.standardOutput.line(
            "\(dryRun ? "would remove" : "removed") \(workers.count) worker\(workers.count == 1 ? "" : "s") gone\(since) (stopped, or silent for "
                + "longer than their lease) and holding no run\(workers.isEmpty ? "" : ": " + workers.joined(separator: ", "))")
        return ExitCode.success
    }

    /// What the summary says of the runs a request takes: of which runs and structures, and ended before when (the
    /// store's cutoff).
    private static func scope(of request: PruneRequest, cutoff: Double?) -> String {
        var named = request.structureIDs.sorted().map { "structure \($0)" } + request.runIDs.sorted().map { "run \($0)" }
        if named.count > 1 { named = [named.dropLast().joined(separator: ", ") + " and " + (named.last ?? "")] }
        let of = named.first.map { " of \($0)" } ?? ""
        let before = cutoff.map { " that ended before \(RunsCommand.timestamp($0)) UTC" } ?? ""
        return of + before
    }

    /// The statuses `--status` names (each once or more), or the default ones.
    static func statuses(_ named: [String]) throws(UsageError) -> Set<String> {
        guard !named.isEmpty else { return PruneRequest.defaultStatuses }
        for status in named where !PruneRequest.allowedStatuses.contains(status) {
            let open = StoredRun.isOpen(status) ? " (queued and running runs are never pruned)" : ""
            throw UsageError(
                message: "--status must be succeeded, failed, cancelled or needsAttention, not '\(status)'\(open)", command: spec.name)
        }
        return Set(named)
    }
}
