import Foundation
@_spi(Spawning) import MatterFlowHubProtocol
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child process that inherits nothing but its three standard streams, and whose end is seen by `waitpid`.
///
/// Foundation's `Process` is not used for the suite's children, because on Linux it sees a child end only when
/// every copy of a socket it gives the child is closed, and it closes the other descriptors in the child from a list
/// taken before it spawns. A process another test starts at the same moment (or with a plain `posix_spawn`, such
/// as a PostgreSQL server) can then keep that socket, or a copy of the child's output pipe, for as long as it lives,
/// and the child looks as if it never exited. Here every descriptor the suite opens for a child is close-on-exec
/// from its creation, and the child closes every descriptor above 2 before it runs (`closefrom` in `posix_spawn`).
final class SpawnedProcess: Sendable {
    /// How a child ended.
    enum TerminationReason: Sendable, Equatable {
        case exit
        case uncaughtSignal
    }

    let processIdentifier: Int32
    /// The raw `waitpid` status and when it was taken, once the child has ended.
    private let ending = Mutex<(status: Int32, moment: ContinuousClock.Instant)?>(nil)

    /// Starts `executable` with `arguments` in its own process group, in `directory`, with `environment`; its
    /// standard input, output and error are the given descriptors (which the caller keeps and closes).
    init(
        executable: String, arguments: [String], environment: [String: String], directory: String?,
        input: Int32, output: Int32, error: Int32
    ) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input, 0)
        posix_spawn_file_actions_adddup2(&actions, output, 1)
        posix_spawn_file_actions_adddup2(&actions, error, 2)
        if let directory {
            let status = SpawnExtensions.addChdir(&actions, directory)
            guard status == 0 else { throw SpawnError(message: "cannot set the child's directory: \(String(cString: strerror(status)))") }
        }
        let closing = SpawnExtensions.addCloseFrom(&actions, 3)
        guard closing == 0 else { throw SpawnError(message: "cannot close the child's other descriptors: \(String(cString: strerror(closing)))") }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        posix_spawnattr_setpgroup(&attributes, 0)
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGQUIT] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { envp.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else { throw SpawnError(message: "cannot start \(executable): \(String(cString: strerror(status)))") }
        processIdentifier = pid
        let child = pid
        let thread = Thread { [self] in
            // Waits for the end without reaping, so that the process ID cannot be reused before the end is recorded;
            // it is reaped under the same lock as ``send(_:)`` signals, so no signal reaches a reused ID.
            var info = siginfo_t()
            while waitid(P_PID, id_t(child), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
            ending.withLock { ending in
                var status: Int32 = 0
                while waitpid(child, &status, 0) < 0 && errno == EINTR {}
                ending = (status, ContinuousClock.now)
            }
        }
        thread.start()
    }

    /// Sends `signal` to the child while it has not been reaped (nothing once it has).
    func send(_ signal: Int32) {
        ending.withLock { ending in
            if ending == nil { _ = kill(processIdentifier, signal) }
        }
    }

    /// Whether the child has not been seen to end.
    var isRunning: Bool { ending.withLock { $0 == nil } }

    /// When the child's end was seen (on the thread that waited for it).
    var exitedAt: ContinuousClock.Instant? { ending.withLock { $0?.moment } }

    /// How it ended (only once it has).
    var terminationReason: TerminationReason {
        (ending.withLock { $0?.status } ?? 0) & 0x7f == 0 ? .exit : .uncaughtSignal
    }

    /// Its exit status, or the signal that ended it (only once it has).
    var terminationStatus: Int32 {
        let status = ending.withLock { $0?.status } ?? 0
        return status & 0x7f == 0 ? (status >> 8) & 0xff : status & 0x7f
    }

    /// A pipe whose two ends are close-on-exec from their creation: (read, write).
    static func pipe() throws -> (read: Int32, write: Int32) {
        guard let pipe = SpawnExtensions.closeOnExecPipe() else {
            throw SpawnError(message: "cannot create a pipe: \(String(cString: strerror(errno)))")
        }
        return pipe
    }
}

struct SpawnError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
