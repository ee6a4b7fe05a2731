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
            let descriptor = try Self.listeningUnixSocket(at: path)
            closeOnExec(descriptor)
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
        if let unixPath { unlink(unixPath) }
    }
}

extension HubListener {
    /// A Unix socket bound to `path` and listening. A socket file left at `path` by a hub that died without removing it
    /// (SIGKILL, a crash) is replaced, as nothing listens on it; a socket some process listens on, or a file that is no
    /// socket, is left alone and refused.
    static func listeningUnixSocket(at path: String) throws(FlowError) -> Int32 {
        var address = try unixSocketAddress(path)
        var replacedStale = false
        while true {
            let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else {
                throw FlowError(.hubUnreachable, "could not listen on unix:\(path): \(String(cString: strerror(errno)))")
            }
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if bound == 0, listen(descriptor, 16) == 0 { return descriptor }
            let failure = errno
            Glibc.close(descriptor)
            let reason = String(cString: strerror(failure))
            guard failure == EADDRINUSE, !replacedStale else {
                throw FlowError(.hubUnreachable, "could not listen on unix:\(path): \(reason)")
            }
            var status = stat()
            guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFSOCK else {
                throw FlowError(
                    .hubUnreachable, "could not listen on unix:\(path): the path exists and is not a socket; remove it or choose another path")
            }
            guard !Self.accepts(&address) else {
                throw FlowError(
                    .hubUnreachable, "could not listen on unix:\(path): another process listens on it (a hub already serving?); stop it or choose another path")
            }
            // Nothing listens: the socket file of a hub that died. It is replaced once.
            guard unlink(path) == 0 || errno == ENOENT else {
                throw FlowError(
                    .hubUnreachable, "could not listen on unix:\(path): a socket file no process listens on is left there, and it cannot be removed (\(String(cString: strerror(errno)))); remove it")
            }
            replacedStale = true
        }
    }

    /// Whether some process listens on the Unix socket at `address`: a connection is taken, or waits because the
    /// listener's backlog is full (the probe does not wait for it). Only a refusal says nothing listens.
    private static func accepts(_ address: inout sockaddr_un) -> Bool {
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard probe >= 0 else { return true }
        defer { Glibc.close(probe) }
        _ = fcntl(probe, F_SETFL, fcntl(probe, F_GETFL) | O_NONBLOCK)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return connected == 0 || errno == EAGAIN || errno == EINPROGRESS
    }
}
