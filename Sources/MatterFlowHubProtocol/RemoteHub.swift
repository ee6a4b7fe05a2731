import MatterFlow
import MatterFlowJSON
import Synchronization

/// A ``Hub`` in another process (or behind any ``LineChannel``), spoken to with the hub protocol
/// (docs/hub-protocol.md).
///
/// ```swift
/// let remote = try await RemoteHub.connect(to: HubEndpoint(parsing: "unix:/run/my-hub.sock"))
/// let result = await engine.run(workflow, inputs: inputs, on: remote.hub, options: options)
/// await remote.close()
/// ```
///
/// Calls the hub did not list in its handshake fail with `notSupported` without being sent. A cancelled call (the
/// engine cancels on timeout and on run cancel) sends `$/cancelRequest` and waits ``Options/cancelGrace`` for the
/// hub's answer. A hub that exits, closes the connection, or leaves a call unanswered past its silence limit
/// (``silenceLimit(for:)``) fails the call with `unavailable` / `hubUnreachable`; a hub that breaks the protocol fails it with `hubFailure` naming
/// the offending line (secrets masked). Use ``hub`` as the engine's hub: it is a ``RecoverableHub`` when the hub
/// lists `activeSession`.
public final class RemoteHub: ConnectedHub {
    /// How the client behaves.
    public struct Options: Sendable {
        /// The name sent in `initialize`.
        public var clientName: String
        /// The version sent in `initialize`.
        public var clientVersion: String
        /// Real time a call may wait without the hub answering it before it fails as `hubUnreachable` and the
        /// connection is closed; nil: no limit. A run's call whose timeout (``HubCallContext/timeout``) is longer
        /// gets that timeout plus ``runWindow`` instead, so that the run's timeout fires first.
        public var silenceLimit: Duration?
        /// Real time a cancelled call waits for the hub's answer before it is given up as in doubt (its late answer
        /// is then dropped). Longer than the engine's own wait for a cancelled call (5 s, then up to 30 s before the
        /// run's next call), so the engine sees the hub's real answer whenever the hub sends it within that wait.
        public var cancelGrace: Duration
        /// Real time the hub may take to answer `initialize` (it does no work for a run there), whatever
        /// ``silenceLimit`` is; nil: no limit either.
        public var handshakeLimit: Duration?
        /// Real time a TCP hub may take to accept the connection, for each address its name resolves to.
        public var connectLimit: Duration
        /// For a hub started as a command: given each line the hub writes on its standard error, on a thread of its
        /// own (a worker puts them in its log); nil: the hub writes on this process's standard error.
        public var standardError: (@Sendable (String) -> Void)?

        /// Options with these limits: by default 120 s of silence, 40 s of grace for a cancelled call, 30 s for the
        /// handshake and 10 s to connect.
        public init(
            clientName: String = "matterflow", clientVersion: String = "0.1.0", silenceLimit: Duration? = .seconds(120),
            cancelGrace: Duration = .seconds(40), handshakeLimit: Duration? = .seconds(30), connectLimit: Duration = .seconds(10)
        ) {
            self.connectLimit = connectLimit
            self.clientName = clientName
            self.clientVersion = clientVersion
            self.silenceLimit = silenceLimit
            self.cancelGrace = cancelGrace
            self.handshakeLimit = handshakeLimit
        }
    }

    /// What the hub said about itself in `initialize`.
    public struct Handshake: Sendable, Hashable {
        /// The hub protocol version the hub speaks (1).
        public var protocolVersion: Int
        /// The hub's name (`hub.name`).
        public var hubName: String
        /// The hub's version (`hub.version`).
        public var hubVersion: String
        /// What tells this hub from another of the same software (`hub.instance`): an ID it keeps with its state
        /// across restarts; nil when it gives none.
        public var hubInstance: String? = nil

        /// Whether `text` can be a hub's instance ID: 1 to 200 bytes of UTF-8 without a control character.
        public static func isInstanceID(_ text: String) -> Bool {
            (1...200).contains(text.utf8.count) && ControlCharacter.first(in: text) == nil
        }
        /// The methods the hub implements.
        public var operations: Set<String>
        /// Whether the hub sends events.
        public var events: Bool
        /// The structures the hub says it serves (may be empty).
        public var structures: [String]
    }

    typealias Reply = Result<JSONValue, FlowError>

    private struct Pending {
        var method: String
        var waker: ClockWaker<Reply>
        /// For `subscribe`: the handler to register, atomically with the answer, under the subscription's name.
        var subscriber: (@Sendable (HubEvent) -> Void)?
        /// The real-time limit on the wait, stopped once the call is answered.
        var watchdog: Task<Void, Never>?
        /// The request's line has been written: a `$/cancelRequest` may follow it.
        var sent = false
        /// The call was cancelled while its line was being written: the sender asks the hub to cancel it once written
        /// (a cancel sent first would name an id the hub does not know yet, and be dropped).
        var cancelWhenSent = false
    }

    private struct State {
        var nextID = 1
        var pending: [Int: Pending] = [:]
        /// Calls given up on (cancelled past their grace, or fire-and-forget): their late answers are dropped.
        /// (Their methods: a subscription the hub makes after it was given up on is ended.)
        var abandoned: [Int: String] = [:]
        /// Calls cancelled before they were sent.
        var cancelledBeforeSend: Set<Int> = []
        var subscriptions: [String: @Sendable (HubEvent) -> Void] = [:]
        /// What to call when the connection is lost, by subscription (``RemoteSubscription/whenLost(_:)``).
        var lossHandlers: [String: @Sendable (String) -> Void] = [:]
        /// Set once the connection is unusable: the calls open then fail with it, every later one is refused unsent
        /// (``RemoteHub/notSent(_:after:)``).
        var failure: FlowError?
        var linesReceived = 0
        var handshake: Handshake?
    }

    let channel: any LineChannel
    let options: Options
    private let state = Mutex(State())
    private let onClose: @Sendable () async -> Void

    /// A client over `channel`; call ``initialize()`` before anything else (``connect(to:options:)`` does).
    /// - Parameter onClose: what ``close()`` does after closing the channel (stopping a child process).
    public init(channel: any LineChannel, options: Options = Options(), onClose: @escaping @Sendable () async -> Void = {}) {
        self.channel = channel
        self.options = options
        self.onClose = onClose
        channel.start { [weak self] event in self?.receive(event) }
    }

    /// Whether the connection is gone for good: the hub exited, closed it, fell silent or broke the protocol.
    public var connectionLost: Bool { state.withLock { $0.failure != nil } }

    /// How many calls are waiting for the hub's answer.
    var openCalls: Int { state.withLock { $0.pending.count } }

    /// The handshake, once ``initialize()`` has succeeded.
    public var handshake: Handshake? { state.withLock { $0.handshake } }

    /// The hub to give the engine: this client, as a ``RecoverableHub`` when the hub answers `activeSession`.
    public var hub: any Hub {
        (handshake?.operations.contains("activeSession") ?? false) ? RecoverableRemoteHub(remote: self) : self
    }

    /// Closes the connection (a child process is told to exit, see ``HubEndpoint``); open calls fail as
    /// `hubUnreachable`.
    public func close() async {
        fail(FlowError(.hubUnreachable, "the connection to the hub was closed"))
        // Lines already sent (a cancel, an unsubscribe) still reach a hub that reads them.
        channel.closeAfterSending()
        await onClose()
    }

    // MARK: - Handshake

    /// Sends `initialize` and checks the answer.
    /// - Throws: ``FlowError``: the hub is unreachable, or speaks another protocol version, or answered badly.
    @discardableResult
    public func initialize() async throws(FlowError) -> Handshake {
        let params: JSONObject = [
            "protocolVersion": .int(HubMethod.protocolVersion),
            "client": ["name": .string(options.clientName), "version": .string(options.clientVersion)],
        ]
        let result = try await call("initialize", params, checkSupport: false, silenceLimit: options.handshakeLimit)
        let handshake: Handshake
        do {
            handshake = try Handshake(reading: result)
        } catch {
            fail(error)
            throw error
        }
        state.withLock { $0.handshake = handshake }
        return handshake
    }

    // MARK: - Calls

    /// What a run's call is given beyond its own timeout before the silence limit ends it: the engine's wait for
    /// a cancelled call (5 s, then up to 30 s), and time for the cancel path's next call to be sent.
    public static let runWindow: Duration = .seconds(60)

    /// Calls `method` with `params` (plus the call context, when there is one) and returns its result object.
    func call(_ method: String, _ params: JSONObject, checkSupport: Bool = true) async throws(FlowError) -> JSONValue {
        try await call(method, params, checkSupport: checkSupport, silenceLimit: silenceLimit(for: HubCallContext.current))
    }

    /// The silence limit of a call made with `context`: ``Options/silenceLimit``, or the run's timeout for the
    /// call plus ``runWindow`` when that is longer.
    func silenceLimit(for context: HubCallContext?) -> Duration? {
        guard let silence = options.silenceLimit, let timeout = context?.timeout else { return options.silenceLimit }
        return max(silence, timeout + Self.runWindow)
    }

    /// ``call(_:_:checkSupport:)`` with its own limit on the hub's silence.
    private func call(
        _ method: String, _ params: JSONObject, checkSupport: Bool, silenceLimit: Duration?
    ) async throws(FlowError) -> JSONValue {
        if checkSupport {
            let handshake = state.withLock { $0.handshake }
            if let handshake, !handshake.operations.contains(method) {
                throw FlowError(.notSupported, "hub \(handshake.hubName) does not support \(method) (not in its handshake's operations)")
            }
        }
        var params = params
        if let context = HubCallContext.current {
            params["context"] = context.wireValue
        }
        if Task.isCancelled { throw FlowError(.runCancelled, "\(method) was cancelled before it was sent to the hub") }
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        let line = JSONWriter.compact([
            "jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": .object(params),
        ])
        // A request the protocol cannot carry is this call's mistake, not the connection's: it is never sent.
        guard line.utf8.count <= LineChannelLimits.maximumLineBytes else {
            throw FlowError(
                .invalidArgumentValue,
                "the \(method) request is \(line.utf8.count) bytes, more than the hub protocol's 1 MiB line; it was not sent")
        }
        let reply = await withTaskCancellationHandler {
            await send(line, id: id, method: method, subscriber: nil, silenceLimit: silenceLimit)
        } onCancel: {
            cancel(id)
        }
        return try reply.get()
    }

    /// Sends a request and waits for its answer, with the subscriber to register when it is a `subscribe`.
    private func send(
        _ line: String, id: Int, method: String, subscriber: (@Sendable (HubEvent) -> Void)?, silenceLimit: Duration?
    ) async -> Reply {
        let clock = channel.sharedClock
        // On a shared clock the line (and then the hub's work) carries this task's activity until the answer.
        let reply = await clock.waitOffClock { (waker: ClockWaker<Reply>) in
            let refusal = state.withLock { state -> FlowError? in
                if let failure = state.failure { return Self.notSent(method, after: failure) }
                if state.cancelledBeforeSend.remove(id) != nil {
                    return FlowError(.runCancelled, "\(method) was cancelled before it was sent to the hub")
                }
                state.pending[id] = Pending(method: method, waker: waker, subscriber: subscriber)
                return nil
            }
            if let refusal {
                waker.wake(.failure(refusal))
                return
            }
            // The silence watchdog before the line is written, so that it bounds a hub slow to take it too (its
            // close ends the write); a cancel once the line is written replaces it with its own grace.
            if let limit = silenceLimit {
                watch(id, after: limit) { [weak self] in
                    // A hub that stops answering is treated as gone: its later answers could not be trusted.
                    self?.fail(FlowError(.hubUnreachable, "the hub sent no answer within \(Self.seconds(limit))"))
                    self?.channel.close()
                }
            }
            do {
                try channel.send(line)
            } catch {
                resolve(id, .failure(FlowError(.hubUnreachable, "could not send \(method) to the hub: \(error)")))
                lose(because: "could not send \(method): \(error)")
                return
            }
            let cancelled = state.withLock { state -> Bool in
                state.pending[id]?.sent = true
                return state.pending[id]?.cancelWhenSent ?? false
            }
            if cancelled { requestCancel(id, method: method) }
        }
        return reply
    }

    /// Sends `$/cancelRequest` for a call (or keeps it from being sent, or has its sender send it once the call's
    /// line is written) and bounds the wait for its answer.
    private func cancel(_ id: Int) {
        let method = state.withLock { state -> String? in
            if let pending = state.pending[id] {
                guard pending.sent else {
                    state.pending[id]?.cancelWhenSent = true
                    return nil
                }
                return pending.method
            }
            if state.abandoned[id] == nil { state.cancelledBeforeSend.insert(id) }
            return nil
        }
        guard let method else { return }
        requestCancel(id, method: method)
    }

    /// The connection after a line the hub would not take (or took in part): nothing more can be sent on it, so it is
    /// lost for every call, and closed, so that a client that connects again (a worker) does.
    private func lose(because reason: String) {
        fail(FlowError(.hubUnreachable, "the connection to the hub was lost: \(reason)"))
        channel.close()
    }

    /// Sends a line no call waits an answer to (a cancel request, an unsubscribe, an answer to the hub); one the hub
    /// will not take loses the connection as a call's would.
    private func sendOrLose(_ line: String, what: String) {
        do {
            try channel.send(line)
        } catch {
            lose(because: "could not send \(what): \(error)")
        }
    }

    /// Sends `$/cancelRequest` for a call whose line was written, and bounds the wait for its answer.
    private func requestCancel(_ id: Int, method: String) {
        let line = JSONWriter.compact(["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": .int(id)]])
        sendOrLose(line, what: "the cancellation of \(method)")
        watch(id, after: options.cancelGrace) { [weak self, options] in
            self?.resolve(
                id,
                .failure(
                    FlowError(
                        .hubUnreachable,
                        "the hub did not answer the cancelled \(method) within \(Self.seconds(options.cancelGrace)); its outcome is unknown")))
        }
    }

    /// Runs `expire` unless the call `id` is answered within `limit` of real time; its late answer is then dropped.
    private func watch(_ id: Int, after limit: Duration, _ expire: @escaping @Sendable () -> Void) {
        let watchdog = Task { [weak self] in
            guard (try? await Task.sleep(for: limit)) != nil, let self,
                state.withLock({ state in
                    guard let method = state.pending[id]?.method else { return false }
                    return state.abandoned.updateValue(method, forKey: id) == nil
                })
            else { return }
            expire()
        }
        let previous = state.withLock { state -> Task<Void, Never>? in
            guard state.pending[id] != nil else { return watchdog }
            defer { state.pending[id]?.watchdog = watchdog }
            return state.pending[id]?.watchdog
        }
        previous?.cancel()
    }

    static func seconds(_ duration: Duration) -> String {
        "\(duration.components.seconds) s"
    }

    /// Answers a pending call (once); on a shared clock, its task is woken as the clock's contract asks. Returns
    /// whether the call was still waiting (a watchdog may have given it up).
    @discardableResult
    private func resolve(_ id: Int, _ reply: Reply) -> Bool {
        let pending = state.withLock { state -> Pending? in
            guard let pending = state.pending.removeValue(forKey: id) else { return nil }
            if case .success(let result) = reply, let subscriber = pending.subscriber,
                let name = result["subscription"]?.stringValue
            {
                state.subscriptions[name] = subscriber
            }
            return pending
        }
        guard let pending else { return false }
        pending.watchdog?.cancel()
        pending.waker.wake(reply)
        return true
    }

    /// Fails every open call, and every later one, with `error` (the first failure wins).
    func fail(_ error: FlowError) {
        let (pending, lossHandlers) = state.withLock { state -> ([Int: Pending], [String: @Sendable (String) -> Void]) in
            if state.failure == nil { state.failure = error }
            defer { (state.pending, state.lossHandlers) = ([:], [:]) }
            return (state.pending, state.lossHandlers)
        }
        let failure = state.withLock { $0.failure } ?? error
        for name in lossHandlers.keys.sorted() { lossHandlers[name]?(Self.lostEvents(failure)) }
        for (_, call) in pending.sorted(by: { $0.key < $1.key }) {
            call.watchdog?.cancel()
            var message = failure
            if failure.cause == .hubUnreachable {
                // The handshake acts on nothing: only a hub call can have taken effect unseen.
                let outcome = call.method == "initialize" ? "" : "; the call's outcome is unknown"
                message.message = "\(failure.message), during \(call.method)\(outcome)"
            }
            call.waker.wake(.failure(message))
        }
    }

    // MARK: - Receiving

    private func receive(_ event: LineEvent) {
        switch event {
        case .line(let line):
            let number = state.withLock { state -> Int in
                state.linesReceived += 1
                return state.linesReceived
            }
            receive(line, number: number)
        case .malformed(let reason):
            violation("the hub broke the protocol: \(reason)")
        case .closed(let reason):
            fail(FlowError(.hubUnreachable, "the hub stopped answering (\(reason))"))
        }
    }

    private func receive(_ line: String, number: Int) {
        let quoted = { LineQuote.numbered(line, number: number) }
        let message: JSONObject
        do {
            // A lone surrogate in a hub's text reads as U+FFFD, as JSON's grammar allows it.
            let document = try JSONDocument.parse(line, file: "hub", refusingLoneSurrogates: false)
            guard let object = document.value.objectValue else {
                return violation("the hub sent a message that is not a JSON object (\(quoted()))")
            }
            if let repeated = document.sourceMap.duplicateKeys.first {
                // Only one of the two values would be read, and nothing says which the hub meant.
                return violation(
                    "the hub sent a message that gives key \"\(repeated.key)\" twice in one object, at \(repeated.pointer) (\(quoted())); a hub sends each key once")
            }
            message = object
        } catch {
            return violation("the hub sent a line that is not JSON (\(quoted()))")
        }
        guard message["jsonrpc"]?.stringValue == "2.0" else {
            return violation("the hub sent a message without \"jsonrpc\": \"2.0\" (\(quoted()))")
        }
        if let method = message["method"]?.stringValue {
            if let id = message["id"], !id.isNull {
                // Hubs send no requests in version 1.
                let answer: JSONValue = [
                    "jsonrpc": "2.0", "id": id, "error": WireError.json(code: WireError.methodNotFound, message: "clients serve no methods"),
                ]
                sendOrLose(JSONWriter.compact(answer), what: "an answer to the hub's request")
                return
            }
            if method == "event" { deliverEvent(message["params"], quoted: quoted) }
            return
        }
        guard let id = message["id"]?.intValue else {
            if message["id"]?.isNull == true, let error = message["error"] {
                return violation(
                    "the hub reported a protocol error: \(WireError.flowError(error, method: "a request").message) (\(quoted()))")
            }
            return violation("the hub sent a response without an integer \"id\" (\(quoted()))")
        }
        // A call answered just as its watchdog gave it up is answered: the watchdog then finds nothing to resolve.
        let (method, abandoned) = state.withLock { state -> (String?, String?) in
            let abandoned = state.abandoned.removeValue(forKey: id)
            return (state.pending[id]?.method, abandoned)
        }
        guard let method else {
            guard let abandoned else {
                return violation("the hub answered request \(id), which was never sent or was already answered (\(quoted()))")
            }
            endLateSubscription(abandoned, message["result"])
            return
        }
        if let error = message["error"] {
            resolve(id, .failure(WireError.flowError(error, method: method)))
        } else if let result = message["result"] {
            // The watchdog may have resolved it between the look above and now.
            if !resolve(id, .success(result)) { endLateSubscription(method, result) }
        } else {
            violation("the hub answered request \(id) with neither \"result\" nor \"error\" (\(quoted()))")
        }
    }

    private func deliverEvent(_ params: JSONValue?, quoted: () -> String) {
        guard let params = params?.objectValue, let name = params["subscription"]?.stringValue,
            let structure = params["structure"]?.stringValue, let event = params["event"]
        else {
            return violation("the hub sent an event notification without subscription, structure and event (\(quoted()))")
        }
        guard let handler = state.withLock({ $0.subscriptions[name] }) else { return }
        do {
            handler(try HubWire.event(try WireReader(event, subject: "an event from the hub", cause: .hubFailure), structure: structure))
        } catch {
            violation("\(error.message) (\(quoted()))")
        }
    }

    /// What a call made after the connection was lost fails with: it never reached the hub, so nothing of it is in
    /// doubt (`hubUnreachable`, as after the hub exited), whatever lost the connection.
    static func notSent(_ method: String, after failure: FlowError) -> FlowError {
        FlowError(.hubUnreachable, "\(method) was not sent: the connection to the hub was lost before it (\(failure.message))")
    }

    /// The hub broke the protocol: the connection is closed and every open call fails with `hubFailure`.
    private func violation(_ message: String) {
        fail(FlowError(.hubFailure, message))
        channel.close()
    }

    // MARK: - Events

    /// Registers `handler` for the structure's events through `subscribe`; events stop when the subscription is
    /// cancelled (which sends `unsubscribe`).
    func subscribeRemote(structure: StructureID, _ handler: @escaping @Sendable (HubEvent) -> Void) async
        -> any HubEventSubscription
    {
        guard let handshake, handshake.events, handshake.operations.contains("subscribe") else { return NoEvents() }
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        var params: JSONObject = ["structure": .string(structure)]
        if let context = HubCallContext.current {
            params["context"] = context.wireValue
        }
        let line = JSONWriter.compact(["jsonrpc": "2.0", "id": .int(id), "method": "subscribe", "params": .object(params)])
        // A run cancelled while it waits for the answer cancels the call, as any other call's.
        let reply = await withTaskCancellationHandler {
            await send(line, id: id, method: "subscribe", subscriber: handler, silenceLimit: options.silenceLimit)
        } onCancel: {
            cancel(id)
        }
        switch reply {
        case .success(let result):
            guard let name = result["subscription"]?.stringValue else {
                return FailedSubscription("the hub's answer to subscribe names no subscription")
            }
            return RemoteSubscription(remote: self, name: name)
        case .failure(let error):
            // A connection lost before the answer (or before the call) loses the events as one lost after it does.
            if let lost = state.withLock({ $0.failure }) { return LostSubscription(reason: Self.lostEvents(lost)) }
            return FailedSubscription("the hub did not subscribe: \(error.message) [\(error.cause.rawValue)]")
        }
    }

    /// Ends a subscription the hub made for a `subscribe` call the client gave up on: nobody would hear its events.
    private func endLateSubscription(_ method: String, _ result: JSONValue?) {
        guard method == "subscribe", let name = result?["subscription"]?.stringValue else { return }
        sendUnsubscribe(name)
    }

    /// Calls `handler` when the connection is lost while the subscription `name` is held; at once if it was lost.
    func whenLost(_ name: String, _ handler: @escaping @Sendable (String) -> Void) {
        let failure = state.withLock { state -> FlowError? in
            guard let failure = state.failure else {
                if state.subscriptions[name] != nil { state.lossHandlers[name] = handler }
                return nil
            }
            return failure
        }
        if let failure { handler(Self.lostEvents(failure)) }
    }

    /// Why a subscription's events stopped: the connection's failure.
    static func lostEvents(_ failure: FlowError) -> String {
        "the connection to the hub was lost: \(failure.message)"
    }

    /// Stops delivering a subscription's events and tells the hub, without waiting for its answer.
    func unsubscribe(_ name: String) {
        guard state.withLock({ state in
            state.lossHandlers[name] = nil
            return state.subscriptions.removeValue(forKey: name) != nil
        }) else { return }
        sendUnsubscribe(name)
    }

    /// Sends `unsubscribe` for the hub's subscription `name`, without waiting for its answer.
    private func sendUnsubscribe(_ name: String) {
        let id = state.withLock { state -> Int? in
            guard state.failure == nil else { return nil }
            defer { state.nextID += 1 }
            state.abandoned[state.nextID] = "unsubscribe"
            return state.nextID
        }
        guard let id else { return }
        let line = JSONWriter.compact([
            "jsonrpc": "2.0", "id": .int(id), "method": "unsubscribe", "params": ["subscription": .string(name)],
        ])
        sendOrLose(line, what: "unsubscribe")
    }
}

/// A subscription whose connection was lost before it was made: it delivers nothing, and says so at once.
struct LostSubscription: HubEventSubscription {
    let reason: String

    func cancel() {}

    func whenLost(_ handler: @escaping @Sendable (String) -> Void) { handler(reason) }
}

/// A subscription on a ``RemoteHub``.
struct RemoteSubscription: HubEventSubscription {
    let remote: RemoteHub
    let name: String

    func cancel() { remote.unsubscribe(name) }

    func whenLost(_ handler: @escaping @Sendable (String) -> Void) {
        remote.whenLost(name, handler)
    }
}

extension HubCallContext {
    /// The call's context as the wire carries it (docs/hub-protocol.md, section 3).
    var wireValue: JSONValue {
        var object: JSONObject = ["runID": .string(runID), "idempotencyKey": .string(idempotencyKey)]
        if let expectedSessionID { object["expectedSessionID"] = .string(expectedSessionID) }
        if let element { object["element"] = .string(element) }
        return .object(object)
    }
}

extension RemoteHub.Handshake {
    /// The handshake a hub's answer to `initialize` (its `result`) gives, as a client reads it (`hub check`'s
    /// handshake check reads it the same way).
    /// - Throws: ``FlowError`` `hubFailure` naming what is missing or wrong, or the protocol version it speaks.
    public init(reading result: JSONValue) throws(FlowError) {
        let reader = try WireReader(result, subject: "the hub's answer to initialize", cause: .hubFailure)
        let version = try reader.int("protocolVersion", in: 0...Int(Int32.max))
        guard version == HubMethod.protocolVersion else {
            throw FlowError(
                .hubFailure,
                "the hub speaks hub protocol version \(version); this MatterFlow speaks version \(HubMethod.protocolVersion)")
        }
        let hub = try reader.object("hub")
        let operations = try reader.strings("operations")
        let events = try reader.bool("events")
        let unlisted = HubMethod.events.filter { !operations.contains($0) }
        if events, !unlisted.isEmpty {
            throw FlowError(
                .hubFailure,
                "the hub's answer to initialize: \"events\" is true but \"operations\" does not list \(unlisted.joined(separator: " and ")); "
                    + "list \(HubMethod.events.joined(separator: " and ")) with the events, or answer \"events\": false")
        }
        self.init(
            protocolVersion: version, hubName: try hub.string("name"), hubVersion: try hub.string("version"),
            operations: Set(operations), events: events,
            structures: reader.object["structures"] == nil ? [] : try reader.strings("structures"))
        if let instance = try hub.optionalString("instance") {
            guard Self.isInstanceID(instance) else {
                throw FlowError(
                    .hubFailure,
                    "the hub's answer to initialize: member \"hub.instance\" must be 1 to 200 bytes without control characters (an ID the hub keeps with its state)")
            }
            hubInstance = instance
        }
    }
}
