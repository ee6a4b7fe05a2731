#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Listens on some of the store's channels (`LISTEN matterflow_queue`, `LISTEN matterflow_answers`, ...) on a
/// connection and a thread of its own, and hands what arrives to `notified`: `submit` notifies the queue in the
/// transaction that queues a run, and a worker handing runs back does too, so idle workers claim at once instead of
/// polling; `matterflow answer` notifies the answers channel with the run's ID, `matterflow cancel` the cancels
/// channel.
///
/// The connection is opened and listening when the initializer returns (when the server can be reached), so what is
/// announced after that is not missed. A broken connection is opened again every ``retryMilliseconds``; on
/// reconnecting `notified` is given nil, since notifications sent meanwhile are lost.
final class QueueListener: @unchecked Sendable {
    // Safety of @unchecked Sendable: `conninfo`, `channels` and `notified` are immutable; `stopping` and `thread` are
    // only touched while `monitor` is locked; `connection` is used by the listener's thread alone once the
    // initializer has returned.

    /// How long the thread waits on the socket before it looks whether it should stop.
    static let waitMilliseconds: Int32 = 200
    /// How often a broken connection is opened again.
    static let retryMilliseconds = 500

    private let conninfo: String
    private let channels: [String]
    private let notified: @Sendable ([PostgresNotification]?) -> Void
    private let monitor = Monitor()
    private var stopping = false
    private var thread: pthread_t?
    private var connection: PostgresConnection?

    /// Raises `signal` for every notification, and on reconnecting.
    convenience init(conninfo: String, channel: String, signal: WorkSignal) {
        self.init(conninfo: conninfo, channels: [channel]) { _ in signal.raise() }
    }

    /// Hands each read's notifications, of every channel in `channels`, to `notified` on the listener's thread; nil
    /// after reconnecting.
    init(conninfo: String, channels: [String], notified: @escaping @Sendable ([PostgresNotification]?) -> Void) {
        self.conninfo = conninfo
        self.channels = channels
        self.notified = notified
        connection = Self.connect(conninfo, channels: channels)
        if let created = StoreThread.start({ self.loop() }) {
            monitor.lock()
            thread = created
            monitor.unlock()
        } else {
            // No thread reads the connection: closed, it holds no server slot (the worker polls instead).
            connection?.close()
            connection = nil
        }
    }

    /// Whether the listener is connected and listening (false while the server is out of reach).
    private static func connect(_ conninfo: String, channels: [String]) -> PostgresConnection? {
        guard let opened = try? PostgresConnection(conninfo) else { return nil }
        do {
            for channel in channels { try opened.listen(channel) }
            return opened
        } catch {
            opened.close()
            return nil
        }
    }

    private var isStopping: Bool {
        monitor.lock()
        defer { monitor.unlock() }
        return stopping
    }

    private func loop() {
        while !isStopping {
            guard let open = connection else {
                monitor.lock()
                if !stopping { monitor.wait(milliseconds: Self.retryMilliseconds) }
                monitor.unlock()
                connection = Self.connect(conninfo, channels: channels)
                if connection != nil { notified(nil) }
                continue
            }
            do {
                let arrived = try open.notifications(timeoutMilliseconds: Self.waitMilliseconds)
                if !arrived.isEmpty { notified(arrived) }
            } catch {
                open.close()
                connection = nil
            }
        }
        connection?.close()
        connection = nil
    }

    /// Stops the thread and waits for it (at most one socket wait, ``waitMilliseconds``).
    func stop() {
        monitor.lock()
        stopping = true
        monitor.broadcast()
        let running = thread
        thread = nil
        monitor.unlock()
        if let running { pthread_join(running, nil) }
    }
}
