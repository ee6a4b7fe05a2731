import Foundation
import MatterFlow

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension RemoteHub {
    /// Connects to the hub at `endpoint` (starting it, for a command) and performs the handshake.
    /// - Throws: ``FlowError`` `hubUnreachable` when the hub cannot be started or reached, or the handshake's error.
    public static func connect(to endpoint: HubEndpoint, options: Options = Options()) async throws(FlowError) -> RemoteHub {
        let connection = try HubConnection.open(endpoint)
        let remote = RemoteHub(channel: connection.channel, options: options) { await connection.stopProcess() }
        do {
            try await remote.initialize()
        } catch {
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

    /// Starts the command, or connects to the socket, of `endpoint`.
    /// - Throws: ``FlowError`` `hubUnreachable` when the hub cannot be started or reached.
    public static func open(_ endpoint: HubEndpoint) throws(FlowError) -> HubConnection {
        switch endpoint {
        case .command(let words):
            let (channel, child) = try startChild(words)
            return HubConnection(channel: channel, child: child)
        case .unix(let path):
            return HubConnection(channel: try SocketConnector.connect(unix: path), child: nil)
        case .tcp(let host, let port):
            return HubConnection(channel: try SocketConnector.connect(host: host, port: port), child: nil)
        }
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
    /// this process's.
    private static func startChild(_ words: [String]) throws(FlowError) -> (FileDescriptorChannel, ChildProcess) {
        // A child that exits makes writes to its pipe fail with EPIPE; SIGPIPE would end this process instead.
        signal(SIGPIPE, SIG_IGN)
        let process = Process()
        let executable = words[0]
        if executable.contains("/") {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = Array(words.dropFirst())
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = words
        }
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        do {
            try process.run()
        } catch {
            throw FlowError(.hubUnreachable, "could not start the hub command \(executable): \(error.localizedDescription)")
        }
        let readEnd = dup(output.fileHandleForReading.fileDescriptor)
        let writeEnd = dup(input.fileHandleForWriting.fileDescriptor)
        try? output.fileHandleForReading.close()
        try? input.fileHandleForWriting.close()
        try? output.fileHandleForWriting.close()
        try? input.fileHandleForReading.close()
        return (FileDescriptorChannel(.pipes(read: readEnd, write: writeEnd)), ChildProcess(process))
    }
}

/// A hub's child process, stopped gently.
final class ChildProcess: Sendable {
    let process: Process

    init(_ process: Process) { self.process = process }

    /// Waits up to 2 s for the child to exit after its input was closed, then sends SIGTERM and waits again.
    func stop() async {
        for _ in 0..<200 where process.isRunning {
            try? await Task.sleep(for: .milliseconds(10))
        }
        if process.isRunning {
            process.terminate()
            for _ in 0..<200 where process.isRunning {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
    }
}

/// Connecting stream sockets for ``HubEndpoint/unix(path:)`` and ``HubEndpoint/tcp(host:port:)``.
enum SocketConnector {
    static func connect(unix path: String) throws(FlowError) -> FileDescriptorChannel {
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
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw FlowError(.hubUnreachable, "could not create a socket: \(Self.lastError)") }
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

    static func connect(host: String, port: Int) throws(FlowError) -> FileDescriptorChannel {
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
                if Glibc.connect(descriptor, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 {
                    return FileDescriptorChannel(.socket(descriptor))
                }
                reason = Self.lastError
                Glibc.close(descriptor)
            }
            entry = info.pointee.ai_next
        }
        throw FlowError(.hubUnreachable, "could not connect to the hub at tcp:\(host):\(port): \(reason)")
    }

    static var lastError: String { String(cString: strerror(errno)) }
}
