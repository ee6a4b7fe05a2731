import Foundation
import MatterFlowSimulator

/// A report a command writes to a file named on its command line (`test --junit`, `store metrics --output`,
/// `worker --metrics-file`): replaced whole (a reader never sees half of it), readable by others (a CI system or a
/// collector running as another user).
enum ReportFile {
    /// The stable code of an output that could not be written: a report file (`--junit`, `--output`) or standard
    /// output itself.
    static let notWrittenCode = "outputNotWritten"

    /// Writes `text` to `path`; nil when it was written, else why not and what to check, for a message about `what`.
    static func write(_ text: String, to path: String, what: String) -> String? {
        do {
            try AtomicFile.write(text, to: path, mode: 0o644)
            return nil
        } catch {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
                return "the \(what) could not be written: \(path) is a directory; give the path of a file (in it, or elsewhere)"
            }
            return "the \(what) could not be written (\(error)); check that \(path)'s directory exists and is writable"
        }
    }
}
