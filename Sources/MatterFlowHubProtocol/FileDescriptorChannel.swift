import Foundation
import MatterFlow
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A ``LineChannel`` over file descriptors: a child process's pipes or a connected stream socket.
///
/// A thread of its own reads (blocking reads never occupy Swift's cooperative threads); lines longer than
/// ``LineChannelLimits/maximumLineBytes`` or not valid UTF-8 end the channel with ``LineEvent/malformed(_:)``, so a
/// peer can never make it buffer without bound.
public final class FileDescriptorChannel: LineChannel {
    /// What the descriptors are, which decides how closing works.
    public enum Kind: Sendable {
        /// Separate read and write pipes: closing closes the write end (the peer sees end of input).
        case pipes(read: Int32, write: Int32)
        /// One connected socket: closing shuts it down both ways.
        case socket(Int32)
    }

    private struct State {
        /// Lines may be sent.
        var writeOpen = true
        /// The write descriptor (a pipe's) or the socket has been closed.
        var released = false
        var started = false
        var readEnded = false
        /// Sends under way: a descriptor is closed only once none uses it (a number could be reused meanwhile).
        var writers = 0
        /// ``close()`` was called: the descriptors are released once no send uses them.
        var closing = false
    }

    /// How long a line may wait, by default, for the peer to take it: a peer that reads none of its input for that
    /// long is stuck, and the send fails rather than hold its thread for good.
    public static let defaultWriteLimit: Duration = .seconds(30)

    private let kind: Kind
    private let state = Mutex(State())
    /// Held while a line is written, so that lines sent at once never interleave; never with `state` held.
    private let writing = Mutex(())
    private let onEnd: @Sendable () -> Void
    private let writesAfterEndOfInput: Bool
    private let endOfInput: @Sendable () -> String
    /// How long a line may wait for the peer to take it (``defaultWriteLimit``).
    let writeLimit: Duration

    /// A channel over `kind`'s descriptors, which it owns and closes. `onEnd` runs once reading has ended.
    ///
    /// Writes to a pipe whose reader has gone raise SIGPIPE, which ends the process unless it ignores the signal:
    /// ignore it (`signal(SIGPIPE, SIG_IGN)`, as ``RemoteHub/connect(to:options:)`` does for a hub command) before
    /// building a channel over pipes. Sockets never raise it.
    ///
    /// - Parameter writesAfterEndOfInput: when true, the end of input closes only the reading side: lines can
    ///   still be sent until ``close()`` (a server answering the requests it received before its input ended).
    ///   When false, the end of input closes the channel both ways.
    public convenience init(_ kind: Kind, writesAfterEndOfInput: Bool = false, onEnd: @escaping @Sendable () -> Void = {}) {
        self.init(kind, writesAfterEndOfInput: writesAfterEndOfInput, endOfInput: { "the hub closed the connection" }, onEnd: onEnd)
    }

    /// A channel as above whose end of input is explained by `endOfInput` (called on the reading thread, which it may
    /// block briefly): a child process's exit status, say.
    init(
        _ kind: Kind, writesAfterEndOfInput: Bool, endOfInput: @escaping @Sendable () -> String,
        writeLimit: Duration = FileDescriptorChannel.defaultWriteLimit, onEnd: @escaping @Sendable () -> Void
    ) {
        self.endOfInput = endOfInput
        self.writeLimit = writeLimit
        self.kind = kind
        self.writesAfterEndOfInput = writesAfterEndOfInput
        self.onEnd = onEnd
    }

    private var readDescriptor: Int32 {
        switch kind {
        case .pipes(let read, _): read
        case .socket(let socket): socket
        }
    }

    private var writeDescriptor: Int32 {
        switch kind {
        case .pipes(_, let write): write
        case .socket(let socket): socket
        }
    }

    public func start(_ receive: @escaping @Sendable (LineEvent) -> Void) {
        guard state.withLock({ state -> Bool in
            defer { state.started = true }
            return !state.started
        }) else { return }
        let descriptor = readDescriptor
        let thread = Thread { [self] in
            let reason = Self.readLines(from: descriptor, receive) ?? endOfInput()
            receive(.closed(reason))
            finishReading()
        }
        thread.start()
    }

    /// Reads until end of input or a framing failure; returns why reading ended, nil at the end of input.
    private static func readLines(from descriptor: Int32, _ receive: @Sendable (LineEvent) -> Void) -> String? {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        var lineNumber = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                return "reading from the hub failed: \(String(cString: strerror(errno)))"
            }
            if count == 0 { return nil }
            var start = 0
            for index in 0..<count where buffer[index] == UInt8(ascii: "\n") {
                pending.append(contentsOf: buffer[start..<index])
                start = index + 1
                lineNumber += 1
                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                guard pending.count <= LineChannelLimits.maximumLineBytes else {
                    receive(.malformed("line \(lineNumber) is \(pending.count) bytes, longer than the 1 MiB limit: \(Self.start(of: pending))"))
                    return "the hub broke the protocol's framing"
                }
                guard let line = String(validating: pending, as: UTF8.self) else {
                    receive(.malformed("line \(lineNumber) is not valid UTF-8"))
                    return "the hub broke the protocol's framing"
                }
                pending.removeAll(keepingCapacity: true)
                if !line.isEmpty { receive(.line(line)) }
            }
            pending.append(contentsOf: buffer[start..<count])
            if pending.count > LineChannelLimits.maximumLineBytes {
                receive(.malformed("line \(lineNumber + 1) is longer than the 1 MiB limit (no newline in its first 1 MiB): \(Self.start(of: pending))"))
                return "the hub broke the protocol's framing"
            }
        }
    }

    private func finishReading() {
        state.withLock { state in
            state.readEnded = true
            if case .pipes(let read, _) = kind { _ = Glibc.close(read) }
            // Unless lines may still be sent until close() (a server answering what it received), the end of input
            // ends the writing side too.
            if !writesAfterEndOfInput { state.writeOpen = false }
            release(&state)
        }
        onEnd()
    }

    /// Closes the write descriptor (or the socket) once nothing may be sent any more, no send uses it, and, for a
    /// socket, reading has ended; until reading has ended, a socket that may not be written is shut down both ways.
    private func release(_ state: inout State) {
        guard !state.writeOpen, !state.released else { return }
        switch kind {
        case .pipes(_, let write):
            guard state.writers == 0 else { return }
            _ = Glibc.close(write)
            state.released = true
        case .socket(let socket):
            guard state.readEnded, state.writers == 0 else {
                _ = shutdown(socket, Int32(SHUT_RDWR))
                return
            }
            _ = Glibc.close(socket)
            state.released = true
        }
    }

    /// Sends one line. A peer that takes nothing of it for the write limit (``defaultWriteLimit``) fails the send,
    /// and nothing more is sent; a send never holds a lock that ``close()`` needs.
    public func send(_ line: String) throws(LineChannelError) {
        var bytes = Array(line.utf8)
        guard bytes.count <= LineChannelLimits.maximumLineBytes else {
            throw LineChannelError("a line of \(bytes.count) bytes is longer than the protocol's 1 MiB limit")
        }
        bytes.append(UInt8(ascii: "\n"))
        guard state.withLock({ state -> Bool in
            guard state.writeOpen else { return false }
            state.writers += 1
            return true
        }) else { throw LineChannelError("the connection is closed") }
        let failure = writing.withLock { _ in write(bytes) }
        state.withLock { state in
            state.writers -= 1
            // A close that came meanwhile left the descriptor to this send to release.
            if state.closing { release(&state) }
            // A line written in part leaves the framing broken: nothing more can be sent. The descriptors stay
            // until close(), so that the failure is the sender's to tell (a socket shut down now would end reading
            // first, and the peer's end would be told instead).
            if failure != nil { state.writeOpen = false }
        }
        if let failure { throw LineChannelError(failure) }
    }

    /// Writes `bytes` whole, waiting (in slices, so that a close is seen) for the peer to make room; the reason it
    /// could not, or nil.
    private func write(_ bytes: [UInt8]) -> String? {
        // The limit runs from the last byte the peer took: a hub that reads slowly is waited for, one that reads
        // nothing is not.
        var deadline = ContinuousClock.now + writeLimit
        var offset = 0
        while offset < bytes.count {
            guard state.withLock({ $0.writeOpen }) else { return "the connection is closed" }
            var request = pollfd(fd: writeDescriptor, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&request, 1, 100)
            if ready < 0 {
                if errno == EINTR { continue }
                return "writing to the hub failed: \(String(cString: strerror(errno)))"
            }
            if ready == 0 {
                guard ContinuousClock.now < deadline else {
                    return "the hub has taken none of its input for \(writeLimit.secondsText) s"
                }
                continue
            }
            // A pipe that polls writable takes PIPE_BUF bytes without blocking; a socket is written without waiting.
            let count = isSocket ? bytes.count - offset : min(bytes.count - offset, Int(PIPE_BUF))
            let written = bytes.withUnsafeBytes { raw in
                Self.write(writeDescriptor, raw.baseAddress! + offset, count, socket: isSocket)
            }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                return "writing to the hub failed: \(String(cString: strerror(errno)))"
            }
            offset += written
            if written > 0 { deadline = ContinuousClock.now + writeLimit }
        }
        return nil
    }

    private var isSocket: Bool {
        if case .socket = kind { return true }
        return false
    }

    private static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int, socket: Bool) -> Int {
        // Sockets never raise SIGPIPE; pipes to a child rely on the process ignoring it (``HubConnection``).
        socket ? Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) : Glibc.write(descriptor, bytes, count)
    }

    /// Ends the writing side (the peer sees end of input) and, once reading has ended, releases the descriptors. It
    /// never waits for a send under way: that send stops within 100 ms and releases the descriptor it used.
    public func close() {
        state.withLock { state in
            state.writeOpen = false
            state.closing = true
            release(&state)
        }
    }
}

extension FileDescriptorChannel {
    /// The start of an overlong line, as messages quote a line: its first characters, secrets masked.
    static func start(of bytes: [UInt8]) -> String {
        LineQuote.masked(String(decoding: bytes.prefix(200), as: UTF8.self))
    }
}
