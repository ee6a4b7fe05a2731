import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import MatterFlowStore

/// `matterflow watch RUN --store URL`: a run's records as they are written, from any machine, until it ends.
struct WatchCommand {
    static let spec = CommandSpec(
        name: "watch",
        abstract: "Stream a run's journal records from a PostgreSQL run store as they are written.",
        arguments: [("<run>", "The run ID (as printed by submit and runs).", false)],
        options: [
            StoreOption.postgresOption,
            .init(name: "json", valueName: nil, help: "One JSON record per line, then the run's end as {\"type\": \"status\", ...}."),
            .init(name: "timeout", valueName: "<seconds>", help: "Give up after this long (default: wait until the run ends)."),
        ],
        discussion: """
            Prints the records written so far, then each new one as its batch commits (PostgreSQL LISTEN/NOTIFY on
            the channel matterflow_records), in the format of `history`, until the run has a final status; then
            that status (with "(recovered)" when a takeover or recovery settled the run), its error, its output
            (secrets redacted) and the notes of `runs`. With --json the last line is that end as one object:
            {"type": "status", "runID", "status", "recovered", "error", "output", "notes"} (no "seq": it is no
            record); a run cancelled before it began has it alone.

            When the store cannot be reached or refuses the watch while the run is watched (a failover, maintenance,
            a pooler in front of a server that is down), watch says so once on standard error, with the reason, and
            waits for it, until --timeout if one is given; then it goes on where it was.

            Exit status: 0 the run succeeded, 1 it failed, was cancelled or needs attention, 2 no such run or the
            store cannot be reached at the start, 3 --timeout passed first, 64 usage error.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() throws(UsageError) -> Int32 {
        let err = environment.standardError
        let out = environment.standardOutput
        let location = try StoreOption.value(arguments, command: Self.spec.name)
        let runID = arguments.positionals[0]
        var deadline: ContinuousClock.Instant?
        if let text = arguments.value("timeout") {
            guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
                throw UsageError(message: "--timeout must be a number of seconds more than 0 and at most 86400, not '\(text)'", command: Self.spec.name)
            }
            deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        }
        guard let store = try StoreOption.postgres(location, command: Self.spec.name, err: err) else { return ExitCode.invalidInput }
        store.limitRetries(to: Self.retryLimit)
        var listener: PostgresConnection
        do {
            listener = try Self.listen(for: runID, at: location)
        } catch {
            let refused = StoreError.from(error, doing: "watching run \(runID)")
            err.line("error[\(refused.code.rawValue)]: \(refused.message)")
            return ExitCode.invalidInput
        }
        defer {
            PostgresRunStore.endWatching(runID, on: listener)
            listener.close()
        }
        var last = 0
        var endRecorded = false
        var origin: Double?
        var pause = WatchPause()
        var outage: ContinuousClock.Instant?
        while true {
            do {
                // The status first: records written before it turned final are all in the store by then.
                let status = try store.status(of: runID)
                if let lostAt = outage {
                    err.line("watch: the store is reachable again, after \(Int((ContinuousClock.now - lostAt).secondsValue.rounded())) s")
                    outage = nil
                }
                for record in try store.records(of: runID, after: last) {
                    origin = origin ?? record.wallTime
                    if arguments.flag("json") {
                        out.line(JSONWriter.compact(.object(record.payload)))
                    } else {
                        let elapsed = ((record.wallTime ?? 0) - (origin ?? 0))
                        out.line("#\(record.sequence)  \(Self.offset(elapsed))  \(record.type)  \(HistoryCommand.details(record))")
                    }
                    last = record.sequence
                    if record.type == JournalEntry.Kind.runFinished.rawValue { endRecorded = true }
                }
                switch status {
                case "succeeded":
                    try printEnd(of: runID, in: store, endRecorded: endRecorded)
                    return ExitCode.success
                case "failed", "cancelled", "needsAttention":
                    try printEnd(of: runID, in: store, endRecorded: endRecorded)
                    return ExitCode.failure
                case "queued", "running":
                    break
                default:
                    // Written by a newer MatterFlow: waiting for a status this one knows could be for ever.
                    err.line("error[unknownStatus]: run \(runID) has status \"\(status)\", which this matterflow does not know; upgrade it to read this run")
                    return ExitCode.invalidInput
                }
                if let deadline, ContinuousClock.now >= deadline {
                    err.line("watch: run \(runID) is still \(status) after --timeout")
                    return ExitCode.stillRunning
                }
                var wait = pause.milliseconds
                if let deadline {
                    let left = (ContinuousClock.now.duration(to: deadline).secondsValue * 1000).rounded(.up)
                    wait = max(1, min(wait, Int(left)))
                }
                do {
                    let heard = try listener.notifications(timeoutMilliseconds: Int32(wait))
                    pause.next(heard: heard.contains { $0.payload == runID })
                } catch {
                    // The listener's connection broke (the server restarted): listen on a new one; until one can be
                    // had, look again after the shortest pause.
                    listener.close()
                    pause.next(heard: true)
                    if let again = try? Self.listen(for: runID, at: location) {
                        listener = again
                    } else {
                        Thread.sleep(forTimeInterval: Double(pause.milliseconds) / 1000)
                    }
                }
            } catch where error.isOutOfReach {
                // The server went away, or refuses the watch, for longer than a restart takes (a failover, maintenance;
                // a pooler in front of a server that is down refuses as a live server does): the run goes on with the
                // workers, which reconnect, and the watch waits for the store as they do, saying why.
                if outage == nil {
                    outage = .now
                    let until = deadline == nil ? "until it is back (Ctrl-C stops)" : "until it is back or --timeout passes"
                    err.line("watch: \(error.message); waiting \(until)")
                }
                if let deadline, ContinuousClock.now >= deadline {
                    err.line("watch: the store could not be reached by --timeout; run \(runID) may still be running")
                    return ExitCode.stillRunning
                }
                pause.next(heard: false)
                var wait = Duration.milliseconds(pause.milliseconds)
                if let deadline { wait = min(wait, ContinuousClock.now.duration(to: deadline)) }
                Thread.sleep(forTimeInterval: max(0, wait.secondsValue))
            } catch {
                err.line("error[\(error.code.rawValue)]: \(error.message)")
                return ExitCode.invalidInput
            }
        }
    }

    /// How long each of the watch's reads tries to reach a server that went away before the watch says that it
    /// waits for the store: longer than a restart takes, so a restart goes unremarked.
    static let retryLimit: Duration = .seconds(3)

    /// Prints how the run ended, as `history --store` does after its records; with `--json`, one
    /// `{"type": "status", ...}` object.
    private func printEnd(of runID: String, in store: PostgresRunStore, endRecorded: Bool) throws(StoreError) {
        guard let run = try store.run(runID) else { return }
        let output = try store.output(of: runID)
        if arguments.flag("json") {
            var object = JSONObject()
            object["type"] = "status"
            for member in StoredRunEnd.json(runID: runID, run: run, output: output).members { object[member.key] = member.value }
            environment.standardOutput.line(JSONWriter.compact(.object(object)))
            return
        }
        for line in StoredRunEnd.lines(of: run, output: output, endRecorded: endRecorded) { environment.standardOutput.line(line) }
    }

    /// How long `watch` waits for a notification before it reads the run again anyway: 250 ms after it heard of the
    /// run, doubling each time it hears nothing, up to 5 s. The notifications say when the run has new records or
    /// ends; the reads between them catch a batch that committed while the watch registered (not announced to it),
    /// and a run that went away (pruned) without a word, at no more than 8 reads a second per idle watcher.
    struct WatchPause {
        static let shortest = 250
        static let longest = 5000
        private(set) var milliseconds = Self.shortest

        mutating func next(heard: Bool) {
            milliseconds = heard ? Self.shortest : min(milliseconds * 2, Self.longest)
        }
    }

    /// A connection that hears of the run's new records (the run registered as watched).
    static func listen(for runID: String, at location: String) throws(PostgresError) -> PostgresConnection {
        let listener = try PostgresConnection(location, applicationName: "matterflow \(spec.name)")
        do {
            try listener.listen("matterflow_records")
            try PostgresRunStore.beginWatching(runID, on: listener)
        } catch {
            listener.close()
            throw error
        }
        return listener
    }

    /// A record's time after the run's first, in seconds with three decimals and a sign: `+1.234s`, or `-3598.000s`
    /// for one stamped before it (the clock stepped back); `+?s` for a stamp no clock gives (a damaged record).
    static func offset(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e12 else { return "+?s" }
        let milliseconds = Int((abs(value) * 1000).rounded())
        let fraction = String(milliseconds % 1000)
        let sign = value < 0 && milliseconds > 0 ? "-" : "+"
        return sign + "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction + "s"
    }
}
