import Foundation
import MatterFlowSimulator

#if canImport(Glibc)
import Glibc
#endif

/// A report a command writes to a file named on its command line (`test --junit`, `store metrics --output`,
/// `worker --metrics-file`): replaced whole (a reader never sees half of it), readable by others (a CI system or a
/// collector running as another user).
///
/// A symbolic link is written through: the file it names is replaced, and the link stays. A path that names no
/// regular file (a device such as `/dev/null` or `/dev/stdout`, a FIFO a reader holds open) is written into as it is,
/// never replaced by a file.
enum ReportFile {
    /// The stable code of an output that could not be written: a report file (`--junit`, `--output`) or standard
    /// output itself.
    static let notWrittenCode = "outputNotWritten"

    /// Writes `text` to `path`; nil when it was written, else why not and what to check, for a message about `what`.
    static func write(_ text: String, to path: String, what: String) -> String? {
        switch AtomicFile.destination(of: path) {
        case .inPlace: return writeInPlace(text, to: path, what: what)
        case .blockDeviceOrSocket: return "the \(what) could not be written: \(path) is a block device or a socket; give the path of a file"
        case .file, .directory: break  // a directory is named by the write's failure below
        }
        do {
            // A symbolic link is written through by the write itself.
            try AtomicFile.write(text, to: path, mode: 0o644)
            return nil
        } catch {
            let target = AtomicFile.linkTarget(of: path) ?? path
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: target, isDirectory: &isDirectory), isDirectory.boolValue {
                return "the \(what) could not be written: \(path) is a directory; give the path of a file (in it, or elsewhere)"
            }
            return "the \(what) could not be written (\(error)); check that \(target)'s directory exists and is writable"
        }
    }

    /// How long a write into a FIFO or a device may wait for its reader.
    static let inPlaceWait: Int32 = 10_000

    /// Writes `text` into the character device or FIFO at `path` as it is: a FIFO no process reads is refused at
    /// once, and one whose reader stops reading (or goes away) fails the write after ``inPlaceWait`` milliseconds
    /// (or at once), never waited on for ever nor ending this process (SIGPIPE is ignored).
    private static func writeInPlace(_ text: String, to path: String, what: String) -> String? {
        let descriptor = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            let reason = errno == ENXIO ? "no process reads it" : String(cString: strerror(errno))
            return "the \(what) could not be written to \(path), which is not a regular file (\(reason))"
        }
        defer { close(descriptor) }
        signal(SIGPIPE, SIG_IGN)
        let deadline = ContinuousClock.now + .milliseconds(Int(inPlaceWait))
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written >= 0 {
                bytes = bytes.dropFirst(written)
                continue
            }
            if errno == EINTR { continue }
            guard errno == EAGAIN || errno == EWOULDBLOCK else {
                return "the \(what) could not be written to \(path) (\(String(cString: strerror(errno))))"
            }
            let left = deadline - ContinuousClock.now
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000)
            var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            guard milliseconds > 0, poll(&ready, 1, milliseconds) > 0 else {
                return "the \(what) could not be written to \(path): its reader took nothing for \(inPlaceWait / 1000) s"
            }
        }
        return nil
    }
}
