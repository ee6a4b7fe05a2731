import Foundation
import MatterFlowJSON

/// One line of a worker's log: how much it matters, the worker, the run it is about (if one), and what happened.
///
/// The CLI prints ``text`` (`worker W: run R ended succeeded`, with `warning: ` or `error: ` before what needs a
/// look), or with `--log-format json` one object per line from ``jsonValue(time:)``, for a log collector.
public struct WorkerLogLine: Sendable, Hashable {
    /// How much a line matters.
    public enum Level: String, Sendable, Hashable {
        /// What the worker does: claims, starts, ends, hands back.
        case info
        /// Something went wrong that the worker works around (it retries, hands a run back, keeps a value redacted).
        case warning
        /// Something a person must look at: a run that needs attention.
        case error
    }

    /// How much the line matters.
    public var level: Level
    /// The worker that wrote it; nil before it has an ID (while it waits for the store at start).
    public var workerID: String?
    /// The run it is about, when it is about one run.
    public var runID: String? {
        get { runIDs.count == 1 ? runIDs[0] : nil }
        set { runIDs = newValue.map { [$0] } ?? [] }
    }
    /// The runs it is about: one, several (a hand-back, lost leases), or none.
    public var runIDs: [String]
    /// What happened, in words (it names the runs too).
    public var message: String

    /// A line about one run, or none.
    public init(level: Level, workerID: String?, runID: String? = nil, message: String) {
        self.init(level: level, workerID: workerID, runIDs: runID.map { [$0] } ?? [], message: message)
    }

    /// A line about any number of runs.
    public init(level: Level, workerID: String?, runIDs: [String], message: String) {
        self.level = level
        self.workerID = workerID
        self.runIDs = runIDs
        self.message = message
    }

    /// `worker W: MESSAGE` (`worker: MESSAGE` without an ID), with `warning: ` or `error: ` before it for those levels.
    public var text: String {
        let prefix: String
        switch level {
        case .info: prefix = ""
        case .warning: prefix = "warning: "
        case .error: prefix = "error: "
        }
        return "\(prefix)worker\(workerID.map { " " + $0 } ?? ""): \(message)"
    }

    /// `{"time", "level", "worker", "run", "runs", "message"}`: `time` in UTC (`2026-12-06T04:50:01.250Z`, from `time`,
    /// seconds since the Unix epoch), `worker` null when there is none, `run` the run when the line is about one
    /// (else null), `runs` every run it is about (a log store joins on it: a hand-back names each run it handed back).
    public func jsonValue(time: Double) -> JSONValue {
        [
            "time": .string(Self.timestamp(time)), "level": .string(level.rawValue), "worker": workerID.map(JSONValue.string) ?? .null,
            "run": runID.map(JSONValue.string) ?? .null, "runs": .array(runIDs.map(JSONValue.string)), "message": .string(message),
        ]
    }

    /// A time as ISO 8601 in UTC with milliseconds.
    static func timestamp(_ seconds: Double) -> String {
        UTCTime.iso8601Milliseconds(seconds)
    }
}

/// How a worker's parts write a line of its log: the level, the run it is about (nil for none), what happened.
typealias WorkerLog = @Sendable (WorkerLogLine.Level, _ runID: String?, _ message: String) -> Void

extension StoreWorker {
    /// Writes a line of the worker's log (``WorkerOptions/log``).
    func log(_ level: WorkerLogLine.Level, run runID: String? = nil, _ message: String) {
        options.log?(WorkerLogLine(level: level, workerID: options.workerID, runID: runID, message: message))
    }

    /// Writes a line of the worker's log about several runs.
    func log(_ level: WorkerLogLine.Level, runs runIDs: [String], _ message: String) {
        options.log?(WorkerLogLine(level: level, workerID: options.workerID, runIDs: runIDs, message: message))
    }
}
