#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MatterFlowJSON

/// Whether a state directory can be used at all, found out when the store is opened, before any hub call: a
/// directory that cannot hold the state would otherwise fail the run at its first change, midway.
extension HomeStateStore {
    /// The code of a state directory that is not a directory, or where nothing can be written.
    public static let unusableDirectoryCode = "unusableStateDirectory"

    /// Checks that `directory` is a directory this process can write in, or, when missing, that it can be created
    /// (its nearest existing ancestor is a directory this process can create one in). Leaves nothing behind.
    /// - Throws: an `unusableStateDirectory` diagnostic naming the path and the system's reason.
    static func checkUsable(directory: String) throws(DiagnosticsError) {
        func unusable(_ message: String) -> DiagnosticsError {
            DiagnosticsError([
                Diagnostic(severity: .error, code: unusableDirectoryCode, message: message, file: directory)
            ])
        }
        var info = stat()
        if stat(directory, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else {
                throw unusable("the state directory exists but is not a directory; name a directory (it is created when missing)")
            }
            if let reason = probeFile(in: directory) {
                throw unusable("nothing can be written in the state directory (\(reason)); check its permissions or name another directory")
            }
            return
        }
        guard errno == ENOENT || errno == ENOTDIR else {
            throw unusable("the state directory cannot be used (\(String(cString: strerror(errno)))); name another directory")
        }
        // Missing: find the nearest existing ancestor, which must be a directory this process can create one in.
        var ancestor = parent(of: directory)
        while stat(ancestor, &info) != 0 {
            guard errno == ENOENT || errno == ENOTDIR else {
                throw unusable("the state directory cannot be created: \(ancestor): \(String(cString: strerror(errno)))")
            }
            ancestor = parent(of: ancestor)
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw unusable("the state directory cannot be created: \(ancestor) is not a directory")
        }
        if let reason = probeDirectory(in: ancestor) {
            throw unusable("the state directory cannot be created in \(ancestor) (\(reason)); check its permissions or name another directory")
        }
    }

    /// Creates and removes a file in `directory`; nil when that works, else the system's reason.
    private static func probeFile(in directory: String) -> String? {
        let probe = probeName(in: directory)
        let descriptor = open(probe, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { return String(cString: strerror(errno)) }
        close(descriptor)
        unlink(probe)
        return nil
    }

    /// Creates and removes a directory in `directory`; nil when that works, else the system's reason.
    private static func probeDirectory(in directory: String) -> String? {
        let probe = probeName(in: directory)
        guard mkdir(probe, 0o700) == 0 else { return String(cString: strerror(errno)) }
        rmdir(probe)
        return nil
    }

    private static func probeName(in directory: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let suffix = String(generator.next() & 0xFFFF_FFFF, radix: 16)
        return (directory.hasSuffix("/") ? directory : directory + "/") + ".matterflow-probe.\(getpid()).\(suffix)"
    }

    /// The directory holding `path`: `a/b` for `a/b/c`, `.` for a name alone, `/` for `/c`.
    private static func parent(of path: String) -> String {
        var trimmed = Substring(path)
        while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return "." }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }
}
