import Foundation
import MatterFlow
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RemoteHub {
    /// Connects to the hub at `endpoint` (starting it, for a command) and performs the handshake. Cancelling the
    /// task ends the wait for the handshake at once: the connection is closed and a started hub stopped.
    /// - Throws: ``FlowError`` `hubUnreachable` when the hub cannot be started or reached, `runCancelled` when the
    ///   task was cancelled, or the handshake's error.
    ///
    /// For a command, it sets SIGPIPE to be ignored in the whole process (a hub that exits must fail the next write
    /// with EPIPE, not end the service); a service that relies on SIGPIPE elsewhere should know. Starting the command
    /// or connecting (at most ``Options/connectLimit`` for TCP) happens on a thread of its own, never on one of the
    /// tasks' threads.
    public static func connect(to endpoint: HubEndpoint, options: Options = Options()) async throws(FlowError) -> RemoteHub {
        let connection = try await HubConnection.opening(endpoint, connectLimit: options.connectLimit, standardError: options.standardError)
        let remote = RemoteHub(channel: connection.channel, options: options) { await connection.stopProcess() }
        let handshake: Result<Handshake, FlowError> = await withTaskCancellationHandler {
            do throws(FlowError) {
                return .success(try await remote.initialize())
            } catch {
                return .failure(error)
            }
        } onCancel: {
            remote.fail(FlowError(.runCancelled, "the handshake was interrupted"))
        }
        if case .failure(let error) = handshake {
            await remote.close()
            throw FlowError(
                code: error.code, cause: error.cause, message: "hub \(endpoint) did not complete the handshake: \(error.message)")
        }
        return remote
    }
}

/// An open connection to a hub: its line channel and, for a command, the child process behind it.
public struct HubConnection: Sendable {
    /// The protocol's lines, both ways.
    public let channel: any LineChannel
    private let child: ChildProcess?

    /// Starts the command, or connects to the socket, of `endpoint`, blocking the calling thread meanwhile (a TCP
    /// connection that is not accepted is given up after `connectLimit`).
    /// - Parameter standardError: For a command, given each line it writes on its standard error (on a thread of its
    ///   own); nil: the command writes on this process's.
    /// - Throws: ``FlowError`` `hubUnreachable` when the hub cannot be started or reached.
    public static func open(
        _ endpoint: HubEndpoint, connectLimit: Duration = .seconds(10), standardError: (@Sendable (String) -> Void)? = nil
    ) throws(FlowError) -> HubConnection {
        switch endpoint {
        case .command(let words):
            let (channel, child) = try startChild(words, standardError: standardError)
            return HubConnection(channel: channel, child: child)
        case .unix(let path):
            return HubConnection(channel: try SocketConnector.connect(unix: path), child: nil)
        case .tcp(let host, let port):
            return HubConnection(channel: try SocketConnector.connect(host: host, port: port, limit: connectLimit), child: nil)
        }
    }

    /// ``open(_:connectLimit:)`` on a thread of its own: the caller's task waits without holding one of the tasks'
    /// threads, which a slow name lookup or connection would otherwise stall.
    public static func opening(
        _ endpoint: HubEndpoint, connectLimit: Duration = .seconds(10), standardError: (@Sendable (String) -> Void)? = nil
    ) async throws(FlowError) -> HubConnection {
        let result: Result<HubConnection, FlowError> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Result { () throws(FlowError) in
                    try open(endpoint, connectLimit: connectLimit, standardError: standardError)
                })
            }
            thread.start()
        }
        return try result.get()
    }

    /// Closes the channel and stops a child process: end of input first, SIGTERM if it is still running 2 s later.
    public func close() async {
        channel.close()
        await stopProcess()
    }

    func stopProcess() async {
        await child?.stop()
    }

    /// Starts `words` as a child process whose standard input and output carry the protocol; its standard error is
    /// this process's, or handed line by line to `standardError`.
    private static func startChild(
        _ words: [String], standardError: (@Sendable (String) -> Void)?
    ) throws(FlowError) -> (FileDescriptorChannel, ChildProcess) {
        // A child that exits makes writes to its pipe fail with EPIPE; SIGPIPE would end this process instead.
        signal(SIGPIPE, SIG_IGN)
        let child = try ChildProcess.spawn(words, standardError: standardError)
        let channel = FileDescriptorChannel(
            .pipes(read: child.output, write: child.input), writesAfterEndOfInput: false,
            endOfInput: { child.exitDescription(within: .milliseconds(500)) ?? "the hub closed its standard output" }, onEnd: {})
        return (channel, child)
    }
}

/// A hub's child process: spawned in a process group of its own, so that Ctrl-C in a terminal reaches MatterFlow
/// (which then runs the workflow's cancel path through the hub) and not the hub; stopped gently.
final class ChildProcess: Sendable {
    let pid: pid_t
    /// This process's ends of the child's standard input and output.
    let input: Int32
    let output: Int32
    /// The reader of its standard error, when that is handed on line by line: ``stop()`` waits for its last line,
    /// so a hub's last words (why it could not start) come before what the caller says next.
    private let errorLines: ErrorLineReader.End?
    private struct State {
        /// How the child ended, once seen. Seen without reaping it: until it is reaped, its ID (its process group's
        /// too) is no other process's, so what it left running in its group can still be signalled safely.
        var ended: String?
        /// The child has been reaped: its ID may be another process's by now, so nothing is sent to it or its group.
        var reaped = false
    }

    /// Seeing the end, reaping and signalling happen under this lock.
    private let state = Mutex(State())

    /// The children spawned here and not yet reaped, which ``OrphanReaper`` leaves to their ``ChildProcess``. A child is
    /// added before the lock is let go after spawning it, so the reaper never sees it unlisted.
    static let unreaped = Mutex<Set<pid_t>>([])

    private init(pid: pid_t, input: Int32, output: Int32, errorLines: ErrorLineReader.End?) {
        self.pid = pid
        self.input = input
        self.output = output
        self.errorLines = errorLines
    }

    /// Spawns `words` (the first found on `PATH` unless it holds a slash) with pipes for standard input and output,
    /// and for standard error when `standardError` is given (its lines are handed to it).
    static func spawn(_ words: [String], standardError: (@Sendable (String) -> Void)? = nil) throws(FlowError) -> ChildProcess {
        guard let program = words.first, !program.isEmpty else {
            throw FlowError(.hubUnreachable, "could not start the hub command: it is empty; give the program to start, then its arguments")
        }
        // Close-on-exec from their creation, so that no other child started meanwhile inherits them; the child gets
        // the two ends dup'ed onto its standard input and output, its standard error (this process's, or a third
        // pipe's), and nothing else.
        guard let toChild = SpawnExtensions.closeOnExecPipe() else {
            throw FlowError(.hubUnreachable, "could not create a pipe: \(lastError)")
        }
        guard let fromChild = SpawnExtensions.closeOnExecPipe() else {
            let reason = lastError
            Glibc.close(toChild.read)
            Glibc.close(toChild.write)
            throw FlowError(.hubUnreachable, "could not create a pipe: \(reason)")
        }
        var errors: (read: Int32, write: Int32)?
        if standardError != nil {
            guard let pipe = SpawnExtensions.closeOnExecPipe() else {
                let reason = lastError
                for descriptor in [toChild.read, toChild.write, fromChild.read, fromChild.write] { Glibc.close(descriptor) }
                throw FlowError(.hubUnreachable, "could not create a pipe: \(reason)")
            }
            errors = pipe
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild.read, 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild.write, 1)
        if let errors { posix_spawn_file_actions_adddup2(&actions, errors.write, 2) }
        // Descriptors an embedding service opened without close-on-exec (a listening socket, a database connection)
        // stay out of the hub, where the C library can close them in the child (glibc 2.34 and later).
        _ = SpawnExtensions.addCloseFrom(&actions, 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        // The child starts with every signal's default action (whatever this process ignores or catches, or inherited
        // ignored) and with none blocked (the spawning thread may block them, as a service's threads may).
        var defaults = sigset_t()
        sigfillset(&defaults)
        sigdelset(&defaults, SIGKILL)
        sigdelset(&defaults, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        posix_spawnattr_setsigmask(&attributes, &unblocked)
        var pid: pid_t = 0
        let arguments = words.map { strdup($0) } + [nil]
        defer { arguments.forEach { free($0) } }
        let status = unreaped.withLock { unreaped in
            let status = posix_spawnp(&pid, program, &actions, &attributes, arguments, environ)
            if status == 0 { unreaped.insert(pid) }
            return status
        }
        Glibc.close(toChild.read)
        Glibc.close(fromChild.write)
        if let errors { Glibc.close(errors.write) }
        guard status == 0 else {
            Glibc.close(toChild.write)
            Glibc.close(fromChild.read)
            if let errors { Glibc.close(errors.read) }
            throw FlowError(.hubUnreachable, "could not start the hub command \(program): \(String(cString: strerror(status)))")
        }
        let errorLines = errors.flatMap { errors in standardError.map { ErrorLineReader.start(errors.read, $0) } }
        return ChildProcess(pid: pid, input: toChild.write, output: fromChild.read, errorLines: errorLines)
    }

    private static var lastError: String { String(cString: strerror(errno)) }

    /// Whether the child has ended; seen, not reaped (``stop()`` reaps it).
    private func ended() -> Bool {
        state.withLock { state in
            if state.ended != nil || state.reaped { return true }
            var info = siginfo_t()
            let seen = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            if seen < 0, errno == ECHILD {
                // Reaped by the system (this process ignores SIGCHLD): its ID is free, so nothing is sent to it.
                state.reaped = true
                _ = Self.unreaped.withLock { $0.remove(pid) }
                state.ended = "the hub exited"
                return true
            }
            guard seen == 0, info._sifields._sigchld.si_pid == pid else { return false }
            state.ended = Self.describe(code: info.si_code, status: info._sifields._sigchld.si_status)
            return true
        }
    }

    /// Sends `signal` to the hub's process group (the child was started as its leader): the hub and whatever it
    /// started, a wrapper script's own child included. Never once the child has been reaped.
    private func signalGroup(_ signal: Int32) {
        state.withLock { state in
            if !state.reaped { _ = kill(-pid, signal) }
        }
    }

    /// Whether a process of the hub's group other than the hub itself still runs (zombies aside): read from
    /// `/proc`, as a signal with no effect (`kill(-group, 0)`) cannot tell the ended hub, still a member until reaped,
    /// from others.
    private func othersRunInGroup() -> Bool {
        ProcessEntry.all().contains { $0.pid != pid && $0.group == pid && !$0.ended }
    }

    /// Reaps the ended child, once.
    private func reap() {
        state.withLock { state in
            guard !state.reaped else { return }
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid || (result < 0 && errno == ECHILD) {
                state.reaped = true
                _ = Self.unreaped.withLock { $0.remove(pid) }
            }
        }
    }

    /// How the child ended (`the hub exited with status 3`, `the hub was killed by signal 11 (Segmentation fault)`),
    /// waiting up to `limit` for it to end; nil when it is still running then.
    func exitDescription(within limit: Duration) -> String? {
        let deadline = ContinuousClock.now + limit
        while !ended() {
            guard ContinuousClock.now < deadline else { return nil }
            usleep(5_000)
        }
        return state.withLock { $0.ended } ?? "the hub exited"
    }

    /// An end as `waitid` reports it in words.
    static func describe(code: Int32, status: Int32) -> String {
        guard code == CLD_KILLED || code == CLD_DUMPED else { return "the hub exited with status \(status)" }
        let name = strsignal(status).map { String(cString: $0) } ?? "signal \(status)"
        return "the hub was killed by signal \(status) (\(name))"
    }

    /// Waits up to 2 s for the child to exit after its input was closed, then sends SIGTERM to its process group and
    /// waits up to 2 s more, then SIGKILL. What the hub started and left running when it ended (a wrapper's child,
    /// which would keep the hub's output and this process's standard error open) is stopped the same way while the
    /// ended hub is not yet reaped, so that the group's ID is still its own; then the hub is reaped. The waits are
    /// as long in a cancelled task (a run or handshake that was interrupted).
    func stop() async {
        await Task {
            for signal in [nil, SIGTERM, SIGKILL] as [Int32?] {
                if let signal { signalGroup(signal) }
                if await waited(until: ended) { break }
            }
            for signal in [SIGTERM, SIGKILL] where othersRunInGroup() {
                signalGroup(signal)
                // A look through /proc each 50 ms: it reads every process's status.
                if await waited(until: { !self.othersRunInGroup() }, every: .milliseconds(50)) { break }
            }
            reap()
            // Within the same bound: a process that left the hub's group may hold the pipe open for ever.
            if let errorLines { _ = await waited(until: { errorLines.isDone }) }
        }.value
    }

    /// Whether `done` held within 2 s, looking every `every`.
    private func waited(until done: () -> Bool, every interval: Duration = .milliseconds(10)) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(2)
        while ContinuousClock.now < deadline {
            if done() { return true }
            try? await Task.sleep(for: interval)
        }
        return done()
    }
}

/// Marks a descriptor close-on-exec, so no child process inherits it.
func closeOnExec(_ descriptor: Int32) {
    _ = fcntl(descriptor, F_SETFD, fcntl(descriptor, F_GETFD) | FD_CLOEXEC)
}

/// The address of a Unix socket at `path`, for connecting and for listening.
/// - Throws: ``FlowError`` `invalidArgumentValue` when the path does not fit a socket address.
func unixSocketAddress(_ path: String) throws(FlowError) -> sockaddr_un {
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
        throw FlowError(.invalidArgumentValue, "the socket path \(path) is too long for a Unix socket")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    return address
}

/// Connecting stream sockets for ``HubEndpoint/unix(path:)`` and ``HubEndpoint/tcp(host:port:)``.
enum SocketConnector {
    static func connect(unix path: String) throws(FlowError) -> FileDescriptorChannel {
        var address = try unixSocketAddress(path)
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw FlowError(.hubUnreachable, "could not create a socket: \(Self.lastError)") }
        closeOnExec(descriptor)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let reason = Self.lastError
            Glibc.close(descriptor)
            throw FlowError(.hubUnreachable, "could not connect to the hub at unix:\(path): \(reason)")
        }
        return FileDescriptorChannel(.socket(descriptor))
    }

    /// Connects to `host`:`port`, trying each address the name resolves to, each for at most `limit`.
    static func connect(host: String, port: Int, limit: Duration) throws(FlowError) -> FileDescriptorChannel {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw FlowError(.hubUnreachable, "could not resolve the hub's host \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var reason = "no address"
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            if descriptor >= 0 {
                closeOnExec(descriptor)
                if let failure = Self.connect(descriptor, to: info.pointee.ai_addr, length: info.pointee.ai_addrlen, limit: limit) {
                    reason = failure
                    Glibc.close(descriptor)
                } else {
                    return FileDescriptorChannel(.socket(descriptor))
                }
            }
            entry = info.pointee.ai_next
        }
        throw FlowError(.hubUnreachable, "could not connect to the hub at tcp:\(host):\(port): \(reason)")
    }

    static var lastError: String { String(cString: strerror(errno)) }

    /// Connects a blocking socket, waiting at most `limit` for the peer to accept; nil once connected, else why not.
    private static func connect(_ descriptor: Int32, to address: UnsafePointer<sockaddr>, length: socklen_t, limit: Duration) -> String? {
        let flags = fcntl(descriptor, F_GETFL)
        _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(descriptor, F_SETFL, flags) }
        if Glibc.connect(descriptor, address, length) == 0 { return nil }
        guard errno == EINPROGRESS else { return lastError }
        let deadline = ContinuousClock.now + limit
        var poller = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
        while true {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return "the connection was not accepted within \(limit.secondsText) s" }
            let milliseconds = Int32(clamping: left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1)
            let ready = poll(&poller, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return lastError
            }
            if ready == 0 { continue }
            var error: Int32 = 0
            var size = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &size) == 0 else { return lastError }
            return error == 0 ? nil : String(cString: strerror(error))
        }
    }
}
