import Foundation
import MatterFlow
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A listening Unix or TCP socket that serves a hub to every client that connects (`matterflow hub serve --listen`).
public final class HubListener: Sendable {
    private let descriptor: Int32
    private let unixPath: String?
    /// The lock on a Unix socket's path (``lockingSocketPath(_:)``), held until ``stop()``; -1 for TCP.
    private let pathLock: Int32
    private let stopped = Mutex(false)
    /// Where it listens, with the port the system chose for `tcp:HOST:0`.
    public let address: String

    /// Binds and listens on `endpoint` (`.unix` or `.tcp`; a `.command` is refused).
    /// - Throws: ``FlowError`` `invalidArgumentValue` for a command endpoint or a path too long, `hubUnreachable`
    ///   when the socket cannot be bound.
    public init(endpoint: HubEndpoint) throws(FlowError) {
        switch endpoint {
        case .command:
            throw FlowError(.invalidArgumentValue, "--listen takes unix:PATH or tcp:HOST:PORT")
        case .unix(let path):
            let lock = try Self.lockingSocketPath(path)
            let descriptor: Int32
            do {
                descriptor = try Self.listeningUnixSocket(at: path)
            } catch {
                Glibc.close(lock)
                throw error
            }
            closeOnExec(descriptor)
            self.pathLock = lock
            self.descriptor = descriptor
            self.unixPath = path
            self.address = "unix:\(path)"
        case .tcp(let host, let port):
            var hints = addrinfo()
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
            hints.ai_flags = AI_PASSIVE
            var list: UnsafeMutablePointer<addrinfo>?
            guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
                throw FlowError(.hubUnreachable, "could not resolve \(host) to listen on")
            }
            defer { freeaddrinfo(list) }
            let descriptor = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
            var yes: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
            guard descriptor >= 0, bind(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0,
                listen(descriptor, 16) == 0
            else {
                let reason = String(cString: strerror(errno))
                if descriptor >= 0 { Glibc.close(descriptor) }
                throw FlowError(.hubUnreachable, "could not listen on tcp:\(host):\(port): \(reason)")
            }
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let actualPort = withUnsafeMutablePointer(to: &storage) { pointer -> Int in
                _ = pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
                if pointer.pointee.ss_family == sa_family_t(AF_INET6) {
                    return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
                }
                return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
            }
            closeOnExec(descriptor)
            self.descriptor = descriptor
            self.unixPath = nil
            self.pathLock = -1
            self.address = HubEndpoint.tcp(host: host, port: actualPort).description
        }
    }

    /// Accepts connections on a thread of its own until ``stop()``, handing each to `serve`. A failure that passes
    /// (out of descriptors or memory, a connection aborted before it was taken, a network error `accept` reports
    /// for the connection) does not stop it: it tries again, after a pause when resources ran out, so that clients
    /// are served again once some are freed. `onTrouble` is told of such a failure once until a connection is
    /// accepted again.
    public func accept(
        onTrouble: @escaping @Sendable (String) -> Void = { _ in }, _ serve: @escaping @Sendable (FileDescriptorChannel) -> Void
    ) {
        let descriptor = self.descriptor
        let thread = Thread { [self] in
            var troubled = false
            while !stopped.withLock({ $0 }) {
                let client = Glibc.accept(descriptor, nil, nil)
                if client < 0 {
                    let failure = errno
                    guard Self.passes(failure), !stopped.withLock({ $0 }) else { return }
                    if !troubled { onTrouble("accepting a connection failed (\(String(cString: strerror(failure)))); trying again") }
                    troubled = true
                    if Self.outOfResources(failure) { usleep(100_000) }
                    continue
                }
                troubled = false
                closeOnExec(client)
                serve(FileDescriptorChannel(.socket(client), writesAfterEndOfInput: true))
            }
        }
        thread.start()
    }

    /// Whether an `accept` failure passes: all but those of a listening socket that is gone (`EBADF`, `EINVAL`,
    /// `ENOTSOCK`: ``stop()`` closed it) or a fault. (`EOPNOTSUPP` passes: on a stream socket it is a pending
    /// network error of the connection, which Linux says to retry.)
    static func passes(_ failure: Int32) -> Bool {
        ![EBADF, EINVAL, ENOTSOCK, EFAULT].contains(failure)
    }

    /// Whether an `accept` failure is the process or system running out of descriptors or memory.
    static func outOfResources(_ failure: Int32) -> Bool {
        [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(failure)
    }

    /// Stops accepting and removes a Unix socket's file.
    public func stop() {
        guard !stopped.withLock({ state -> Bool in
            defer { state = true }
            return state
        }) else { return }
        shutdown(descriptor, Int32(SHUT_RDWR))
        Glibc.close(descriptor)
        // The socket file goes before the lock is let go: no other hub has the path until then.
        if let unixPath { unlink(unixPath) }
        if pathLock >= 0 { Glibc.close(pathLock) }
    }
}

extension HubListener {
    /// The lock a listener on the Unix socket `path` holds for as long as it listens (`PATH.lock`, left in place): two
    /// hubs started at once for one path cannot both take it, nor one replace the other's socket.
    /// - Throws: ``FlowError`` `hubUnreachable` when another listener holds it, or it cannot be made.
    static func lockingSocketPath(_ path: String) throws(FlowError) -> Int32 {
        let lockPath = path + ".lock"
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw FlowError(.hubUnreachable, "could not listen on unix:\(path): its lock file \(lockPath) cannot be opened (\(String(cString: strerror(errno))))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = errno
            Glibc.close(descriptor)
            throw FlowError(
                .hubUnreachable,
                failure == EWOULDBLOCK
                    ? "could not listen on unix:\(path): another hub serves there (it holds \(lockPath)); stop it or choose another path"
                    : "could not listen on unix:\(path): its lock file \(lockPath) cannot be locked (\(String(cString: strerror(failure))))")
        }
        return descriptor
    }

    /// A Unix socket bound to `path` and listening (the caller holds the path's lock, ``lockingSocketPath(_:)``). A
    /// socket file left at `path` by a hub that died without removing it (SIGKILL, a crash) is replaced, as connecting
    /// to it is refused; a socket that takes connections, one that cannot be told, and a file that is no socket are
    /// left alone and refused.
    static func listeningUnixSocket(at path: String) throws(FlowError) -> Int32 {
        var address = try unixSocketAddress(path)
        func refusal(_ why: String) -> FlowError { FlowError(.hubUnreachable, "could not listen on unix:\(path): \(why)") }
        for _ in 0..<3 {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw refusal(String(cString: strerror(errno))) }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if bound == 0, listen(descriptor, 16) == 0 { return descriptor }
            let failure = errno
            Glibc.close(descriptor)
            guard failure == EADDRINUSE else { throw refusal(String(cString: strerror(failure))) }
            var status = stat()
            guard lstat(path, &status) == 0 else {
                if errno == ENOENT { continue }  // removed meanwhile: bind again
                throw refusal("the path is taken and cannot be examined (\(String(cString: strerror(errno))))")
            }
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw refusal("the path exists and is not a socket; remove it or choose another path")
            }
            switch Self.probe(&address) {
            case .listening:
                throw refusal("another process listens on it (a hub already serving?); stop it or choose another path")
            case .unknown(let reason):
                throw refusal("a socket is there, and whether a process listens on it cannot be told (\(reason)); remove it if none does")
            case .gone:
                continue
            case .refused:
                // Nothing listens: the socket file of a hub that died.
                guard unlink(path) == 0 || errno == ENOENT else {
                    throw refusal(
                        "a socket file no process listens on is left there, and it cannot be removed (\(String(cString: strerror(errno)))); remove it")
                }
            }
        }
        throw refusal("the path was taken again each time it was freed; choose another path")
    }

    /// What connecting to a Unix socket file says of it.
    private enum Probe {
        /// A process takes connections there, or will (its backlog is full: the probe does not wait).
        case listening
        /// Connecting is refused: no process listens.
        case refused
        /// The file went away.
        case gone
        /// Another answer (another user's socket, a datagram socket): not the probe's to decide.
        case unknown(String)
    }

    private static func probe(_ address: inout sockaddr_un) -> Probe {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard probe >= 0 else { return .unknown(String(cString: strerror(errno))) }
        defer { Glibc.close(probe) }
        _ = fcntl(probe, F_SETFL, fcntl(probe, F_GETFL) | O_NONBLOCK)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        if connected == 0 { return .listening }
        switch errno {
        case EAGAIN, EINPROGRESS: return .listening
        case ECONNREFUSED: return .refused
        case ENOENT: return .gone
        case let other: return .unknown(String(cString: strerror(other)))
        }
    }
}
