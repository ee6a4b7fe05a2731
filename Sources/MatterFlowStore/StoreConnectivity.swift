import MatterFlow
import Synchronization

/// Whether the store can be reached, as the commands and the group commit of one process find it: told each
/// failure that a reconnect may outlive and each success, it says once when the store becomes unreachable and once
/// when it is reachable again, with how long it was not, to whoever listens (a worker's log). Reconnecting is
/// silent otherwise, so an operator would never hear of an outage shorter than the reconnect limits.
public final class StoreConnectivity: Sendable {
    private struct State {
        /// When the store was first found unreachable, since it was last reached.
        var lostAt: ContinuousClock.Instant?
        /// Whether the outage going on was said to be a server that takes no writes.
        var saidReadOnly = false
        /// Whether a connection could not be made during the outage going on (``PostgresError/serverLost``), or one
        /// was made to another server than before (``connected(_:)``).
        var serverLost = false
        /// The server connections were last made to (``PostgresConnection/serverStarted()``).
        var server: String?
        /// Whether it could not, during the outage that ended last.
        var lastOutageLostServer = false
        /// When the store was last reached again after being unreachable.
        var foundAt: ContinuousClock.Instant?
        var listeners: [Int: Listener] = [:]
        var nextListener = 0
    }

    private let state = Mutex(State())

    /// Told each line: whether the store is reachable as of it, the line, and for a line saying it is reachable
    /// again, whether in that outage a connection could not be made (``lastOutageLostServer`` as of that line).
    typealias Listener = @Sendable (_ reachable: Bool, _ line: String, _ lostServer: Bool) -> Void

    /// Nobody listening, the store taken as reachable.
    public init() {}

    /// Calls `listener` with each line from now on, and whether the store is reachable as of it.
    /// - Returns: What ``stopListening(_:)`` takes.
    public func listen(_ listener: @escaping @Sendable (_ reachable: Bool, _ line: String) -> Void) -> Int {
        listen { reachable, line, _ in listener(reachable, line) }
    }

    /// Calls `listener` with each line from now on, whether the store is reachable as of it, and whether the outage a
    /// line of reaching it again ends could not make connections: read with the line, not after it (another outage
    /// may have ended meanwhile).
    func listen(_ listener: @escaping Listener) -> Int {
        state.withLock { state in
            defer { state.nextListener += 1 }
            state.listeners[state.nextListener] = listener
            return state.nextListener
        }
    }

    /// Whether the last command reached the store (true until one fails).
    public var isReachable: Bool { state.withLock { $0.lostAt == nil } }

    /// A connection was made: to a server other than that of the connections before (its postmaster started at
    /// another time: a standby promoted, a server restarted), it counts as a lost server for the outage going on or
    /// next ended. Looked at only while someone listens (a worker, whose takeovers it holds): a command that only
    /// submits or reads spends no round trip on it.
    func connected(_ connection: PostgresConnection) {
        guard state.withLock({ !$0.listeners.isEmpty }), let server = connection.serverStarted() else { return }
        connected(to: server)
    }

    /// A connection was made to the server whose postmaster started at `server` (``connected(_:)``).
    func connected(to server: String) {
        state.withLock { state in
            if let known = state.server, known != server { state.serverLost = true }
            state.server = server
        }
    }

    /// Whether, in the outage that ended last, a connection could not be made (the server gone or taking no writes, as
    /// in a failover), rather than one broken and made again at once.
    public var lastOutageLostServer: Bool { state.withLock { $0.lastOutageLostServer } }

    /// Whether the store was unreachable at some moment since `instant` (a command waited out an outage then).
    func wasLost(since instant: ContinuousClock.Instant) -> Bool {
        state.withLock { state in state.lostAt != nil || state.foundAt.map { $0 >= instant } == true }
    }

    /// Calls a listener no more.
    public func stopListening(_ token: Int) {
        _ = state.withLock { $0.listeners.removeValue(forKey: token) }
    }

    /// A command failed in a way a reconnect may mend (`message`, while `doing` it; `readOnly`: the server takes no
    /// writes; `serverLost`: a connection could not be made): said when the store was reachable until now.
    func failed(_ message: String, doing what: String, readOnly: Bool = false, serverLost: Bool = false) {
        // An outage that began otherwise (the server went away) and goes on as a server that takes no writes (a
        // standby, until one is promoted) is said again, once, as such.
        let listeners = state.withLock { state -> [Listener] in
            if serverLost { state.serverLost = true }
            guard state.lostAt == nil || (readOnly && !state.saidReadOnly) else { return [] }
            if state.lostAt == nil { state.lostAt = .now }
            if readOnly { state.saidReadOnly = true }
            return Array(state.listeners.values)
        }
        for listener in listeners {
            listener(
                false,
                readOnly
                    ? "the store takes no writes (\(message), \(what)): a standby during a failover, or default_transaction_read_only; reconnecting to a writable server: runs wait where they are"
                    : "the store cannot be reached (\(message), \(what)); reconnecting: runs wait where they are",
                false)
        }
    }

    /// A command succeeded: said when the store was unreachable until now, naming the server reached when the command
    /// ran on a connection opened during the outage (`via`: with a conninfo naming several hosts, the one that takes
    /// writes now).
    func reached(via connection: PostgresConnection? = nil) {
        let (listeners, lost, address, lostServer) = state.withLock { state -> ([Listener], Duration?, String?, Bool) in
            guard let lostAt = state.lostAt else { return ([], nil, nil, false) }
            state.lostAt = nil
            state.saidReadOnly = false
            state.lastOutageLostServer = state.serverLost
            state.serverLost = false
            state.foundAt = .now
            let opened = connection.flatMap { $0.openedAt >= lostAt ? $0.server : nil }
            return (Array(state.listeners.values), .now - lostAt, opened, state.lastOutageLostServer)
        }
        guard let lost else { return }
        let tenths = (lost.secondsValue * 10).rounded() / 10
        let line = "the store is reachable again, after \(tenths) s" + (address.map { ", connected to \($0)" } ?? "")
        for listener in listeners { listener(true, line, lostServer) }
    }
}
