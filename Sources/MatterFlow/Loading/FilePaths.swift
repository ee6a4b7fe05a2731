import Foundation

/// The path arithmetic of loading sub-workflows, as plain string operations where the answer is plain, with
/// Foundation's `URL` for everything else.
///
/// `URL(fileURLWithPath:)` asks the file system whether each path is a directory, and its arithmetic allocates a
/// URL per step: for every file of a load, that was more than parsing it. The answers here are exactly
/// Foundation's (diagnostics show these paths): the plain case is an absolute path without empty, `.` or `..`
/// segments and without a trailing slash, whose standard form is itself and whose directory is what precedes
/// its last slash; anything else (relative paths, `~`, dots, doubled slashes) is left to `URL`.
enum FilePaths {
    /// The path as `URL(fileURLWithPath:).standardizedFileURL.path` gives it.
    static func standardized(_ path: String) -> String {
        isPlain(path) ? path : URL(fileURLWithPath: path).standardizedFileURL.path
    }

    /// The directory of a file, as `URL(fileURLWithPath:).deletingLastPathComponent().path` gives it.
    static func directory(of path: String) -> String {
        guard isPlain(path), let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else {
            return URL(fileURLWithPath: path).deletingLastPathComponent().path
        }
        return slash == path.utf8.startIndex ? "/" : String(path[..<slash])
    }

    /// A relative path resolved in a directory, as `URL(fileURLWithPath:).appendingPathComponent(_:).path` gives
    /// it.
    static func appending(_ relative: String, to directory: String) -> String {
        guard isPlain(directory), isPlainRelative(relative) else {
            return URL(fileURLWithPath: directory).appendingPathComponent(relative).path
        }
        return directory + "/" + relative
    }

    /// Whether a path is absolute with only named segments (none empty, `.` or `..`) and no trailing slash.
    static func isPlain(_ path: String) -> Bool {
        let bytes = path.utf8
        guard bytes.count > 1, bytes.first == UInt8(ascii: "/") else { return false }
        return hasOnlyNamedSegments(bytes.dropFirst())
    }

    /// Whether a relative path has only named segments (none empty, `.` or `..`) and no trailing slash.
    static func isPlainRelative(_ path: String) -> Bool {
        let bytes = path.utf8
        guard let first = bytes.first, first != UInt8(ascii: "/"), first != UInt8(ascii: "~") else { return false }
        return hasOnlyNamedSegments(bytes[...])
    }

    /// Whether slash-separated segments are all named: not empty and not only dots (`.`, `..`; `...` is a name
    /// too, but rare enough to leave to `URL`).
    private static func hasOnlyNamedSegments(_ bytes: Substring.UTF8View) -> Bool {
        var segmentLength = 0
        var dots = 0
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if segmentLength == 0 || segmentLength == dots { return false }
                segmentLength = 0
                dots = 0
                continue
            }
            segmentLength += 1
            if byte == UInt8(ascii: ".") { dots += 1 }
        }
        return segmentLength > 0 && segmentLength != dots
    }
}
