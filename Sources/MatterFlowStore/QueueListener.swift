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
    // Safety of @unchecked Sendable: `conninfo`, `channels`, `notified` and `wake` are immutable (the pipe's
    // descriptors are written by `stop()` and polled by the thread, both thread-safe system calls); `stopping` and
    // `thread` are only touched while `monitor` is locked; `connection` is used by the listener's thread alone once
    // the initializer has returned.

    /// How long the thread waits on the socket, by default, before it looks again whether it should stop.
    /// ``stop()`` ends the wait at once, through a pipe the thread polls beside the socket; this bounds it should the
    /// pipe be missing (no descriptor left to open one).
    static let waitMilliseconds: Int32 = 200
    /// How often a broken connection is opened again.
    static let retryMilliseconds = 500

    private let conninfo: String
    private let applicationName: String?
    private let channels: [String]
    private let notified: @Sendable ([PostgresNotification]?) -> Void
    private let waitMilliseconds: Int32
    private let monitor = Monitor()
    private var stopping = false
    private var thread: pthread_t?
    private var connection: PostgresConnection?
    /// A pipe whose reading end the thread polls beside the connection's socket; ``stop()`` writes to it. Nil when
    /// it could not be opened.
    private let wake: (read: Int32, write: Int32)?

    /// Raises `signal` for every notification, and on reconnecting.
    convenience init(conninfo: String, applicationName: String? = nil, channel: String, signal: WorkSignal) {
        self.init(conninfo: conninfo, applicationName: applicationName, channels: [channel]) { _ in signal.raise() }
    }

    /// Hands each read's notifications, of every channel in `channels`, to `notified` on the listener's thread; nil
    /// after reconnecting. The thread waits on the socket `waitMilliseconds` at a time.
    init(
        conninfo: String, applicationName: String? = nil, channels: [String], waitMilliseconds: Int32 = QueueListener.waitMilliseconds,
        notified: @escaping @Sendable ([PostgresNotification]?) -> Void
    ) {
        self.conninfo = conninfo
        self.applicationName = applicationName
        self.channels = channels
        self.waitMilliseconds = waitMilliseconds
        self.notified = notified
        wake = Self.openWakePipe()
        connection = Self.connect(conninfo, applicationName: applicationName, channels: channels)
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

    /// A pipe marked close-on-exec, so that processes the worker starts (hubs) do not hold it.
    private static func openWakePipe() -> (read: Int32, write: Int32)? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends { _ = fcntl(end, F_SETFD, fcntl(end, F_GETFD) | FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    /// Whether the listener is connected and listening (false while the server is out of reach).
    private static func connect(_ conninfo: String, applicationName: String?, channels: [String]) -> PostgresConnection? {
        guard let opened = try? PostgresConnection(conninfo, applicationName: applicationName) else { return nil }
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
                let stopped = stopping
                monitor.unlock()
                if stopped { break }
                connection = Self.connect(conninfo, applicationName: applicationName, channels: channels)
                if connection != nil { notified(nil) }
                continue
            }
            do {
                let arrived = try open.notifications(timeoutMilliseconds: waitMilliseconds, wakeDescriptor: wake?.read)
                if !arrived.isEmpty { notified(arrived) }
            } catch {
                open.close()
                connection = nil
            }
        }
        connection?.close()
        connection = nil
    }

    /// Stops the thread and waits for it: it wakes at once, from a socket wait or a reconnection's pause.
    func stop() {
        monitor.lock()
        stopping = true
        monitor.broadcast()
        let running = thread
        thread = nil
        monitor.unlock()
        if let wake {
            var byte: UInt8 = 1
            _ = write(wake.write, &byte, 1)
        }
        if let running { pthread_join(running, nil) }
    }

    deinit {
        if let wake {
            close(wake.read)
            close(wake.write)
        }
    }
}
