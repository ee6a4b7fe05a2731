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
    /// Start each line with its syslog priority (`<6>` information, `<4>` warning, `<3>` error), for journald: set
    /// when standard error is the journal's stream.
    var priorities = false
    /// The wall time a JSON line is stamped with, in seconds since the Unix epoch.
    var now: @Sendable () -> Double = { Date().timeIntervalSince1970 }

    /// Prints a line of the worker's log.
    func print(_ line: WorkerLogLine) {
        let prefix = priorities ? Self.priority(line.level) : ""
        switch format {
        case .text: err.line(prefix + TerminalText.escaping(line.text))
        case .json: err.line(prefix + JSONWriter.compact(line.jsonValue(time: now())))
        }
    }

    /// Prints an error that stops the worker: `error[CODE]: MESSAGE` as text, a line of level `error` whose message
    /// starts with `error[CODE]: ` as JSON.
    func error(code: String, _ message: String, workerID: String?) {
        switch format {
        case .text: err.line((priorities ? Self.priority(.error) : "") + TerminalText.escaping("error[\(code)]: \(message)"))
        case .json: print(WorkerLogLine(level: .error, workerID: workerID, message: "error[\(code)]: \(message)"))
        }
    }

    /// Prints the findings of loading a file (the worker's home): as text the lines `validate` prints, as JSON one
    /// line each, of level `error` or `warning` as the finding's severity.
    func report(_ diagnostics: [Diagnostic], workerID: String?) {
        for severity in [Diagnostic.Severity.error, .warning] {
            let level: WorkerLogLine.Level
            switch severity {
            case .error: level = .error
            case .warning: level = .warning
            }
            MatterflowTool.report(diagnostics.filter { $0.severity == severity }, to: LevelSink(printer: self, level: level, workerID: workerID))
        }
    }

    /// Lines of one level, as the printer's format writes them.
    private struct LevelSink: TextSink {
        let printer: WorkerLogPrinter
        let level: WorkerLogLine.Level
        let workerID: String?

        func write(_ text: String) {
            for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
                switch printer.format {
                case .text: printer.err.line((printer.priorities ? WorkerLogPrinter.priority(level) : "") + line)
                case .json: printer.print(WorkerLogLine(level: level, workerID: workerID, message: String(line)))
                }
            }
        }
    }

    /// The syslog priority prefix journald reads for a level (RFC 5424 severities: error 3, warning 4,
    /// informational 6).
    static func priority(_ level: WorkerLogLine.Level) -> String {
        switch level {
        case .info: "<6>"
        case .warning: "<4>"
        case .error: "<3>"
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
