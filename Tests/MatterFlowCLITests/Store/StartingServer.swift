import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// PostgreSQL as a client sees it while it starts up: a Unix socket whose first ``rejecting`` connections are
/// answered as the server answers during start-up (an ErrorResponse, FATAL, SQLSTATE 57P03, "the database system is
/// starting up"), and whose later ones are passed through, byte for byte, to the test server.
///
/// Every connection is served on a thread of its own; ``stop()`` closes the socket and every connection, so no thread
/// outlives the test.
final class StartingServer: Sendable {
    /// The directory of the socket (`host=` of a conninfo).
    let directory: String
    /// The port its socket file is named after (`.s.PGSQL.<port>`).
    let port = 6543
    private let listener: Int32
    private let target: String
    private let rejecting: Int
    private struct State {
        var connections = 0
        var open: Set<Int32> = []
        var stopped = false
    }
    private let state = Mutex(State())

    /// A server that refuses its first `rejecting` connections as one starting up, then passes connections to the
    /// server `conninfo` names (by its `host=` directory and `port=`).
    init(rejecting: Int, forwardingTo conninfo: String) throws {
        let settings = Dictionary(
            conninfo.split(separator: " ").compactMap { pair -> (String, String)? in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return parts.count == 2 ? (String(parts[0]), String(parts[1])) : nil
            }, uniquingKeysWith: { $1 })
        guard let host = settings["host"], host.hasPrefix("/") else {
            throw PostgresHarnessError(message: "the test server is not on a Unix socket: \(conninfo)")
        }
        target = host + "/.s.PGSQL." + (settings["port"] ?? "5432")
        self.rejecting = rejecting
        directory = try TemporaryDirectory().path
        listener = try Self.unixSocket(path: directory + "/.s.PGSQL.\(port)", listen: true)
        Thread.detachNewThread { [self] in acceptLoop() }
    }

    /// `conninfo` pointed at this server instead.
    func conninfo(_ conninfo: String) -> String {
        conninfo.split(separator: " ").filter { !$0.hasPrefix("host=") && !$0.hasPrefix("port=") }.joined(separator: " ")
            + " host=\(directory) port=\(port)"
    }

    /// How many connections reached it, refused or passed on.
    var connections: Int { state.withLock { $0.connections } }

    /// Closes the socket and every connection; the threads end as their reads fail.
    func stop() {
        let open = state.withLock { state -> Set<Int32> in
            state.stopped = true
            return state.open
        }
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        for descriptor in open { shutdown(descriptor, Int32(SHUT_RDWR)) }
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let number = state.withLock { state -> Int? in
                guard !state.stopped else { return nil }
                state.connections += 1
                state.open.insert(client)
                return state.connections
            }
            guard let number else {
                close(client)
                return
            }
            Thread.detachNewThread { [self] in
                if number <= rejecting { refuse(client) } else { forward(client) }
            }
        }
    }

    /// Reads the startup packet and answers as a server starting up does.
    private func refuse(_ client: Int32) {
        defer { finish(client) }
        var length = [UInt8](repeating: 0, count: 4)
        guard readFully(client, &length) else { return }
        let size = Int(length[0]) << 24 | Int(length[1]) << 16 | Int(length[2]) << 8 | Int(length[3])
        var rest = [UInt8](repeating: 0, count: max(0, min(size - 4, 10_000)))
        guard readFully(client, &rest) else { return }
        var fields: [UInt8] = []
        for (tag, value) in [("S", "FATAL"), ("V", "FATAL"), ("C", "57P03"), ("M", "the database system is starting up")] {
            fields += Array(tag.utf8) + Array(value.utf8) + [0]
        }
        fields.append(0)
        let total = UInt32(fields.count + 4)
        let message = [UInt8(ascii: "E")] + withUnsafeBytes(of: total.bigEndian, Array.init) + fields
        _ = message.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Passes bytes both ways between the client and the test server until either side closes.
    private func forward(_ client: Int32) {
        guard let upstream = try? Self.unixSocket(path: target, listen: false) else {
            finish(client)
            return
        }
        state.withLock { _ = $0.open.insert(upstream) }
        let done = DispatchGroup()
        for (from, to) in [(client, upstream), (upstream, client)] {
            done.enter()
            Thread.detachNewThread {
                var buffer = [UInt8](repeating: 0, count: 16_384)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(from, $0.baseAddress, $0.count) }
                    guard count > 0 else { break }
                    // send, not write: a peer gone closes the connection rather than raising SIGPIPE in the test process.
                    let written = buffer.withUnsafeBytes { send(to, $0.baseAddress, count, Int32(MSG_NOSIGNAL)) }
                    guard written == count else { break }
                }
                shutdown(from, Int32(SHUT_RDWR))
                shutdown(to, Int32(SHUT_RDWR))
                done.leave()
            }
        }
        done.wait()
        finish(upstream)
        finish(client)
    }

    private func finish(_ descriptor: Int32) {
        state.withLock { _ = $0.open.remove(descriptor) }
        close(descriptor)
    }

    private func readFully(_ descriptor: Int32, _ buffer: inout [UInt8]) -> Bool {
        var offset = 0
        while offset < buffer.count {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// A Unix stream socket bound and listening at `path`, or connected to it (also for tests that need a socket file).
    static func unixSocket(path: String, listen listening: Bool) throws -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw PostgresHarnessError(message: "socket: errno \(errno)") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(descriptor)
            throw PostgresHarnessError(message: "socket path too long: \(path)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                listening
                    ? bind(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
                    : connect(descriptor, socketAddress, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0, !listening || listen(descriptor, 16) == 0 else {
            let code = errno
            close(descriptor)
            throw PostgresHarnessError(message: "\(listening ? "bind" : "connect") \(path): errno \(code)")
        }
        return descriptor
    }
}
