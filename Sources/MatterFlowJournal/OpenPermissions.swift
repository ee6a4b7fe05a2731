#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What others than its owner may do with a file or directory that holds secrets, for a warning that names its mode.
public struct OpenPermissions: Sendable, Hashable {
    /// The permission bits (`0o755`).
    public var mode: mode_t
    /// The mode as `ls` and `chmod` write it, in four octal digits (`0755`).
    public var octal: String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
    /// Whether the group or others may write it (for a directory: remove or add files).
    public var othersMayWrite: Bool { mode & 0o022 != 0 }

    /// The permissions of what is at `path` (following links) when the group or others have any; nil when they have
    /// none, when nothing is there, or when it is not a directory and `directory` asks for one (or the other way).
    public static func of(_ path: String, directory: Bool) -> OpenPermissions? {
        var info = stat()
        guard stat(path, &info) == 0, ((info.st_mode & S_IFMT) == S_IFDIR) == directory else { return nil }
        let mode = info.st_mode & 0o777
        return mode & 0o077 == 0 ? nil : OpenPermissions(mode: mode)
    }
}
