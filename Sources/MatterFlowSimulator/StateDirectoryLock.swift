#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import MatterFlow

/// An advisory lock (`flock`) on a state directory itself, held by one process at a time: what serialises the
/// read-modify-write cycles of processes sharing the directory. Locking the directory (not a file in it) leaves
/// nothing behind, and survives `home.json` being replaced by rename.
///
/// The kernel releases the lock when the holder closes the file or dies, even by `SIGKILL`, so a killed process
/// never leaves the directory locked.
enum StateDirectoryLock {
    /// How long a process waits for another one's lock before giving up with `hubFailure`.
    static let patience: Duration = .seconds(10)

    /// Runs `body` holding the exclusive lock of the directory at `path` (created when missing).
    static func withExclusiveLock<T>(
        path: String, _ body: () throws(FlowError) -> T
    ) throws(FlowError) -> T {
        do {
            try AtomicFile.createDirectory(path)
        } catch {
            throw FlowError(.hubFailure, "the simulated hub could not create the state directory \(path) (\(error)); check the --state directory")
        }
        let descriptor = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FlowError(
                .hubFailure,
                "the simulated hub could not open the state directory \(path) (\(String(cString: strerror(errno)))); check the --state directory")
        }
        defer { close(descriptor) }
        let deadline = ContinuousClock.now + patience
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                throw FlowError(.hubFailure, "the simulated hub could not lock \(path) (\(String(cString: strerror(errno))))")
            }
            guard ContinuousClock.now < deadline else {
                throw FlowError(
                    .hubFailure,
                    "another process has held the state lock \(path) for more than \(patience); is a matterflow process stuck on this --state directory?")
            }
            usleep(500)
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}

/// The wall clock, in seconds since the Unix epoch: where the simulated hub's time starts (lease deadlines are
/// persisted in it, so they mean the same in every process).
enum WallClock {
    static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
