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
/// A thread of its own reads, and a queue of its own writes what the peer cannot take at once, so blocking reads and
/// writes never occupy Swift's cooperative threads: ``send(_:)`` never waits for the peer. A peer that takes none of
/// the queued input for the write limit (``defaultWriteLimit``) ends the channel with ``LineEvent/closed(_:)`` saying
/// so. ``close()`` ends the channel at once; ``closeAfterSending()`` first lets the peer take what was sent. Lines longer than ``LineChannelLimits/maximumLineBytes`` or not valid UTF-8 end the channel with
/// ``LineEvent/malformed(_:)``, so a peer can never make it buffer without bound.
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
        /// A write is under way (a sender's or the queue's): lines sent meanwhile are queued behind it, and the
        /// descriptor is closed only once it ends (a number could be reused meanwhile).
        var writing = false
        /// What the peer has not taken yet, in order from `head`, and its size.
        var queued: [ArraySlice<UInt8>] = []
        var head = 0
        var queuedBytes = 0
        /// ``close()`` was called: nothing queued is written any more, and a write under way stops.
        var aborted = false
        /// ``closeAfterSending()`` was called: the queue must be written by then.
        var drainDeadline: ContinuousClock.Instant?
        /// Why writing failed, once it has: later sends fail with it.
        var failure: String?
        /// Waiting for the queue to be written (``waitUntilSent()``).
        var sentWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// What delivers events: the reading thread, and the writing queue when writing fails.
    private struct Delivery {
        var receive: (@Sendable (LineEvent) -> Void)?
        /// ``LineEvent/closed(_:)`` has been delivered (or is kept for ``start(_:)``): nothing more is.
        var ended = false
        /// A writing failure that came before ``start(_:)``.
        var pendingEnd: String?
    }

    /// How long the queue may wait, by default, for the peer to take any of it: a peer that reads none of its input
    /// for that long is stuck, and the channel ends.
    public static let defaultWriteLimit: Duration = .seconds(30)
    /// The most bytes that may wait for the peer, besides the line being written: a send beyond them fails.
    public static let queueLimit = 8 * LineChannelLimits.maximumLineBytes

    private let kind: Kind
    private let state = Mutex(State())
    private let delivery = Mutex(Delivery())
    /// Writes what a sender could not write at once, in order, off Swift's cooperative threads.
    private let writer = DispatchQueue(label: "matterflow.line-channel.writer")
    private let onEnd: @Sendable () -> Void
    private let writesAfterEndOfInput: Bool
    private let endOfInput: @Sendable () -> String
    /// How long the queue may wait for the peer to take any of it (``defaultWriteLimit``).
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

    private var isSocket: Bool {
        if case .socket = kind { return true }
        return false
    }

    public func start(_ receive: @escaping @Sendable (LineEvent) -> Void) {
        guard state.withLock({ state -> Bool in
            defer { state.started = true }
            return !state.started
        }) else { return }
        delivery.withLock { delivery in
            delivery.receive = receive
            if let reason = delivery.pendingEnd { receive(.closed(reason)) }
        }
        let descriptor = readDescriptor
        let thread = Thread { [self] in
            let reason = Self.readLines(from: descriptor) { deliver($0) } ?? endOfInput()
            deliver(.closed(reason))
            finishReading()
        }
        thread.start()
    }

    /// Hands `event` to the receiver, one at a time, unless the channel's end was delivered already.
    private func deliver(_ event: LineEvent) {
        delivery.withLock { delivery in
            guard !delivery.ended else { return }
            guard let receive = delivery.receive else {
                if case .closed(let reason) = event { (delivery.ended, delivery.pendingEnd) = (true, reason) }
                return
            }
            if case .closed = event { delivery.ended = true }
            receive(event)
        }
    }

    /// Reads until end of input or a framing failure; returns why reading ended, nil at the end of input.
    private static func readLines(from descriptor: Int32, _ receive: (LineEvent) -> Void) -> String? {
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

    /// Closes the write descriptor (or the socket) once nothing may be sent any more, nothing waits to be written,
    /// and, for a socket, reading has ended; until reading has ended, such a socket is shut down both ways.
    private func release(_ state: inout State) {
        guard !state.writeOpen, !state.released, !state.writing else { return }
        state.queued = []
        state.head = 0
        state.queuedBytes = 0
        let waiters = state.sentWaiters
        state.sentWaiters = []
        waiters.forEach { $0.resume() }
        switch kind {
        case .pipes(_, let write):
            _ = Glibc.close(write)
            state.released = true
        case .socket(let socket):
            guard state.readEnded else {
                _ = shutdown(socket, Int32(SHUT_RDWR))
                return
            }
            _ = Glibc.close(socket)
            state.released = true
        }
    }

    /// Sends one line: written at once when the peer has room, else queued (in order) for the channel's writing queue.
    /// It never waits for the peer: a peer that takes none of the queue for the write limit ends the channel with
    /// ``LineEvent/closed(_:)``. Fails when the channel is closed or failed, or more than ``queueLimit`` bytes wait.
    public func send(_ line: String) throws(LineChannelError) {
        var bytes = Array(line.utf8)
        guard bytes.count <= LineChannelLimits.maximumLineBytes else {
            throw LineChannelError("a line of \(bytes.count) bytes is longer than the protocol's 1 MiB limit")
        }
        bytes.append(UInt8(ascii: "\n"))
        let writesNow = try state.withLock { state throws(LineChannelError) -> Bool in
            guard state.writeOpen else { throw LineChannelError(state.failure ?? "the connection is closed") }
            guard state.writing else {
                state.writing = true
                return true
            }
            guard state.queuedBytes + bytes.count <= Self.queueLimit else {
                throw LineChannelError(
                    "the hub has not taken the \(state.queuedBytes) bytes already waiting for it (at most \(Self.queueLimit) may wait)")
            }
            state.queued.append(bytes[...])
            state.queuedBytes += bytes.count
            return false
        }
        guard writesNow else { return }
        switch write(bytes[...], waiting: false) {
        case .written:
            // Lines queued meanwhile are the writing queue's to write; with none, the next sender writes at once.
            let more = state.withLock { state -> Bool in
                guard state.queued.isEmpty else { return true }
                state.writing = false
                release(&state)
                return false
            }
            if more { writer.async { [self] in writeQueue() } }
        case .blocked(let rest):
            state.withLock { state in
                // Lines sent meanwhile were queued behind it.
                state.queued.insert(rest, at: state.head)
                state.queuedBytes += rest.count
            }
            writer.async { [self] in writeQueue() }
        case .aborted:
            state.withLock { state in
                state.writing = false
                release(&state)
            }
        case .failed(let reason):
            fail(reason)
            throw LineChannelError(reason)
        }
    }

    /// Writes the queue, waiting for the peer, until it is empty; then lets the next sender write at once again.
    private func writeQueue() {
        while true {
            let next = state.withLock { state -> ArraySlice<UInt8>? in
                guard state.failure == nil, !state.aborted, state.head < state.queued.count else {
                    state.writing = false
                    release(&state)
                    if state.head == state.queued.count {
                        state.queued = []
                        state.head = 0
                        state.queuedBytes = 0
                    }
                    return nil
                }
                let line = state.queued[state.head]
                state.queued[state.head] = []
                state.head += 1
                state.queuedBytes -= line.count
                // A queue that never empties (a peer that keeps just up) drops the slots it has written.
                if state.head > 64, state.head * 2 > state.queued.count {
                    state.queued.removeFirst(state.head)
                    state.head = 0
                }
                return line
            }
            guard let next else { return }
            if case .failed(let reason) = write(next, waiting: true) { return fail(reason) }
        }
    }

    /// What writing a line came to.
    private enum WriteOutcome {
        case written
        /// The peer had no room for this rest of it (when not waiting).
        case blocked(ArraySlice<UInt8>)
        /// ``close()`` stopped it.
        case aborted
        case failed(String)
    }

    /// Writes `bytes` whole; when `waiting`, waits for the peer to make room, up to the write limit from the last
    /// byte it took; when not, hands back what the peer had no room for.
    private func write(_ bytes: ArraySlice<UInt8>, waiting: Bool) -> WriteOutcome {
        // The limit runs from the last byte the peer took: a hub that reads slowly is waited for, one that reads
        // nothing is not.
        var deadline = ContinuousClock.now + writeLimit
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let (aborted, drainDeadline) = state.withLock { ($0.aborted, $0.drainDeadline) }
            if aborted { return .aborted }
            if let drainDeadline, ContinuousClock.now >= drainDeadline {
                return .failed("the hub did not take its last lines within \(writeLimit.secondsText) s of the close")
            }
            var request = pollfd(fd: writeDescriptor, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&request, 1, waiting ? 100 : 0)
            if ready < 0 {
                if errno == EINTR { continue }
                return .failed("writing to the hub failed: \(String(cString: strerror(errno)))")
            }
            if ready == 0 {
                guard waiting else { return .blocked(bytes[offset...]) }
                guard ContinuousClock.now < deadline else {
                    return .failed("the hub has taken none of its input for \(writeLimit.secondsText) s")
                }
                continue
            }
            // A pipe that polls writable takes PIPE_BUF bytes without blocking; a socket is written without waiting.
            let count = isSocket ? bytes.endIndex - offset : min(bytes.endIndex - offset, Int(PIPE_BUF))
            let written = bytes.withUnsafeBytes { raw in
                Self.write(writeDescriptor, raw.baseAddress! + (offset - bytes.startIndex), count, socket: isSocket)
            }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK { continue }
                // A hub process that stopped reading has usually exited, which the reading side tells with its status;
                // a sender hands the line to the queue, whose failure waits for that.
                if errno == EPIPE, !isSocket { return waiting ? .failed(Self.stoppedReading) : .blocked(bytes[offset...]) }
                return .failed("writing to the hub failed: \(String(cString: strerror(errno)))")
            }
            offset += written
            if written > 0 { deadline = ContinuousClock.now + writeLimit }
        }
        return .written
    }

    private static func write(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int, socket: Bool) -> Int {
        // Sockets never raise SIGPIPE; pipes to a child rely on the process ignoring it (``HubConnection``).
        socket ? Glibc.send(descriptor, bytes, count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) : Glibc.write(descriptor, bytes, count)
    }

    /// Why writing to a pipe failed when its reader has gone.
    private static let stoppedReading = "the hub stopped reading its input"

    /// Ends the channel after a line could not be written (a line written in part leaves the framing broken):
    /// nothing more is sent, the receiver is told why, and the descriptors are released. A hub process that stopped
    /// reading its pipe has usually exited: its end, with its status, is left a second to come from the reading side.
    private func fail(_ reason: String) {
        let first = state.withLock { state -> Bool in
            guard state.failure == nil else { return false }
            state.failure = reason
            state.writeOpen = false
            state.writing = false
            state.queued = []
            state.head = 0
            state.queuedBytes = 0
            return true
        }
        guard first else { return }
        // Told on the writing queue: a sender that failed may hold the receiver's turn (a server answering from its
        // receiver), which the delivery waits for.
        let tell: @Sendable () -> Void = { [self] in
            deliver(.closed("a line could not be sent: \(reason)"))
            state.withLock { release(&$0) }
        }
        if reason == Self.stoppedReading { writer.asyncAfter(deadline: .now() + 1, execute: tell) } else { writer.async(execute: tell) }
    }

    /// Ends the channel at once: lines not yet written are dropped (a write under way stops within 100 ms), the peer
    /// sees the end of its input and, once reading has ended, the descriptors are released. It never waits.
    public func close() {
        state.withLock { state in
            state.writeOpen = false
            state.aborted = true
            release(&state)
        }
    }

    /// Ends the writing side once what was sent has been written (the peer then sees end of input), within the
    /// write limit from now; once reading has ended too, the descriptors are released. It never waits: the channel's
    /// queue writes what is left (``waitUntilSent()`` waits for it).
    public func closeAfterSending() {
        state.withLock { state in
            state.writeOpen = false
            if state.drainDeadline == nil { state.drainDeadline = .now + writeLimit }
            release(&state)
        }
    }

    /// Returns once the writing side is closed and every line sent before has been written (or writing failed or
    /// was stopped); call it after ``closeAfterSending()`` before the process exits, so that its last lines reach the
    /// peer.
    public func waitUntilSent() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                guard state.writeOpen || state.writing else { return true }
                state.sentWaiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }
}

extension FileDescriptorChannel {
    /// The start of an overlong line, as messages quote a line: its first characters, secrets masked.
    static func start(of bytes: [UInt8]) -> String {
        LineQuote.masked(String(decoding: bytes.prefix(200), as: UTF8.self))
    }
}
