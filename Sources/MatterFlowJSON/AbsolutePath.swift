#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Paths made absolute against the working directory: what a journal records of a workflow file, what `submit`
/// queues for workers elsewhere, and how `validate` and `graph` tell two spellings of one file apart.
public enum AbsolutePath {
    /// The working directory; nil when it cannot be read (removed, or beyond `PATH_MAX`).
    public static var workingDirectory: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// `path` made absolute against the working directory, as the system resolves it: a leading `./` dropped, `..`
    /// kept (after a symbolic link it leads elsewhere than its text says). What a journal records of a workflow
    /// file, and what `submit` queues for workers elsewhere. An empty path, or one relative to a working directory
    /// that cannot be read, is given back as it is.
    public static func of(_ path: String) -> String {
        guard !path.isEmpty, !path.hasPrefix("/"), let directory = workingDirectory else { return path }
        let relative = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        return directory == "/" ? "/" + relative : directory + "/" + relative
    }

    /// ``of(_:)`` with its `.` and `..` components and repeated or trailing `/` taken out by their text: how `validate`
    /// and `graph` tell two spellings of one file apart (a symbolic link is not followed).
    public static func key(_ path: String) -> String {
        let joined = of(path)
        guard joined.hasPrefix("/") else { return joined }
        var components: [Substring] = []
        for component in joined.split(separator: "/", omittingEmptySubsequences: true) {
            switch component {
            case ".": continue
            case "..": _ = components.popLast()
            default: components.append(component)
            }
        }
        return "/" + components.joined(separator: "/")
    }
}
