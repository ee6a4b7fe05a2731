import CLibPQ
import Foundation
import MatterFlowJSON
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A PostgreSQL failure: what went wrong, the server's SQLSTATE when it sent one, and its message.
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable codes (documented in `docs/store.md`).
    public enum Code: String, Sendable, Hashable {
        /// No connection could be made (server down, wrong address, authentication refused).
        case connectionFailed
        /// The connection broke during a command; the command's effect is unknown unless it was a read.
        case connectionLost
        /// The server refused a command (the SQLSTATE says why).
        case commandFailed
        /// The connection string is not one libpq can read (an unknown setting, a bad number, a broken URI): no
        /// server was asked, and asking again cannot help.
        case malformedConninfo
        /// The server gave no answer within the connection's answer deadline (``PostgresConnection/init(_:applicationName:answerWithin:)``):
        /// a pooler holding the statement, or a server stopped; the connection was closed, and the command's effect
        /// is unknown unless it was a read. Not tried again: a command that must answer in time has no time to.
        case noAnswer
    }

    /// What kind of failure it is: a stable code scripts may rely on.
    public var code: Code
    /// The five-character SQLSTATE the server reported (`23505` unique violation, `40001` serialization failure...).
    public var sqlState: String?
    /// What went wrong, in words: the server's or libpq's message where one was given.
    public var message: String
    /// For `connectionFailed`: the server answered at once and is up, and refused this connection (a password or
    /// role it does not accept, a database it does not have, or no connection slot free), as opposed to a server out
    /// of reach or starting up. Retried as any failure to connect (a slot frees, a database is made), but named so.
    public var refusedByServer = false

    /// Creates a failure with its code, the server's SQLSTATE (nil when it sent none) and its message.
    public init(_ code: Code, sqlState: String? = nil, _ message: String) {
        self.code = code
        self.sqlState = sqlState
        self.message = message
    }

    /// `code [SQLSTATE]: message`, the SQLSTATE left out when there is none.
    public var description: String {
        "\(code.rawValue)\(sqlState.map { " [\($0)]" } ?? ""): \(message)"
    }

    /// Whether the server refused the command because of a unique constraint.
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// Whether trying the command again may succeed: the connection broke (SQLSTATE class 08), the server is
    /// shutting down, restarting or closed an idle session (57P01, 57P02, 57P03, 57P05), or the transaction lost a
    /// deadlock or serialization conflict (40001, 40P01) and was rolled back whole.
    ///
    /// A statement the server cancelled (57014: a `statement_timeout`, or `pg_cancel_backend`) is not: sent again it
    /// would run as long and be cancelled again, each time for the whole timeout (``isCancelled``).
    public var isTransient: Bool {
        switch code {
        case .connectionFailed, .connectionLost: return true
        case .malformedConninfo, .noAnswer: return false
        case .commandFailed:
            // A failure without an SQLSTATE comes from libpq itself, not the server: the connection went away
            // while the command was under way.
            guard let sqlState else { return true }
            return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03", "57P05", "40001", "40P01", Self.readOnly].contains(sqlState)
        }
    }

    /// SQLSTATE 25006: the server refused a write (or a `LISTEN`) as read-only: a standby in recovery, which a
    /// failover may promote in a moment, or a primary set `default_transaction_read_only` (as some fence writes
    /// during maintenance). A new connection asks for a writable server (``PostgresConnection/networkDefaults``).
    public static let readOnly = "25006"

    /// Whether a host of the conninfo refused the connection for its credentials or database (a password, a role, an
    /// `pg_hba.conf` entry, a database it does not have): a misconfiguration, not a failover, even when another host
    /// was read-only. (libpq's English messages: a translated libpq is not recognised, and its read-only refusals are
    /// then said as any connection failure.)
    var refusedForCredentials: Bool {
        ["authentication failed", "pg_hba.conf", "does not exist", "password"].contains { message.contains($0) }
    }

    /// A server that takes no writes, and not a host that refused the credentials beside it: what the store's
    /// messages call a failover under way.
    public var isReadOnlyOutage: Bool { isReadOnlyServer && !refusedForCredentials }

    /// Whether a connection could not be made because no server of the conninfo was there to take it: none answered,
    /// or those that did take no writes (a failover under way). Not a server that is up and refused this connection
    /// (its credentials, its connection limit), nor a connection that broke and was made again at once.
    public var serverLost: Bool {
        code == .connectionFailed && (!refusedByServer || isReadOnlyServer) && !refusedForCredentials
    }

    /// Whether the server the connection reached, or tried, takes no writes: a command refused as read-only
    /// (``readOnly``), or a connection libpq refused because the server said so (`target_session_attrs=read-write`:
    /// "session is read-only", or "server is in hot standby mode").
    public var isReadOnlyServer: Bool {
        switch code {
        case .commandFailed: sqlState == Self.readOnly
        case .connectionFailed: message.contains("session is read-only") || message.contains("hot standby")
        case .connectionLost, .malformedConninfo, .noAnswer: false
        }
    }

    /// SQLSTATE 57P03: the server is running but accepts no connection yet (starting up, shutting down, recovering).
    public static let cannotConnectNow = "57P03"

    /// Whether the server is running but refused the connection for the moment: it is starting up, shutting down
    /// or recovering from a crash (``cannotConnectNow``).
    public var isServerNotReady: Bool { code == .connectionFailed && sqlState == Self.cannotConnectNow }

    /// Whether the server cancelled the statement (SQLSTATE 57014): it ran longer than a `statement_timeout` set for
    /// the role, the database or the server, or someone called `pg_cancel_backend` on it.
    public var isCancelled: Bool { code == .commandFailed && sqlState == "57014" }

    /// Whether the server could not be reached or went away (not a statement the server refused for a moment, such
    /// as a serialization failure or a deadlock, which ``isTransient`` retries too): what an operator calls an outage.
    public var isOutage: Bool {
        switch code {
        case .connectionFailed, .connectionLost, .noAnswer: return true
        case .malformedConninfo: return false
        case .commandFailed:
            guard let sqlState else { return true }
            return sqlState.hasPrefix("08") || sqlState.hasPrefix("57P") || sqlState == Self.readOnly
        }
    }
}

/// The rows a command returned, as Swift values: text columns, nil for SQL NULL.
public struct PostgresRows: Sendable {
    /// The columns' names, in order.
    public var columns: [String]
    /// One array per row, a value per column.
    public var rows: [[String?]]
    /// The number of rows the command inserted, updated or deleted (`PQcmdTuples`), 0 when it said none.
    public var affected: Int

    /// The value of a named column in a row; nil for NULL or an unknown column.
    public func value(_ column: String, row: Int) -> String? {
        guard let index = columns.firstIndex(of: column), row < rows.count else { return nil }
        return rows[row][index]
    }
}

/// A notification received on a channel the connection listens on (`LISTEN` / `NOTIFY`).
public struct PostgresNotification: Sendable, Hashable {
    /// The channel the notification was sent on (`NOTIFY channel`).
    public var channel: String
    /// The text sent with the notification; empty when it had none.
    public var payload: String
}

/// One connection to PostgreSQL through libpq: the only file of MatterFlow that calls libpq (its functions opened
/// by ``LibPQ`` the first time a connection is made).
///
/// Every command is sent with its values as parameters (`$1`, `$2`, ...), never spliced into the SQL text, and
/// its result is converted to Swift values before the call returns. Calls are serialized by a lock, so one
/// connection may be shared by tasks; they block the calling thread for the round trip. libpq's notices
/// (warnings the server sends) are dropped, so the library never prints.
public final class PostgresConnection: Sendable {
    /// The libpq connection handle; only touched under ``handle``'s lock.
    private struct Handle: ~Copyable {
        var pointer: OpaquePointer?
        /// The statements prepared on this connection, by SQL text: their names.
        var prepared: [String: String] = [:]
    }

    private let handle: Mutex<Handle>
    private let pq: LibPQ
    /// How long a command waits for the server's answer; nil: as long as it takes.
    private let answerDeadline: AnswerDeadline?
    /// The conninfo string or `postgres://` URI the connection was opened with (for messages, without password).
    public let target: String
    /// When the connection was made (libpq had reached a server), by this machine's monotonic clock.
    public let openedAt: ContinuousClock.Instant

    /// What a connection over TCP uses unless its conninfo says otherwise: a connect that gets no answer gives up
    /// after 10 s, and a server that vanished without closing the connection (its host down, a network split, a
    /// failover that moved its address) is noticed within about half a minute instead of the system's hours, so
    /// commands fail over to reconnecting and listeners listen again (a Unix socket ignores the TCP ones). The
    /// connection, over TCP or a socket, is made only to a server that takes writes (`target_session_attrs=read-write`): of a conninfo naming a primary
    /// and its standbys (`host=a,b`), the one that is primary now, and during a failover none, which is waited out as
    /// an outage, rather than a standby that refuses every write. And the connection is named `matterflow` in
    /// `pg_stat_activity` unless `application_name` (or `PGAPPNAME`) names it.
    static let networkDefaults: [(keyword: String, value: String)] = [
        ("connect_timeout", "10"), ("keepalives", "1"), ("keepalives_idle", "10"), ("keepalives_interval", "5"),
        ("keepalives_count", "3"), ("tcp_user_timeout", "30000"), ("target_session_attrs", "read-write"),
        ("fallback_application_name", "matterflow"),
    ]

    /// The ``networkDefaults`` this libpq knows, less those its environment sets (`PGCONNECT_TIMEOUT`, ...): none
    /// when a service file may set them (`PGSERVICE`).
    static let applicableDefaults: [(keyword: String, value: String)] = {
        guard getenv("PGSERVICE") == nil, case .success(let pq) = LibPQ.loaded else { return [] }
        let known = options(pq.conndefaults(), pq)
        return networkDefaults.filter { setting in
            guard let option = known.first(where: { $0.keyword == setting.keyword }) else { return false }
            return option.envvar.map { getenv($0) == nil } ?? true
        }
    }()

    /// A libpq option list (`PQconndefaults`, `PQconninfoParse`, `PQconninfo`) as Swift values, freed; empty for nil.
    private static func options(_ list: UnsafeMutablePointer<PQconninfoOption>?, _ pq: LibPQ) -> [(keyword: String, value: String?, envvar: String?)] {
        guard let list else { return [] }
        defer { pq.conninfoFree(list) }
        var options: [(keyword: String, value: String?, envvar: String?)] = []
        var index = 0
        while let keyword = list[index].keyword {
            options.append((String(cString: keyword), list[index].val.map { String(cString: $0) }, list[index].envvar.map { String(cString: $0) }))
            index += 1
        }
        return options
    }

    /// When the server's postmaster started (`pg_postmaster_start_time()`), as text: what tells one server, or one
    /// run of it, from another behind the same conninfo (a standby promoted, a server restarted). Nil when it cannot
    /// be read.
    func serverStarted() -> String? {
        (try? execute("SELECT pg_postmaster_start_time()::text"))?.rows.first?.first ?? nil
    }

    /// Connects to PostgreSQL.
    /// - Parameter conninfo: A libpq connection string (`host=/tmp/pg port=5432 dbname=matterflow`) or URI
    ///   (`postgres://user@host:5432/db?host=/socket/dir`). Settings it leaves out default to ``networkDefaults``,
    ///   unless the environment sets them (``applicableDefaults``) or it names a `service`.
    ///   `applicationName` names the connection in `pg_stat_activity` instead of `matterflow`, unless the conninfo or
    ///   `PGAPPNAME` names it (a worker's connections carry its ID, so a DBA can tell whose a backend is).
    ///   `answerWithin`: how long each command waits for the server's answer before the connection is closed and the
    ///   command fails `noAnswer` (nil: as long as it takes); for commands that must end, such as monitoring probes.
    /// - Throws: ``PostgresError`` `connectionFailed` with libpq's reason, or when libpq cannot be opened; the
    ///   failure of the session setting made once connected (`extra_float_digits`) as any command's.
    public convenience init(_ conninfo: String, applicationName: String? = nil, answerWithin: Duration? = nil) throws(PostgresError) {
        try self.init(conninfo, applicationName: applicationName, answerDeadline: answerWithin.map { AnswerDeadline(limit: $0) })
    }

    /// Connects as ``init(_:applicationName:answerWithin:)`` does, with the answer deadline given whole (tests give
    /// one its timer).
    init(_ conninfo: String, applicationName: String?, answerDeadline: AnswerDeadline?) throws(PostgresError) {
        let pq = try LibPQ.loaded.get()
        self.pq = pq
        self.answerDeadline = answerDeadline
        target = Self.redacting(conninfo)
        if let problem = Self.parseProblem(conninfo, pq) {
            throw PostgresError(.malformedConninfo, problem)
        }
        // The defaults first, then the conninfo expanded in the place of `dbname`: what it sets wins.
        var defaults = (Self.namesService(conninfo) ? [] : Self.applicableDefaults).map { setting -> (keyword: String, value: String) in
            setting.keyword == "fallback_application_name" ? (setting.keyword, applicationName ?? setting.value) : setting
        }
        // A service file may name the connection; the name given is the fallback all the same.
        if let applicationName, !defaults.contains(where: { $0.keyword == "fallback_application_name" }) {
            defaults.append(("fallback_application_name", applicationName))
        }
        let keywords = defaults.map(\.keyword) + ["dbname"]
        let values = defaults.map(\.value) + [conninfo]
        let started = ContinuousClock.now
        let connected = Self.withCStrings(keywords) { keywordPointers in
            Self.withCStrings(values) { valuePointers in
                pq.connectdbParams(keywordPointers + [nil], valuePointers + [nil], 1)
            }
        }
        guard let pointer = connected else {
            throw PostgresError(.connectionFailed, "cannot connect to \(target): out of memory")
        }
        guard pq.status(pointer) == CONNECTION_OK else {
            // libpq may quote the string, or the part of it it could not read, password included.
            let reason = ConninfoRedaction.scrubbing(Self.message(of: pointer, pq), about: conninfo)
            pq.finish(pointer)
            // A setting's value libpq checks only as it connects (`port=abc`, `sslmode=maybe`) is the string's fault.
            // libpq words it so in English; a libpq built to translate its messages, under another language, is
            // told apart no more, and the failure then reads as one to connect (retried, and named as such).
            if reason.hasPrefix("invalid ") {
                throw PostgresError(.malformedConninfo, "a setting PostgreSQL's client cannot take: \(reason)")
            }
            // A server starting up, shutting down or recovering from a crash refuses connections for a moment:
            // PQping tells it from one that refused them for good (a password, a database that does not exist), in
            // whatever language the server speaks, and the failure carries the SQLSTATE the server sent then. Only a
            // refusal that came at once is asked about: a host that did not answer would keep the ping waiting as long.
            let answered = ContinuousClock.now - started < .seconds(2)
            let ping = !answered ? PQPING_NO_RESPONSE : Self.withCStrings(keywords) { keywordPointers in
                Self.withCStrings(values) { valuePointers in pq.pingParams(keywordPointers + [nil], valuePointers + [nil], 1) }
            }
            // A failure before any server was asked (with no user named, a local user with no passwd entry) is this
            // machine's settings: asking again cannot help. (A passwd lookup that fails for a moment, its directory
            // service down, is taken so too.)
            if ping == PQPING_NO_ATTEMPT {
                throw PostgresError(.malformedConninfo, "the client could not try to connect to \(target): \(reason)")
            }
            var failure = PostgresError(
                .connectionFailed, sqlState: ping == PQPING_REJECT ? PostgresError.cannotConnectNow : nil,
                "cannot connect to \(target): \(reason)")
            failure.refusedByServer = ping == PQPING_OK
            throw failure
        }
        _ = pq.setNoticeReceiver(pointer, { _, _ in }, nil)
        openedAt = .now
        handle = Mutex(Handle(pointer: pointer))
        // MatterFlow reads moments as seconds since the epoch in float8 text: exact whatever the role or database
        // sets (`extra_float_digits = -10` showed every run as started hours off).
        try execute("SET extra_float_digits = 3")
    }

    deinit {
        handle.withLock { handle in
            if let pointer = handle.pointer { pq.finish(pointer) }
            handle.pointer = nil
        }
    }

    /// Closes the connection; later commands fail with `connectionLost`.
    public func close() {
        handle.withLock { handle in
            if let pointer = handle.pointer { pq.finish(pointer) }
            handle.pointer = nil
        }
    }

    /// Why libpq cannot read `conninfo` (`PQconninfoParse`), in words that never show a value of it; nil when it can.
    private static func parseProblem(_ conninfo: String, _ pq: LibPQ) -> String? {
        var reason: UnsafeMutablePointer<CChar>?
        let parsed = pq.conninfoParse(conninfo, &reason)
        guard parsed == nil else {
            pq.conninfoFree(parsed)
            return nil
        }
        defer { pq.freemem(reason) }
        let said = reason.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "it cannot be read"
        var problem = "not a PostgreSQL connection string libpq can read: \(ConninfoRedaction.scrubbing(said, about: conninfo))"
        if let option = said.firstMatch(of: /invalid (?:connection option|URI query parameter):? ?"([^"]*)"/)?.1,
            case let known = options(pq.conndefaults(), pq).map(\.keyword),
            let near = SpellingSuggestion.closest(to: String(option), among: known)
        {
            problem += " (did you mean \"\(near)\"?)"
        }
        return problem + "; the string is not shown"
    }

    /// Whether a conninfo names a service (`service=...`, or `?service=` in a URI), whose file may set anything.
    static func namesService(_ conninfo: String) -> Bool {
        guard case .success(let pq) = LibPQ.loaded else { return false }
        return options(pq.conninfoParse(conninfo, nil), pq).contains { $0.keyword == "service" && $0.value != nil }
    }

    /// The value of a connection setting in use (`PQconninfo`): the conninfo's, or libpq's default; nil when unset.
    public func setting(_ keyword: String) -> String? {
        let settings = handle.withLock { handle in handle.pointer.map { Self.options(pq.conninfo($0), pq) } ?? [] }
        return settings.first { $0.keyword == keyword }?.value ?? nil
    }

    /// Where the connection went (the host of a list it reached, whatever the conninfo left to libpq's environment
    /// and defaults): `user@host:port/database`; nil once it is closed. Holds no password.
    public var server: String? {
        handle.withLock { handle -> String? in
            guard let pointer = handle.pointer else { return nil }
            func text(_ value: UnsafeMutablePointer<CChar>?) -> String { value.map { String(cString: $0) } ?? "?" }
            return "\(text(pq.user(pointer)))@\(text(pq.host(pointer))):\(text(pq.port(pointer)))/\(text(pq.db(pointer)))"
        }
    }

    /// Whether the connection is still usable.
    public var isOpen: Bool {
        handle.withLock { handle in handle.pointer.map { pq.status($0) == CONNECTION_OK } ?? false }
    }

    /// Runs one SQL command with its parameters (text values; nil is NULL) and returns its rows.
    ///
    /// Several statements separated by `;` are allowed only without parameters (migrations).
    /// - Throws: ``PostgresError``: `commandFailed` with the server's SQLSTATE, `connectionLost` when the
    ///   connection broke.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresRows {
        let outcome = handle.withLock { handle -> Result<PostgresRows, PostgresError> in
            guard let pointer = handle.pointer else {
                return .failure(PostgresError(.connectionLost, "the connection to \(target) is closed"))
            }
            let answer = Self.answer(on: &handle, pointer: pointer, within: answerDeadline, target: target, pq) { () -> Result<OpaquePointer?, PostgresError> in
                if parameters.isEmpty { return .success(pq.exec(pointer, sql)) }
                return .success(Self.withCStrings(parameters) { values in
                    pq.execParams(pointer, sql, Int32(parameters.count), nil, values, nil, nil, 0)
                })
            }
            return answer.flatMap { Self.convert($0, connection: pointer, target: target, pq) }
        }
        return try outcome.get()
    }

    /// Runs one SQL command as ``execute(_:_:)`` does, as a statement prepared on this connection the first time
    /// it is run: the server parses and plans it once, not on every call. For the commands a worker repeats for
    /// every batch and claim; one statement only.
    @discardableResult
    public func execute(prepared sql: String, _ parameters: [String?]) throws(PostgresError) -> PostgresRows {
        let pq = pq
        return try executePrepared(sql, parameterCount: parameters.count) { pointer, name in
            .success(Self.withCStrings(parameters) { values in
                pq.execPrepared(pointer, name, Int32(parameters.count), values, nil, nil, 0)
            })
        }
    }

    /// Runs one prepared statement as ``execute(prepared:_:)`` does, its parameters sent in PostgreSQL's binary
    /// format (each the bytes of its type's binary form, such as ``PostgresBinaryArray/bytes``; the statement
    /// names each parameter's type with a cast, `$1::text[]`); its results come back as text. For batches, which
    /// the server then takes as they are instead of parsing their text.
    @discardableResult
    public func execute(prepared sql: String, binary parameters: [[UInt8]]) throws(PostgresError) -> PostgresRows {
        let (target, pq) = (target, pq)
        return try executePrepared(sql, parameterCount: parameters.count) { pointer, name in
            var lengths: [Int32] = []
            for parameter in parameters {
                guard let length = Int32(exactly: parameter.count) else {
                    return .failure(PostgresError(.commandFailed, "\(target): a parameter of \(parameter.count) bytes is more than PostgreSQL takes"))
                }
                lengths.append(length)
            }
            let formats = [Int32](repeating: 1, count: parameters.count)
            let storage = parameters.map { bytes -> UnsafeMutablePointer<CChar> in
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
                bytes.withUnsafeBytes { source in
                    if let base = source.baseAddress { UnsafeMutableRawPointer(copy).copyMemory(from: base, byteCount: bytes.count) }
                }
                return copy
            }
            defer { for pointer in storage { pointer.deallocate() } }
            let values: [UnsafePointer<CChar>?] = storage.map { UnsafePointer($0) }
            return .success(pq.execPrepared(pointer, name, Int32(parameters.count), values, lengths, formats, 0))
        }
    }

    /// Prepares `sql` on this connection the first time it is run, then lets `run` execute it by its name; converts
    /// what the server answered.
    private func executePrepared(
        _ sql: String, parameterCount: Int, _ run: @Sendable (OpaquePointer, String) -> Result<OpaquePointer?, PostgresError>
    ) throws(PostgresError) -> PostgresRows {
        let outcome = handle.withLock { handle -> Result<PostgresRows, PostgresError> in
            guard let pointer = handle.pointer else {
                return .failure(PostgresError(.connectionLost, "the connection to \(target) is closed"))
            }
            let name: String
            switch Self.prepare(sql, parameterCount: parameterCount, on: &handle, pointer: pointer, within: answerDeadline, target: target, pq) {
            case .success(let prepared): name = prepared
            case .failure(let error): return .failure(error)
            }
            return Self.answer(on: &handle, pointer: pointer, within: answerDeadline, target: target, pq) { run(pointer, name) }
                .flatMap { Self.convert($0, connection: pointer, target: target, pq) }
        }
        return try outcome.get()
    }

    /// Prepares `sql` on this connection unless it was prepared here before, so that a later
    /// ``execute(prepared:_:)`` of it only runs it. The server takes the locks of the tables `sql` names while it
    /// prepares it, in a transaction of its own: a wait for them shows here, not in the statement's `now()`.
    public func prepare(_ sql: String, parameterCount: Int) throws(PostgresError) {
        let (target, pq, answerDeadline) = (target, pq, answerDeadline)
        let outcome = handle.withLock { handle -> Result<String, PostgresError> in
            guard let pointer = handle.pointer else {
                return .failure(PostgresError(.connectionLost, "the connection to \(target) is closed"))
            }
            return Self.prepare(sql, parameterCount: parameterCount, on: &handle, pointer: pointer, within: answerDeadline, target: target, pq)
        }
        _ = try outcome.get()
    }

    /// The name of `sql` prepared on this connection, preparing it the first time.
    private static func prepare(
        _ sql: String, parameterCount: Int, on handle: inout Handle, pointer: OpaquePointer, within deadline: AnswerDeadline?,
        target: String, _ pq: LibPQ
    ) -> Result<String, PostgresError> {
        if let known = handle.prepared[sql] { return .success(known) }
        let name = "matterflow_\(handle.prepared.count + 1)"
        let prepared = answer(on: &handle, pointer: pointer, within: deadline, target: target, pq) {
            .success(pq.prepare(pointer, name, sql, Int32(parameterCount), nil))
        }.flatMap { convert($0, connection: pointer, target: target, pq) }
        if case .failure(let error) = prepared { return .failure(error) }
        handle.prepared[sql] = name
        return .success(name)
    }

    /// What one of libpq's blocking calls (`call`, on `pointer`) returned, waited for within `deadline` when there is
    /// one: a call the deadline cut short (``AnswerDeadline``) closes the connection and fails `noAnswer`.
    private static func answer(
        on handle: inout Handle, pointer: OpaquePointer, within deadline: AnswerDeadline?, target: String, _ pq: LibPQ,
        _ call: () -> Result<OpaquePointer?, PostgresError>
    ) -> Result<OpaquePointer?, PostgresError> {
        guard let deadline else { return call() }
        let command = deadline.arm(socket: pq.socket(pointer))
        let result = call()
        guard deadline.disarm(command) else { return result }
        if case .success(let answered?) = result { pq.clear(answered) }
        pq.finish(pointer)
        handle.pointer = nil
        handle.prepared = [:]
        return .failure(
            PostgresError(
                .noAnswer,
                "\(target) did not answer within \(deadline.shown): a statement running that long, a connection pooler before "
                    + "the server holding statements (pgbouncer's PAUSE, or a pool with no server connection free), or a server "
                    + "stopped or overloaded; the connection was closed"))
    }

    /// Starts listening on a channel (`LISTEN "channel"`; the name is quoted as an identifier).
    public func listen(_ channel: String) throws(PostgresError) {
        try execute("LISTEN " + Self.quoteIdentifier(channel))
    }

    /// Waits up to `timeoutMilliseconds` for notifications on the channels this connection listens on, and
    /// returns those that arrived (possibly none). Blocks the calling thread while it waits, or until
    /// `wakeDescriptor` (a file descriptor, such as a pipe's reading end) becomes readable: the way another thread
    /// ends the wait at once. The descriptor is only polled, never read.
    /// - Throws: ``PostgresError`` `connectionLost` when the connection broke.
    public func notifications(
        timeoutMilliseconds: Int32, wakeDescriptor: Int32? = nil
    ) throws(PostgresError) -> [PostgresNotification] {
        let socket = handle.withLock { handle in handle.pointer.map { pq.socket($0) } ?? -1 }
        guard socket >= 0 else { throw PostgresError(.connectionLost, "the connection to \(target) is closed") }
        var pending = drain()
        if case .success(let ready) = pending, ready.isEmpty {
            var descriptors = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
            if let wakeDescriptor { descriptors.append(pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)) }
            let polled = poll(&descriptors, nfds_t(descriptors.count), timeoutMilliseconds)
            if polled < 0 && errno != EINTR {
                throw PostgresError(.connectionLost, "cannot wait on the connection to \(target): \(String(cString: strerror(errno)))")
            }
            if polled > 0 && descriptors[0].revents != 0 { pending = drain() }
        }
        return try pending.get()
    }

    /// Reads what the server sent and returns the notifications in it.
    private func drain() -> Result<[PostgresNotification], PostgresError> {
        handle.withLock { handle in
            guard let pointer = handle.pointer else {
                return .failure(PostgresError(.connectionLost, "the connection to \(target) is closed"))
            }
            guard pq.consumeInput(pointer) == 1 else {
                return .failure(PostgresError(.connectionLost, "the connection to \(target) broke: \(Self.message(of: pointer, pq))"))
            }
            var received: [PostgresNotification] = []
            while let notify = pq.notifies(pointer) {
                received.append(
                    PostgresNotification(
                        channel: String(cString: notify.pointee.relname), payload: String(cString: notify.pointee.extra)))
                pq.freemem(notify)
            }
            return .success(received)
        }
    }

    /// Converts a libpq result to Swift values and frees it.
    private static func convert(
        _ result: OpaquePointer?, connection: OpaquePointer, target: String, _ pq: LibPQ
    ) -> Result<PostgresRows, PostgresError> {
        guard let result else {
            let lost = pq.status(connection) != CONNECTION_OK
            return .failure(PostgresError(lost ? .connectionLost : .commandFailed, "\(target): \(message(of: connection, pq))"))
        }
        defer { pq.clear(result) }
        switch pq.resultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            let columnCount = Int(pq.nfields(result))
            let rowCount = Int(pq.ntuples(result))
            var rows = PostgresRows(
                columns: (0..<columnCount).map { text(pq.fname(result, Int32($0))) ?? "" }, rows: [],
                affected: text(pq.cmdTuples(result)).flatMap { Int($0) } ?? 0)
            rows.rows.reserveCapacity(rowCount)
            for row in 0..<Int32(rowCount) {
                rows.rows.append(
                    (0..<Int32(columnCount)).map { column in
                        pq.getisnull(result, row, column) == 1 ? nil : text(pq.getvalue(result, row, column)) ?? ""
                    })
            }
            return .success(rows)
        default:
            let state = text(pq.resultErrorField(result, Int32(UInt8(ascii: "C"))))
            let primary = text(pq.resultErrorField(result, Int32(UInt8(ascii: "M"))))
            let lost = pq.status(connection) != CONNECTION_OK
            let text = primary.map(Self.oneLine) ?? message(of: connection, pq)
            return .failure(PostgresError(lost ? .connectionLost : .commandFailed, sqlState: state, text))
        }
    }

    private static func message(of connection: OpaquePointer, _ pq: LibPQ) -> String {
        guard let text = text(pq.errorMessage(connection)) else { return "unknown error" }
        let message = oneLine(text)
        return message.isEmpty ? "unknown error" : message
    }

    /// libpq's message as one line, so that a log line is one event: its lines (a hint such as "Is the server running
    /// locally ...?" follows the error on a line of its own) trimmed and joined as sentences: after a line that ends
    /// in a stop (`.`, `?`, `!`, `:`, `;`, `,`) with a space, before one that starts with a capital with `. `, and
    /// otherwise with `; `.
    static func oneLine(_ text: String) -> String {
        let lines = text.split(whereSeparator: \.isNewline).map { String($0).trimmingWhitespace() }.filter { !$0.isEmpty }
        var joined = lines.first ?? ""
        for line in lines.dropFirst() {
            if let last = joined.last, ".?!:;,".contains(last) {
                joined += " "
            } else if line.first?.isUppercase == true {
                joined += ". "
            } else {
                joined += "; "
            }
            joined += line
        }
        return joined
    }

    /// A C string libpq returned, as Swift text; nil for a null pointer.
    private static func text(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        pointer.map { String(cString: $0) }
    }

    /// Runs `body` with the values as NUL-terminated C strings (nil stays a null pointer).
    private static func withCStrings<R>(_ values: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        let storage: [UnsafeMutablePointer<CChar>?] = values.map { $0.map { strdup($0) } ?? nil }
        defer { for pointer in storage { free(pointer) } }
        return body(storage.map { $0.map { UnsafePointer($0) } })
    }

    /// An SQL identifier in double quotes, with embedded quotes doubled.
    static func quoteIdentifier(_ name: String) -> String {
        "\"" + name.replacingAll("\"", with: "\"\"") + "\""
    }

    /// The conninfo without its passwords (``ConninfoRedaction``), for messages.
    static func redacting(_ conninfo: String) -> String { ConninfoRedaction.redacting(conninfo) }

    /// A `--store` value as a message may quote it: a journal directory as it is, anything written as a URI of any
    /// scheme (a mistyped `postgress://user:secret@host`) without its password, and anything else with a `user:secret@`
    /// part (`postgres:/user:secret@host`, `postgresql:user:secret@host`) without what stands between its last `:`
    /// and its last `@`.
    public static func shownLocation(_ location: String) -> String {
        if ConninfoRedaction.looksLikeURI(location) { return ConninfoRedaction.redacting(location) }
        guard let at = location.lastIndex(of: "@"), let colon = location[..<at].lastIndex(of: ":") else { return location }
        return String(location[...colon]) + ConninfoRedaction.placeholder + String(location[at...])
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else { return "" }
        return String(scalars[first...last])
    }

    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var text = ""
        for character in self { if character == target { text += replacement } else { text.append(character) } }
        return text
    }
}
