import MatterFlow
import Synchronization

/// Two connected in-process ``LineChannel`` ends, for serving a Swift hub to a client in the same process (tests,
/// the fixture library over the wire).
///
/// Each direction delivers its lines in order on the task that sends them (a send made while a delivery is under
/// way is queued and delivered by it), so nothing waits for a thread. With a shared clock, a line holds that clock
/// (a ``ClockHold``) from its sending until its receiver has taken it (see ``LineChannel``).
public final class MemoryLineChannel: LineChannel {
    /// An event on its way, with the hold a line keeps on the shared clock.
    private struct Queued {
        var event: LineEvent
        var hold: ClockHold?
    }

    private struct Direction {
        var receiver: (@Sendable (LineEvent) -> Void)?
        var queue: [Queued] = []
        var delivering = false
        var closed = false
    }

    private let inbound: Mutex<Direction>
    private let peerBox: Mutex<MemoryLineChannel?>
    public let sharedClock: (any WorkflowClock)?

    private init(clock: (any WorkflowClock)?) {
        inbound = Mutex(Direction())
        peerBox = Mutex(nil)
        sharedClock = clock
    }

    /// A connected pair: what one end sends, the other receives.
    /// - Parameter clock: a virtual clock both ends run on, or nil.
    public static func pair(sharedClock clock: (any WorkflowClock)? = nil) -> (MemoryLineChannel, MemoryLineChannel) {
        let first = MemoryLineChannel(clock: clock)
        let second = MemoryLineChannel(clock: clock)
        first.peerBox.withLock { $0 = second }
        second.peerBox.withLock { $0 = first }
        return (first, second)
    }

    private var peer: MemoryLineChannel? { peerBox.withLock { $0 } }

    public func start(_ receive: @escaping @Sendable (LineEvent) -> Void) {
        inbound.withLock { $0.receiver = receive }
        drain()
    }

    public func send(_ line: String) throws(LineChannelError) {
        guard !inbound.withLock({ $0.closed }), let peer else { throw LineChannelError("the connection is closed") }
        guard line.utf8.count <= LineChannelLimits.maximumLineBytes else {
            throw LineChannelError("a line of \(line.utf8.count) bytes is longer than the protocol's 1 MiB limit")
        }
        guard peer.enqueue(.line(line)) else { throw LineChannelError("the connection is closed") }
    }

    public func close() {
        let wasOpen = inbound.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        guard wasOpen else { return }
        _ = peer?.enqueue(.closed("the other end closed the connection"))
        _ = enqueue(.closed("the connection was closed"))
    }

    /// Queues an event for this end's receiver; false when this end has already seen its end.
    private func enqueue(_ event: LineEvent) -> Bool {
        var hold: ClockHold?
        if case .line = event, let sharedClock { hold = ClockHold(sharedClock) }
        let accepted = inbound.withLock { state -> Bool in
            if state.queue.contains(where: { if case .closed = $0.event { true } else { false } }) { return false }
            state.queue.append(Queued(event: event, hold: hold))
            return true
        }
        guard accepted else {
            hold?.release()
            return false
        }
        drain()
        return true
    }

    /// Delivers queued events in order unless another call is already doing so.
    private func drain() {
        while true {
            let next = inbound.withLock { state -> (Queued, @Sendable (LineEvent) -> Void)? in
                guard !state.delivering, let receiver = state.receiver, !state.queue.isEmpty else { return nil }
                state.delivering = true
                return (state.queue.removeFirst(), receiver)
            }
            guard let (queued, receiver) = next else { return }
            let event = queued.event
            receiver(event)
            queued.hold?.release()
            inbound.withLock { state in
                state.delivering = false
                // Nothing follows the end: let go of the receiver and the peer, which may refer back to this end.
                if case .closed = event { state.receiver = nil }
            }
            if case .closed = event { peerBox.withLock { $0 = nil } }
        }
    }
}
