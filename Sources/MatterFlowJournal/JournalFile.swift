import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MatterFlowJSON

/// The system calls journals need: create, lock, append, flush, truncate, read. Every failure names the path and
/// the system's reason.
package struct JournalFile: Sendable {
    let path: String
    let descriptor: Int32

    /// Creates a new journal file (failing if it exists), readable and writable by its owner only (it holds salted
    /// digests of secrets), and locks it for this process.
    static func create(_ path: String) throws(JournalError) -> JournalFile {
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure(.journalUnwritable, "cannot create \(path)") }
        // Blocking: a recovery that happens to examine the new, empty file releases it at once.
        while flock(descriptor, LOCK_EX) != 0 && errno == EINTR {}
        return JournalFile(path: path, descriptor: descriptor)
    }

    /// Opens an existing journal and takes its lock without waiting; nil when another process holds it. Only a
    /// regular file in its own right: recovery writes to what it opens, so a symbolic link (which could lead out
    /// of the directory) or a device is refused.
    static func openLocked(_ path: String) throws(JournalError) -> JournalFile? {
        let descriptor = open(path, O_RDWR | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ELOOP {
                throw JournalError(
                    .journalUnreadable, "\(path) is a symbolic link; a journal is a regular file of the directory, and recovery writes to it, so it does not follow links")
            }
            if errno == EROFS || errno == EACCES || errno == EPERM {
                // Recovery appends to the journal: one it may read but not write is left as it is, for later.
                let reason = String(cString: strerror(errno))
                throw JournalError(
                    .journalUnwritable,
                    "cannot open \(path) for writing (\(reason)): recovery appends to a journal, so nothing was changed; make it writable, then recover again")
            }
            throw failure(.journalUnreadable, "cannot open \(path)")
        }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            _ = systemClose(descriptor)
            throw JournalError(.journalUnreadable, "\(path) is not a regular file; a journal is one, written by `matterflow run --journal`")
        }
        if flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            _ = systemClose(descriptor)
            return nil
        }
        return JournalFile(path: path, descriptor: descriptor)
    }

    /// Whether something is at `path`.
    static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

    /// Whether a live process holds the journal's lock (its run is going on).
    static func isLockedByAnother(_ path: String) -> Bool {
        // Without waiting: a FIFO left in the directory would hold `open` for ever.
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return false }
        defer { _ = systemClose(descriptor) }
        if flock(descriptor, LOCK_SH | LOCK_NB) != 0 { return errno == EWOULDBLOCK }
        flock(descriptor, LOCK_UN)
        return false
    }

    /// Appends bytes (all of them, retrying short writes).
    func append(_ bytes: [UInt8]) throws(JournalError) {
        var written = 0
        while written < bytes.count {
            let result = bytes[written...].withUnsafeBytes { buffer in systemWrite(descriptor, buffer.baseAddress, buffer.count) }
            if result < 0 {
                if errno == EINTR { continue }
                throw Self.failure(.journalUnwritable, "cannot write \(path)")
            }
            written += result
        }
    }

    /// Flushes the file's data to disk.
    func sync() throws(JournalError) {
        guard fsync(descriptor) == 0 else { throw Self.failure(.journalUnwritable, "cannot flush \(path)") }
    }

    /// Cuts the file to `length` bytes (dropping a torn tail) and flushes.
    func truncate(to length: Int) throws(JournalError) {
        guard ftruncate(descriptor, off_t(length)) == 0 else { throw Self.failure(.journalUnwritable, "cannot truncate \(path)") }
        try sync()
    }

    /// Removes a file's name from its directory (the caller holds its lock).
    static func remove(_ path: String) throws(JournalError) {
        guard unlink(path) == 0 else { throw failure(.journalUnwritable, "cannot remove \(path)") }
    }

    /// Releases the lock and closes the file.
    func close() {
        flock(descriptor, LOCK_UN)
        _ = Self.systemClose(descriptor)
    }

    /// Reads a whole file.
    static func readAll(_ path: String) throws(JournalError) -> [UInt8] {
        // Only a regular file is a journal: a FIFO left in the directory would read as an empty one.
        switch FileBytes.contents(of: path, regularOnly: true) {
        case .success(let bytes): return bytes
        case .failure(.cannotOpen(let reason)):
            throw JournalError(reason == ENOENT ? .runNotFound : .journalUnreadable, "cannot open \(path): \(String(cString: strerror(reason)))")
        case .failure(.cannotRead(let reason)):
            let why = reason == EISDIR ? "it is a directory, not a journal file; remove it from the journal directory" : String(cString: strerror(reason))
            throw JournalError(.journalUnreadable, "cannot read \(path): \(why)")
        case .failure(.tooLarge):
            throw JournalError(.journalUnreadable, "cannot read \(path): it is larger than a journal file can be")
        case .failure(.notAFile):
            throw JournalError(.journalUnreadable, "\(path) is a FIFO, device or socket, not a journal file; remove it from the journal directory")
        }
    }

    /// Creates a directory and its parents when missing. The directory itself, when created here, is open to its
    /// owner only (mode 0700); parents get 0755, and a directory that exists already keeps its mode.
    static func createDirectory(_ path: String) throws(JournalError) {
        var partial = path.hasPrefix("/") ? "/" : ""
        let components = path.split(separator: "/")
        for (index, component) in components.enumerated() {
            partial += (partial.isEmpty || partial.hasSuffix("/") ? "" : "/") + component
            let mode: mode_t = index == components.count - 1 ? 0o700 : 0o755
            if mkdir(partial, mode) != 0 && errno != EEXIST {
                throw failure(.journalUnwritable, "cannot create the journal directory \(partial)")
            }
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT != S_IFDIR {
            throw JournalError(
                .journalUnwritable,
                "\(path) is not a directory; a journal is a directory (made when missing) with a file per run: give another path")
        }
    }

    /// Checks that a journal directory exists without creating anything: `journalNotFound` when nothing is
    /// there, `journalUnreadable` when the path is not a directory.
    static func requireDirectory(_ path: String) throws(JournalError) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            guard errno == ENOENT || errno == ENOTDIR else { throw failure(.journalUnreadable, "cannot read the journal directory \(path)") }
            throw JournalError(
                .journalNotFound,
                "the journal directory \(path) does not exist; check the path: it is the directory given to "
                    + "`matterflow run --journal` (nothing was created)")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw JournalError(.journalUnreadable, "\(path) is not a directory; pass the journal directory given to `matterflow run --journal`")
        }
    }

    /// Flushes a directory, so a file created in it survives a crash.
    static func syncDirectory(_ path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return }
        _ = fsync(descriptor)
        _ = systemClose(descriptor)
    }

    /// The names in a directory, sorted, without `.` and `..`.
    package static func list(_ path: String) throws(JournalError) -> [String] {
        guard let directory = opendir(path) else { throw failure(.journalUnreadable, "cannot list \(path)") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = entryName(entry)
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// The name of a directory entry, read where it lies. The kernel's record is only as long as its name: loading
    /// the whole `dirent` (`entry.pointee`, 280 bytes) reads past the end of a short last record, and faults when
    /// the buffer `readdir` filled ends at the end of mapped memory.
    static func entryName(_ entry: UnsafePointer<dirent>) -> String {
        let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 0
        return String(cString: (UnsafeRawPointer(entry) + nameOffset).assumingMemoryBound(to: CChar.self))
    }

    /// The current wall-clock time of this machine, in seconds since the Unix epoch.
    package static func wallTime() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    /// This process's ID.
    static var processID: Int { Int(getpid()) }


    /// A directory's path made absolute and plain (no `.`, `..`, trailing `/` or symbolic links), so two spellings of
    /// one directory compare equal.
    static func directoryPath(_ path: String) -> String {
        URL(fileURLWithPath: AbsolutePath.of(path)).resolvingSymlinksInPath().standardizedFileURL.path
    }

    private static func failure(_ code: JournalError.Code, _ what: String) -> JournalError {
        JournalError(code, "\(what): \(String(cString: strerror(errno)))")
    }

    private static func systemClose(_ descriptor: Int32) -> Int32 {
        #if canImport(Glibc)
        Glibc.close(descriptor)
        #else
        Darwin.close(descriptor)
        #endif
    }

    private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
        Glibc.write(descriptor, buffer, count)
        #else
        Darwin.write(descriptor, buffer, count)
        #endif
    }
}
