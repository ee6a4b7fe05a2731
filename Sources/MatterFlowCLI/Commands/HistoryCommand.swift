import Foundation
import MatterFlowJSON
import MatterFlowJournal

/// `matterflow history RUN --journal DIR`: one run's journal records, in order.
struct HistoryCommand {
    static let spec = CommandSpec(
        name: "history",
        abstract: "Print a journaled run's records in order.",
        arguments: [("<run>", "The run ID (as printed by run and runs).", false)],
        options: [
            .init(name: "journal", valueName: "<dir>", alternative: "store", help: "The journal directory."),
            StoreOption.option,
            .init(name: "json", valueName: nil, help: "Print the records as one JSON object."),
        ],
        discussion: """
            Text: a line saying when the first record was written (UTC), then one line per record: its sequence
            number, seconds since then, type and details; a record written a minute or more after the one before
            (a recovery, a takeover, a long wait) also gives its own time.
            A torn last record (the process died while writing it) is reported and not shown as a record.
            JSON: {"runID", "status", "records": [...], "tornTail": {...} or null, "problems": [...]}.

            Exit status: 0, 2 when the run is not in the directory or the journal cannot be read, 64 usage error.
            """)

    let arguments: ParsedArguments
    let environment: ToolEnvironment

    func execute() throws(UsageError) -> Int32 {
        if let store = try StoreOption.readingEither(arguments, command: Self.spec.name) {
            return StoreListing.history(store, runID: arguments.positionals[0], json: arguments.flag("json"), environment: environment)
        }
        guard let directory = arguments.value("journal") else {
            throw UsageError(message: "Missing expected option '--journal <dir>' (or '--store <url>')", command: Self.spec.name)
        }
        let runID = arguments.positionals[0]
        let contents: JournalContents
        let status: JournalRunSummary?
        do {
            let journal = try RunJournal(existingDirectory: directory)
            contents = try journal.read(runID: runID)
            // The run's own journal only: reading every run of the directory took seconds in a large one.
            status = journal.run(runID)
        } catch {
            environment.standardError.line("error[\(error.code.rawValue)]: \(error.message)")
            return ExitCode.invalidInput
        }
        // The records are shown as they are; one whose members do not decode is named among the problems.
        var problems = contents.problems
        do {
            _ = try contents.entries()
        } catch {
            problems.append(error.message)
        }
        if arguments.flag("json") {
            var object = JSONObject()
            object["runID"] = .string(runID)
            object["status"] = status.map { .string($0.status.rawValue) } ?? .null
            object["records"] = .array(contents.records.map { .object($0.payload) })
            object["tornTail"] = contents.tornTail.map { torn in
                ["offset": .int(torn.offset), "length": .int(torn.length), "reason": .string(torn.reason)]
            } ?? .null
            object["problems"] = .array(problems.map(JSONValue.string))
            environment.standardOutput.line(JSONWriter.pretty(.object(object)))
            return ExitCode.success
        }
        for line in HistoryText.lines(contents.records) { environment.standardOutput.line(line) }
        if let torn = contents.tornTail {
            environment.standardOutput.line(
                "(torn last record ignored: \(torn.length) bytes at byte \(torn.offset): \(torn.reason))")
        }
        for problem in problems {
            environment.standardOutput.line("(damaged: \(problem))")
            environment.standardError.line("warning: the journal of \(runID) is damaged: \(problem)")
        }
        if let status {
            environment.standardOutput.line("status: \(status.status.rawValue)\(status.recovered ? " (recovered)" : "")")
        }
        return ExitCode.success
    }

    /// The record's own members, compactly.
    static func details(_ record: JournalRecord) -> String {
        let skipped: Set<String> = ["seq", "type", "wallTime", "clockTime"]
        let members = record.payload.members.filter { !skipped.contains($0.key) }
        return members.map { "\($0.key)=\(JSONWriter.compact($0.value))" }.joined(separator: " ")
    }
}
