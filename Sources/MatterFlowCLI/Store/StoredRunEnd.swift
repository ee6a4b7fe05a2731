import MatterFlowJSON
import MatterFlowStore

/// How a run of the store ended, as `history --store` and `watch` print it after the run's records.
enum StoredRunEnd {
    /// `status: S` (`(recovered)` when a takeover or recovery settled it), `output: ...`, the error of a run whose
    /// records have no `runFinished` of their own (`endRecorded` false: cancelled before it began, its secrets or
    /// workflow missing; the store keeps it with the run), then a `note:` line per note.
    static func lines(of run: StoredRun, output: JSONValue?, endRecorded: Bool) -> [String] {
        var lines = ["status: \(run.status)\(run.recovered ? " (recovered)" : "")"]
        if let output { lines.append("output: " + TerminalText.escaping(JSONWriter.compact(output))) }
        if !endRecorded, let error = run.error?.objectValue {
            // The cause says most (`secretsUnavailable`); errors stored by earlier versions have only a code.
            let code = error["cause"]?.stringValue ?? error["code"]?.stringValue ?? "?"
            let message = error["message"]?.stringValue ?? JSONWriter.compact(.object(error))
            lines.append("error: \(TerminalText.escaping(code)): \(TerminalText.escaping(message))")
        }
        for note in run.notes { lines.append("note: \(TerminalText.escaping(note))") }
        return lines
    }

    /// The end as JSON members: `runID`, `status`, `recovered`, `output`, `error`, `notes`.
    static func json(runID: String, run: StoredRun?, output: JSONValue?) -> JSONObject {
        var object = JSONObject()
        object["runID"] = .string(runID)
        object["status"] = run.map { .string($0.status) } ?? .null
        object["recovered"] = .bool(run?.recovered ?? false)
        object["output"] = output ?? .null
        object["error"] = run?.error ?? .null
        object["notes"] = .array((run?.notes ?? []).map(JSONValue.string))
        return object
    }
}
