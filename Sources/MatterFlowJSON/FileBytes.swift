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
        /// The path names a device or a socket (or a pipe, where only a regular file will do), not a file: a device
        /// such as `/dev/zero` never ends.
        case notAFile
    }

    /// The bytes of the file at `path`, at most `limit` of them; with `regularOnly`, a pipe is ``Failure/notAFile``
    /// too (a journal is never one).
    public static func contents(of path: String, limit: Int = .max, regularOnly: Bool = false) -> Result<[UInt8], Failure> {
        stampedContents(of: path, limit: limit, regularOnly: regularOnly).map(\.bytes)
    }

    /// The bytes of the file at `path`, at most `limit` of them, with its stamp taken before they were read: a
    /// change made while or after they were read gives the file another stamp.
    public static func stampedContents(
        of path: String, limit: Int = .max, regularOnly: Bool = false
    ) -> Result<(bytes: [UInt8], stamp: FileStamp), Failure> {
        // A C path ends at its first NUL: a path holding one names no file (as Foundation answers).
        guard !path.utf8.contains(0) else { return .failure(.cannotOpen(errno: ENOENT)) }
        // Opened without waiting, as a FIFO with no writer would keep `open` waiting for ever (and a signal with it).
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else { return .failure(.cannotOpen(errno: errno)) }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(.cannotRead(errno: errno)) }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            // O_NONBLOCK changes nothing for a regular file's reads.
            break
        case S_IFIFO where !regularOnly:
            // A pipe (`<(command)`) is read to its writer's end; one with no writer ends at once.
            let flags = fcntl(descriptor, F_GETFL)
            guard flags >= 0, fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) == 0 else { return .failure(.cannotRead(errno: errno)) }
        case S_IFDIR:
            return .failure(.cannotRead(errno: EISDIR))
        default:
            return .failure(.notAFile)
        }
        guard Int(info.st_size) <= limit else { return .failure(.tooLarge(limit: limit)) }
        return readToEnd(descriptor, sizeHint: Int(info.st_size), limit: limit).map { ($0, FileStamp(info)) }
    }

    /// The bytes an open descriptor gives until its end, at most `limit` of them: standard input, whether a file, a
    /// pipe or a socket (a socket cannot be opened by a path such as `/dev/stdin`, which is what a parent process that
    /// passes a socket pair gives). A directory, a terminal or a device is refused; the descriptor stays open.
    public static func contents(ofDescriptor descriptor: Int32, limit: Int = .max) -> Result<[UInt8], Failure> {
        var info = stat()
        guard fstat(descriptor, &info) == 0 else { return .failure(.cannotRead(errno: errno)) }
        switch info.st_mode & S_IFMT {
        case S_IFREG, S_IFIFO, S_IFSOCK: break
        case S_IFDIR: return .failure(.cannotRead(errno: EISDIR))
        default: return .failure(.notAFile)
        }
        guard Int(info.st_size) <= limit else { return .failure(.tooLarge(limit: limit)) }
        return readToEnd(descriptor, sizeHint: Int(info.st_size), limit: limit)
    }

    /// Reads `descriptor` to its end, at most `limit` bytes; a descriptor left non-blocking by whoever passed it is
    /// waited on when it has nothing yet.
    private static func readToEnd(_ descriptor: Int32, sizeHint: Int, limit: Int) -> Result<[UInt8], Failure> {
        // Room for the size fstat gave and one byte more, so that a file of that size is read in one call and its
        // end seen in the next; doubled whenever a file turns out longer (or reports no size, as devices do).
        var capacity = max(sizeHint, 0) + 1
        guard var storage = malloc(capacity) else { return .failure(.cannotRead(errno: ENOMEM)) }
        defer { free(storage) }
        var filled = 0
        while true {
            if filled == capacity {
                let grown = capacity > Int.max / 2 ? Int.max : max(2 * capacity, 4_096)
                guard let moved = realloc(storage, grown) else { return .failure(.cannotRead(errno: ENOMEM)) }
                (storage, capacity) = (moved, grown)
            }
            let count = read(descriptor, storage + filled, capacity - filled)
            if count < 0 {
                if errno == EINTR { continue }
                if errno == EAGAIN || errno == EWOULDBLOCK {
                    var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
                    _ = poll(&ready, 1, -1)
                    continue
                }
                return .failure(.cannotRead(errno: errno))
            }
            if count == 0 { break }
            filled += count
            guard filled <= limit else { return .failure(.tooLarge(limit: limit)) }
        }
        return .success([UInt8](UnsafeBufferPointer(start: storage.bindMemory(to: UInt8.self, capacity: filled), count: filled)))
    }

    /// The stamp of the file at `path` now (following symbolic links, as reading does); nil when it has none to
    /// give (missing, unreadable directory).
    public static func stamp(of path: String) -> FileStamp? {
        guard !path.utf8.contains(0) else { return nil }
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return FileStamp(info)
    }
}

/// What `stat` tells of a file that changes whenever its bytes change: which file it is (device and inode), its
/// size, and the times of its last modification and last change, to the nanosecond. Writing a file, renaming
/// another over it or changing its times all give it another stamp, except a change made within the same tick of
/// the file system's clock as the stamp: ``latestTime`` lets a caller tell a stamp too recent to vouch for the bytes.
public struct FileStamp: Equatable, Sendable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: Timestamp
    var changed: Timestamp

    /// A time of the file system, in seconds and nanoseconds since 1970.
    public struct Timestamp: Equatable, Comparable, Sendable {
        /// Whole seconds since 1970-01-01 00:00:00 UTC.
        public var seconds: Int
        /// Nanoseconds past ``seconds``; 0 through 999,999,999 in a time the system gives.
        public var nanoseconds: Int

        /// Creates a time from whole seconds since 1970 and the nanoseconds past them, taken as they are.
        public init(seconds: Int, nanoseconds: Int) {
            self.seconds = seconds
            self.nanoseconds = nanoseconds
        }

        /// Whether `lhs` is earlier than `rhs`: by seconds, then by nanoseconds.
        public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
            (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
        }
    }

    init(_ info: stat) {
        device = UInt64(truncatingIfNeeded: info.st_dev)
        inode = UInt64(truncatingIfNeeded: info.st_ino)
        size = Int64(info.st_size)
        modified = Timestamp(seconds: Int(info.st_mtim.tv_sec), nanoseconds: Int(info.st_mtim.tv_nsec))
        changed = Timestamp(seconds: Int(info.st_ctim.tv_sec), nanoseconds: Int(info.st_ctim.tv_nsec))
    }

    /// The later of the modification and change times.
    public var latestTime: Timestamp { max(modified, changed) }
}
