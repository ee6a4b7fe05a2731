#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file's contents atomically: readers see the old file or the new one, never a mix, even when the
/// writing process is killed midway.
///
/// The text goes to a temporary file in the same directory, which is flushed to disk, renamed over the target,
/// and the directory is flushed so the rename itself survives a crash. The package's commands write their reports
/// (`matterflow test --junit`) with it too.
package enum AtomicFile {
    /// Why a write failed: the step and the system's reason.
    package struct WriteError: Error, Sendable, CustomStringConvertible {
        var step: String
        var reason: String

        /// A failure of `step`, for `reason`.
        package init(step: String, reason: String) {
            self.step = step
            self.reason = reason
        }

        package var description: String { "\(step): \(reason)" }
    }

    /// Creates a directory and its parents when missing. The directory itself, when created here, is open to its
    /// owner only (mode 0700); parents get 0755, and a directory that exists already keeps its mode.
    package static func createDirectory(_ path: String) throws(WriteError) {
        var partial = path.hasPrefix("/") ? "/" : ""
        let components = path.split(separator: "/")
        for (index, component) in components.enumerated() {
            partial += (partial.isEmpty || partial.hasSuffix("/") ? "" : "/") + component
            let mode: mode_t = index == components.count - 1 ? 0o700 : 0o755
            if mkdir(partial, mode) != 0 && errno != EEXIST {
                throw WriteError(step: "cannot create directory \(partial)", reason: lastError())
            }
        }
    }

    /// Writes `text` to `path` atomically, as a file with `mode` (less the umask): by default readable and writable
    /// by its owner only (a home can hold a Thread network's credentials). A symbolic link is written through: the
    /// file it leads to is replaced, and the link stays.
    package static func write(_ text: String, to given: String, mode: mode_t = 0o600) throws(WriteError) {
        let path = linkTarget(of: given) ?? given
        var link = stat()
        if lstat(path, &link) == 0, link.st_mode & S_IFMT == S_IFLNK {
            throw WriteError(step: "cannot follow \(given)", reason: "too many levels of symbolic links")
        }
        let directory = parent(of: path)
        let name = String(path.split(separator: "/").last ?? "file")
        var generator = SystemRandomNumberGenerator()
        let temporary = directory + "/." + name + ".\(getpid()).\(String(generator.next() & 0xFFFF_FFFF, radix: 16)).tmp"

        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC, mode)
        guard descriptor >= 0 else { throw WriteError(step: "cannot create \(temporary)", reason: lastError()) }
        var failure: WriteError?
        let bytes = Array(text.utf8)
        var written = 0
        while written < bytes.count && failure == nil {
            let result = bytes[written...].withUnsafeBytes { buffer in
                systemWrite(descriptor, buffer.baseAddress, buffer.count)
            }
            if result < 0 {
                if errno == EINTR { continue }
                failure = WriteError(step: "cannot write \(temporary)", reason: lastError())
            } else {
                written += result
            }
        }
        if failure == nil && fsync(descriptor) != 0 {
            failure = WriteError(step: "cannot flush \(temporary)", reason: lastError())
        }
        close(descriptor)
        if failure == nil && rename(temporary, path) != 0 {
            failure = WriteError(step: "cannot replace \(path)", reason: lastError())
        }
        if let failure {
            unlink(temporary)
            throw failure
        }
        let directoryDescriptor = open(directory, O_RDONLY)
        if directoryDescriptor >= 0 {
            // Best effort: some file systems refuse to fsync a directory; the rename has happened either way.
            _ = fsync(directoryDescriptor)
            close(directoryDescriptor)
        }
    }

    /// Why ``write(_:to:mode:)`` could not write `path`, found without writing it: `path` is a directory, or no
    /// file can be created beside it (a directory missing, or not writable). Nil when a write would get that far.
    /// A symbolic link is judged by the file it leads to; a character device or a FIFO by whether it may be written
    /// (reports are written into one); a block device or a socket is refused, as no report is written there.
    package static func writeProblem(_ given: String) -> WriteError? {
        let path = linkTarget(of: given) ?? given
        switch destination(of: path) {
        case .directory: return WriteError(step: "cannot replace \(path)", reason: "it is a directory")
        case .inPlace: return access(path, W_OK) == 0 ? nil : WriteError(step: "cannot write \(path)", reason: lastError())
        case .blockDeviceOrSocket: return WriteError(step: "cannot write \(path)", reason: "it is a block device or a socket")
        case .file: break
        }
        var generator = SystemRandomNumberGenerator()
        let probe = parent(of: path) + "/.matterflow-probe.\(getpid()).\(String(generator.next() & 0xFFFF_FFFF, radix: 16)).tmp"
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { return WriteError(step: "cannot create a file in \(parent(of: path))", reason: lastError()) }
        close(descriptor)
        unlink(probe)
        return nil
    }

    /// What a path a report is written to names, symbolic links followed.
    package enum Destination: Sendable {
        /// A regular file, or nothing yet: a write replaces it whole.
        case file
        /// A character device or a FIFO (`/dev/stdout`, a pipe a reader holds open): written into as it is.
        case inPlace
        /// A directory: nothing is written.
        case directory
        /// A block device or a socket: no report is written there.
        case blockDeviceOrSocket
    }

    /// What `path` names, links followed (``Destination/file`` when it names nothing, or cannot be looked at).
    package static func destination(of path: String) -> Destination {
        var status = stat()
        guard !path.utf8.contains(0), stat(path, &status) == 0 else { return .file }
        switch status.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFCHR, S_IFIFO: return .inPlace
        case S_IFBLK, S_IFSOCK: return .blockDeviceOrSocket
        default: return .file
        }
    }

    /// The path a symbolic link at `path` leads to, links followed to the last (which may name a file not there
    /// yet); nil when `path` is no link. Relative targets are taken from the link's directory.
    package static func linkTarget(of path: String) -> String? {
        var current = path
        for _ in 0..<40 {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = readlink(current, &buffer, buffer.count - 1)
            guard count > 0 else { return current == path ? nil : current }
            let destination = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            current = destination.hasPrefix("/") || !current.contains("/") ? destination : parent(of: current) + "/" + destination
        }
        return current
    }

    /// The directory part of a path (`.` for a bare name).
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        let head = String(path[..<slash])
        return head.isEmpty ? "/" : head
    }

    private static func lastError() -> String {
        String(cString: strerror(errno))
    }

    private static func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
        #else
        Darwin.write(descriptor, buffer, count)
        #endif
    }
}
