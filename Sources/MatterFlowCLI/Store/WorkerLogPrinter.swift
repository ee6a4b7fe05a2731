import Foundation
import MatterFlowJSON
import MatterFlowStore

/// Prints a worker's lines on stderr: as text (`worker W: ...`, the default, for a terminal or a journal that adds
/// its own times), or with `--log-format json` one object per line (`{"time", "level", "worker", "run", "runs",
/// "message"}`) for a log collector, the worker's own lines and its start and exit errors alike.
struct WorkerLogPrinter: Sendable {
    /// The forms `--log-format` takes.
    enum Format: String, CaseIterable {
        case text, json
    }

    let format: Format
    let err: any TextSink
    /// The wall time a JSON line is stamped with, in seconds since the Unix epoch.
    var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    /// Prints a line of the worker's log.
    func print(_ line: WorkerLogLine) {
        switch format {
        case .text: err.line(TerminalText.escaping(line.text))
        case .json: err.line(JSONWriter.compact(line.jsonValue(time: now())))
        }
    }

    /// Prints an error that stops the worker: `error[CODE]: MESSAGE` as text, a line of level `error` whose message
    /// starts with `error[CODE]: ` as JSON.
    func error(code: String, _ message: String, workerID: String?) {
        switch format {
        case .text: err.line(TerminalText.escaping("error[\(code)]: \(message)"))
        case .json: print(WorkerLogLine(level: .error, workerID: workerID, message: "error[\(code)]: \(message)"))
        }
    }

    /// The format `--log-format` names (text when not given).
    static func format(_ arguments: ParsedArguments, command: String) throws(UsageError) -> Format {
        guard let name = arguments.value("log-format") else { return .text }
        guard let format = Format(rawValue: name) else {
            throw UsageError(message: "--log-format must be text or json, not '\(name)'", command: command)
        }
        return format
    }
}
