#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file with the system's calls: opened, sized by `fstat`, then read to its end (the size is a hint:
/// a file that grows, or one that reports no size, is read to its end all the same). Workflow and home files,
/// journals and secrets files are all read here.
public enum FileBytes {
    /// Why a file's bytes could not be read.
    public enum Failure: Error, Equatable, Sendable {
        /// `open` failed with this `errno` (a path holding a NUL names no file: `ENOENT`).
        case cannotOpen(errno: Int32)
        /// `fstat` or `read` failed with this `errno`.
        case cannotRead(errno: Int32)
        /// The file holds more than the limit asked for.
        case tooLarge(limit: Int)
    }

    /// The bytes of the file at `path`, at most `limit` of them.
    public static func contents(of path: String, limit: Int = .max) -> Result<[UInt8], Failure> {
        // A C path ends at its first NUL: a path holding one names no file (as Foundation answers).
        guard !path.utf8.contains(0) else { return .failure(.cannotOpen(errno: ENOENT)) }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return .failure(.cannotOpen(errno: errno)) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(.cannotRead(errno: errno)) }
        guard Int(info.st_size) <= limit else { return .failure(.tooLarge(limit: limit)) }
        var bytes = [UInt8](repeating: 0, count: max(Int(info.st_size), 0) + 1)
        var filled = 0
        while true {
            if filled == bytes.count { bytes.append(contentsOf: repeatElement(0, count: max(bytes.count, 4_096))) }
            let count = bytes.withUnsafeMutableBytes { buffer in
                read(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
            }
            if count < 0 {
                if errno == EINTR { continue }
                return .failure(.cannotRead(errno: errno))
            }
            if count == 0 { break }
            filled += count
            guard filled <= limit else { return .failure(.tooLarge(limit: limit)) }
        }
        bytes.removeSubrange(filled...)
        return .success(bytes)
    }
}
