import MatterFlow
import MatterFlowJSON

/// Where a journaled run stands.
public enum JournalRunStatus: String, Sendable, Hashable, CaseIterable {
    /// A live process holds the journal: the run is going on.
    case running
    /// The run ended (by itself, or through recovery) with this outcome.
    case succeeded, failed, cancelled
    /// The run stopped without a terminal record (its process died) and has not been recovered.
    case interrupted
    /// The journal holds no complete record: the process died before the run began, so it did nothing.
    case notStarted
    /// A recovery could not finish (see its `recoveryDeferred` record); run recovery again.
    case needsAttention
    /// The file is not a readable journal, or one of its records does not decode (the note names it).
    case unreadable

    /// The status of a run that ended with `outcome`.
    init(_ outcome: RunResult.Outcome) {
        switch outcome {
        case .succeeded: self = .succeeded
        case .failed: self = .failed
        case .cancelled: self = .cancelled
        }
    }
}

/// One run as `matterflow runs` lists it.
public struct JournalRunSummary: Sendable {
    /// The journal file's path.
    public var path: String
    /// The run's ID: the one its `runStarted` record names, or the file name without `.journal` when there is none
    /// to read.
    public var runID: String
    /// The workflow's name from the run's `runStarted` record; nil when the journal has no readable one.
    public var workflow: String?
    /// The structure the run acts on, from its `runStarted` record; nil when the journal has no readable one.
    public var structureID: String?
    /// When the run began, in seconds since the Unix epoch.
    public var startedAt: Double?
    /// When its journal was last written, in seconds since the Unix epoch, for a run that has ended (succeeded,
    /// failed, cancelled) or needs attention: the end of its run or of its last recovery.
    public var endedAt: Double?
    /// The output of a run that ended, as its `runFinished` record keeps it (secrets redacted); nil when it has none
    /// (a failed run, or one journaled before runs kept their output).
    public var output: JSONValue?
    /// Where the run stands: running, ended, interrupted, not started, needing attention or unreadable.
    public var status: JournalRunStatus
    /// Whether a recovery resolved the run.
    public var recovered: Bool
    /// The number of valid records in the journal; 0 for a file that cannot be read as a journal.
    public var recordCount: Int
    /// The final error, for failed and cancelled runs.
    public var error: JSONValue?
    /// A torn tail, damage or an unreadable file, in words, and the run's warnings (`warning: ...`: a succeeded
    /// run that could not configure its device says so).
    public var notes: [String]

    init(_ contents: JournalContents, running: Bool) {
        path = contents.path
        runID = Self.runID(fromPath: contents.path)
        recordCount = contents.records.count
        recovered = false
        notes = contents.problems
        if let torn = contents.tornTail {
            notes.append("torn last record: \(torn.length) bytes at byte \(torn.offset) ignored (\(torn.reason))")
        }
        let entries: JournalEntries
        do {
            entries = try contents.entries()
        } catch {
            status = running ? .running : .unreadable
            notes.append(error.message)
            return
        }
        let started = entries.started
        runID = started?.entry.runID ?? runID
        workflow = started?.entry.workflow
        structureID = started?.entry.structureID
        startedAt = started?.wallTime
        let finished = entries.finished
        recovered = entries.recovered
        error = finished?.error.map(JournalEntryCodec.json)
        output = finished?.output.flatMap { $0.isNull ? nil : $0 }
        if running {
            status = .running
        } else if let finished {
            status = JournalRunStatus(finished.outcome)
        } else if contents.startIsDamaged {
            status = .needsAttention
            notes.append(
                recovered || entries.lastRecoveryDeferral != nil
                    ? "the runStarted record is damaged; `matterflow history` shows what recovery found and did"
                    : "the runStarted record is damaged; run `matterflow recover`, which releases what the run provably holds and says what is left")
        } else if started == nil {
            status = .notStarted
        } else if let deferral = entries.lastRecoveryDeferral {
            status = .needsAttention
            notes.append("recovery deferred: \(deferral)")
        } else {
            status = .interrupted
        }
        notes += JournalEntries.warningNotes(JournalEntries.warnings(in: contents.records))
        switch status {
        case .succeeded, .failed, .cancelled, .needsAttention: endedAt = contents.records.last?.wallTime
        case .running, .interrupted, .notStarted, .unreadable: endedAt = nil
        }
    }

    init(unreadable path: String, error: JournalError) {
        self.path = path
        runID = Self.runID(fromPath: path)
        status = .unreadable
        recovered = false
        recordCount = 0
        notes = [error.message]
    }

    static func runID(fromPath path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return name.hasSuffix(RunJournal.fileExtension) ? String(name.dropLast(RunJournal.fileExtension.count)) : name
    }

    /// The summary as JSON, for `matterflow runs --json`.
    public var jsonValue: JSONValue {
        [
            "runID": .string(runID), "workflow": workflow.map(JSONValue.string) ?? .null,
            "structureID": structureID.map(JSONValue.string) ?? .null, "startedAt": startedAt.map(JSONValue.double) ?? .null,
            "endedAt": endedAt.map(JSONValue.double) ?? .null, "status": .string(status.rawValue), "output": output ?? .null, "recovered": .bool(recovered), "records": .int(recordCount),
            "error": error ?? .null, "notes": .array(notes.map(JSONValue.string)), "path": .string(path),
        ]
    }
}
