import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowStore

/// `runs --store URL` and `history RUN --store URL`: the same listings as with --journal, from any run store.
enum StoreListing {
    static func runs(_ location: String, listing: RunListing, json: Bool, environment: ToolEnvironment) -> Int32 {
        if json && listing.cap == nil && listing.asked.limit == nil { return everyRunAsJSON(location, listing, environment) }
        guard let runs = reading(location, environment, { store throws(StoreError) in try store.runs(try Self.filter(listing, of: store)) }) else {
            return ExitCode.invalidInput
        }
        defer { listing.noteCut(runs.count, environment: environment) }
        return show(
            listing.shown(runs), json: json, jsonValue: \.jsonValue,
            empty: listing.asked == RunFilter() ? "no runs in the store" : "no runs in the store match",
            header: ["RUN", "WORKFLOW", "STRUCTURE", "STATUS", "WORKER", "STARTED (UTC)", "RECORDS", "NOTES"],
            environment: environment
        ) { run in
            var notes = run.notes
            if !run.isOpen, let error = errorNote(run.error) { notes.insert(error, at: 0) }
            if run.recovered { notes.insert("recovered", at: 0) }
            if run.leaseExpired { notes.insert("lease expired: another worker takes it over", at: 0) }
            // Only while it waits to be claimed again: a run that started since keeps its count.
            if run.isOpen && run.workerID == nil && run.startFailures > 0 {
                notes.insert(
                    "could not be started \(run.startFailures) time\(run.startFailures == 1 ? "" : "s"): no hub for its structure, or its "
                        + "secrets not in the worker's --secrets directory (the workers' logs say which); claimed again after a back-off",
                    at: 0)
            }
            // First, where a narrow column still shows it: what was asked of the run outranks why it waits.
            if run.cancelRequested && run.isOpen { notes.insert("cancel asked for", at: 0) }
            return [[
                run.runID, run.workflow ?? "-", run.structureID ?? "-", run.status, run.workerID ?? run.finishedBy ?? "-",
                run.startedAt.map(RunsCommand.timestamp) ?? "-", String(run.recordCount), notes.joined(separator: "; "),
            ]]
        }
    }

    /// `runs --all --json`: each run written as the store hands it over, so that listing every run of a large store
    /// holds a page of them, not all. When the store fails part way, what was written is cut short (not valid JSON)
    /// and the exit code and standard error say so.
    private static func everyRunAsJSON(_ location: String, _ listing: RunListing, _ environment: ToolEnvironment) -> Int32 {
        var writer = PrettyArrayWriter { environment.standardOutput.write($0) }
        guard
            reading(location, environment, { store throws(StoreError) in
                try store.forEachRun(try Self.filter(listing, of: store)) { writer.append($0.jsonValue) }
            }) != nil
        else { return ExitCode.invalidInput }
        writer.finish()
        environment.standardOutput.write("\n")
        return ExitCode.success
    }

    /// What `store` is asked for: a span of `--since` counted back from the store's clock (PostgreSQL's `now()`,
    /// as `store prune --older-than` counts), whatever this machine's says.
    private static func filter(_ listing: RunListing, of store: any RunStore) throws(StoreError) -> RunFilter {
        listing.sinceSpan == nil ? listing.filter : listing.filter(now: try store.currentTime())
    }

    /// Why a run ended, for the NOTES column: the error's cause (it says most) and its message, shortened.
    static func errorNote(_ error: JSONValue?) -> String? {
        guard let error = error?.objectValue else { return nil }
        let message = TerminalText.escaping(error["message"]?.stringValue ?? "")
        let cause = error["cause"]?.stringValue ?? error["code"]?.stringValue ?? "?"
        return cause + (message.isEmpty ? "" : ": " + shortened(message, to: 100))
    }

    /// `text` cut to at most `limit` characters, `…` included, between words (at the last space of the part kept,
    /// when one is in its last third); whole when it fits.
    static func shortened(_ text: String, to limit: Int) -> String {
        guard text.count > limit else { return text }
        let kept = text.prefix(limit - 1)
        guard let space = kept.lastIndex(of: " "), kept.distance(from: kept.startIndex, to: space) >= (limit * 2) / 3 else {
            return kept + "…"
        }
        return kept[..<space] + " …"
    }

    /// `runs --store URL --waiting`: a line per question a run waits for.
    static func waiting(_ location: String, json: Bool, environment: ToolEnvironment) -> Int32 {
        guard let runs = reading(location, environment, { store throws(StoreError) in try store.waitingRuns() }) else {
            return ExitCode.invalidInput
        }
        return show(
            runs, json: json, jsonValue: \.jsonValue, empty: "no run waits for an answer",
            header: ["RUN", "WORKFLOW", "STRUCTURE", "QUESTION", "ASKED (UTC)", "PROMPT"], environment: environment
        ) { waiting in
            waiting.questions.map { asked in
                [
                    waiting.run.runID, waiting.run.workflow ?? "-", waiting.run.structureID ?? "-", asked.question.name,
                    RunsCommand.timestamp(asked.askedAt), asked.question.prompt,
                ]
            }
        }
    }

    /// What `read` gets from the run store at `location`; nil when the store cannot be opened or read, the error
    /// printed.
    private static func reading<Value>(
        _ location: String, _ environment: ToolEnvironment, _ read: (any RunStore) throws(StoreError) -> Value
    ) -> Value? {
        do throws(StoreError) {
            return try read(try openRunStore(location, asClient: true))
        } catch {
            environment.standardError.line("error[\(error.code.rawValue)]: \(error.message)")
            return nil
        }
    }

    /// Prints a listing as `runs` does: a JSON array with `--json`; else a table under `header`, each item giving
    /// its rows, columns two spaces apart and the last unpadded; or `empty` on standard error when there is nothing.
    static func show<Item>(
        _ items: [Item], json: Bool, jsonValue: (Item) -> JSONValue, empty: String, header: [String],
        environment: ToolEnvironment, rows: (Item) -> [[String]]
    ) -> Int32 {
        if json {
            var writer = PrettyArrayWriter { environment.standardOutput.write($0) }
            for item in items { writer.append(jsonValue(item)) }
            writer.finish()
            environment.standardOutput.write("\n")
            return ExitCode.success
        }
        guard !items.isEmpty else {
            environment.standardError.line(empty)
            return ExitCode.success
        }
        printTable(([header] + items.flatMap(rows)).map { $0.map(environment.glyphs) }, to: environment.standardOutput)
        return ExitCode.success
    }

    /// Prints rows as columns two spaces apart, the last column unpadded.
    /// Every cell is escaped as a single line (a value holding a line break or tab cannot start a row of its own),
    /// then padded by the columns it takes on a terminal.
    private static func printTable(_ rows: [[String]], to out: any TextSink) {
        let cells = rows.map { $0.map { TerminalText.escaping($0) } }
        let widths = (0..<cells[0].count - 1).map { column in cells.map { TerminalText.columns($0[column]) }.max() ?? 0 }
        // Lines go out some 64 KB at a time: a listing of many runs is not a write per line.
        var pending = ""
        for row in cells {
            var line = ""
            for (index, cell) in row.enumerated() {
                line += cell
                if index < widths.count { line += String(repeating: " ", count: widths[index] - TerminalText.columns(cell) + 2) }
            }
            while line.hasSuffix(" ") { line.removeLast() }
            pending += line + "\n"
            if pending.utf8.count >= 1 << 16 {
                out.write(pending)
                pending = ""
            }
        }
        if !pending.isEmpty { out.write(pending) }
    }

    static func history(_ location: String, runID: String, json: Bool, environment: ToolEnvironment) -> Int32 {
        guard
            let (records, run, output) = reading(location, environment, { store throws(StoreError) in
                let run = try store.run(runID)
                return (try store.records(of: runID), run, run == nil ? nil : try store.output(of: runID))
            })
        else { return ExitCode.invalidInput }
        if json {
            var object = StoredRunEnd.json(runID: runID, run: run, output: output)
            object["records"] = .array(records.map { .object($0.payload) })
            environment.standardOutput.line(JSONWriter.pretty(.object(object)))
            return ExitCode.success
        }
        let gap = "not in the store: lost in a failover to a standby that lacked them, a restore, or deleted; the run's notes say so when its worker saw it"
        for line in HistoryText.lines(records, gap: gap) { environment.standardOutput.line(line) }
        guard let run else { return ExitCode.success }
        let endRecorded = records.contains { $0.type == JournalEntry.Kind.runFinished.rawValue }
        for line in StoredRunEnd.lines(of: run, output: output, endRecorded: endRecorded) { environment.standardOutput.line(line) }
        return ExitCode.success
    }
}
