import MatterFlow
import MatterFlowJSON
import Synchronization

/// Serves any Swift ``Hub`` over a ``LineChannel`` with the hub protocol (docs/hub-protocol.md): what
/// `matterflow hub serve` runs, and how tests put a hub behind the wire.
///
/// Each request runs in a task of its own (so `$/cancelRequest` can cancel it), under the request's
/// ``HubCallContext`` when it carries one. Events of a `subscribe` are sent as `event` notifications. Malformed
/// lines are answered with JSON-RPC errors and never end the connection. When the client's input ends, every
/// request received before is still answered: a call still running finishes, or is cancelled (and answered with
/// a `runCancelled` error) once it has run for its ``drainLimit(for:)`` after the end; then every subscription is
/// ended and the connection closed. A line that breaks the framing ends the connection once the error answer to it
/// has been written.
public final class HubServer: Sendable {
    /// What the server says about itself in `initialize`.
    public struct Identity: Sendable {
        /// The hub's name in the handshake (`hub.name`).
        public var name: String
        /// The hub's version in the handshake (`hub.version`).
        public var version: String
        /// The methods to list; nil: every method (`activeSession` only for a ``RecoverableHub``).
        public var operations: [String]?
        /// Whether to offer events.
        public var events: Bool
        /// The structures to list in the handshake.
        public var structures: [String]
        /// The instance ID to give in the handshake (`hub.instance`): one kept with the hub's state, so that recovery
        /// tells this hub from another of the same software; nil to give none.
        public var instance: String? = nil

        /// An identity with these members; by default every method, events, and no structures named.
        public init(
            name: String, version: String, operations: [String]? = nil, events: Bool = true, structures: [String] = []
        ) {
            self.name = name
            self.version = version
            self.operations = operations
            self.events = events
            self.structures = structures
        }
    }

    private struct State {
        var initialized = false
        var calls: [Int: (task: Task<Void, Never>, method: String)] = [:]
        var inputEnded = false
        var drainTimers: [any ClockTimer] = []
        var subscriptions: [String: any HubEventSubscription] = [:]
        var nextSubscription = 1
        var ended = false
        var endWaiters: [CheckedContinuation<Void, Never>] = []
    }

    let hub: any Hub
    let channel: any LineChannel
    let identity: Identity
    let operations: [String]
    private let state = Mutex(State())

    /// A server of `hub` on `channel`; it starts answering at once.
    public init(hub: any Hub, channel: any LineChannel, identity: Identity) {
        self.hub = hub
        self.channel = channel
        self.identity = identity
        var operations = identity.operations ?? HubMethod.all
        if identity.operations == nil, hub.sessionReader == nil { operations.removeAll { $0 == "activeSession" } }
        if !identity.events { operations.removeAll { HubMethod.events.contains($0) } }
        self.operations = operations
        channel.start { [self] event in receive(event) }
    }

    /// Returns once the client's input has ended, every request received before has been answered, and the answers
    /// have been written (or the client stopped taking them).
    public func waitUntilClosed() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = state.withLock { state -> Bool in
                if !state.ended { state.endWaiters.append(continuation) }
                return state.ended
            }
            if ended { continuation.resume() }
        }
        await channel.waitUntilSent()
    }

    // MARK: - Receiving

    private func receive(_ event: LineEvent) {
        switch event {
        case .line(let line): receive(line)
        case .malformed(let reason):
            answer(.null, error: WireError.json(code: WireError.parseError, message: "\(reason); closing the connection"))
            end()
        case .closed: inputEnded()
        }
    }

    /// No more requests will come: ends the connection now when no call is running, else once the last one has
    /// been answered, cancelling each call that outlives its drain limit.
    private func inputEnded() {
        let running = state.withLock { state -> [(id: Int, method: String)] in
            state.inputEnded = true
            return state.calls.map { (id: $0.key, method: $0.value.method) }
        }
        guard !running.isEmpty else { return end() }
        let clock: any WorkflowClock = channel.sharedClock ?? SystemClock()
        for call in running {
            let timer = clock.scheduleTimer(after: Self.drainLimit(for: call.method)) { [self] in
                state.withLock { $0.calls[call.id]?.task }?.cancel()
            }
            let ended = state.withLock { state -> Bool in
                if !state.ended { state.drainTimers.append(timer) }
                return state.ended
            }
            if ended { timer.cancel() }
        }
    }

    /// Cancels what still runs, ends every subscription and closes the connection; once.
    private func end() {
        let ending = state.withLock { state -> (calls: [Task<Void, Never>], subscriptions: [any HubEventSubscription], timers: [any ClockTimer], waiters: [CheckedContinuation<Void, Never>])? in
            guard !state.ended else { return nil }
            state.ended = true
            defer {
                state.calls = [:]
                state.subscriptions = [:]
                state.drainTimers = []
                state.endWaiters = []
            }
            return (state.calls.values.map(\.task), Array(state.subscriptions.values), state.drainTimers, state.endWaiters)
        }
        guard let ending else { return }
        ending.calls.forEach { $0.cancel() }
        ending.timers.forEach { $0.cancel() }
        ending.subscriptions.forEach { $0.cancel() }
        // The answers already sent reach the client before the connection ends (a process then exits).
        channel.closeAfterSending()
        ending.waiters.forEach { $0.resume() }
    }

    private func receive(_ line: String) {
        let message: JSONObject
        let numberProblems: [Diagnostic]
        let repeatedKeys: [JSONSourceMap.DuplicateKey]
        do {
            let parsed = try JSONDocument.parseKeepingNumberProblems(line, file: "request", refusingLoneSurrogates: false)
            guard let object = parsed.document.value.objectValue else {
                return answer(.null, error: WireError.json(code: WireError.invalidRequest, message: "a message must be a JSON object"))
            }
            (message, numberProblems, repeatedKeys) = (object, parsed.numberProblems, parsed.document.sourceMap.duplicateKeys)
        } catch {
            return answer(.null, error: WireError.json(code: WireError.parseError, message: "the line is not valid JSON"))
        }
        let id = message["id"] ?? .null
        // The id a refusal is sent with: null when the id is itself what is wrong (a number read clamped, a key given
        // twice: either could be one the client never sent, or not the one it waits on).
        let usableID = !numberProblems.contains { $0.pointer == "/id" } && !repeatedKeys.contains { $0.pointer == "/id" }
            && (id.intValue.map { $0 >= 1 } ?? false) ? id : .null
        // A notification (no id) is never answered, not even to refuse it.
        let isNotification = message["id"] == nil && message["method"] != nil
        func refuse(_ reason: String) {
            guard !isNotification else { return }
            answer(usableID, error: WireError.json(FlowError(.invalidArgumentValue, reason)))
        }
        if let problem = numberProblems.first {
            // A number no value can hold: the request is answered, never read with a clamped value.
            return refuse((problem.pointer.isEmpty ? "" : "\(problem.pointer): ") + problem.message)
        }
        // A key given twice in one object would be read with one of its values, not the other: the request is
        // refused rather than served with a value the client may not have meant.
        if let repeatedKey = repeatedKeys.first {
            return refuse("\(repeatedKey.pointer): the request gives key \"\(repeatedKey.key)\" twice in one object; send each key once")
        }
        // A string escaping half of a UTF-16 pair reads as U+FFFD: a name sent so would be kept other than sent. The
        // request is refused with its id (a parse error could not name it, and the client would wait for its answer).
        if JSONDocument.holdsLoneSurrogate(line) {
            return refuse(
                "a string of the request escapes half of a UTF-16 pair (a surrogate without its other half), which is no character; send the character itself, or both halves")
        }
        guard message["jsonrpc"]?.stringValue == "2.0", let method = message["method"]?.stringValue else {
            // Responses from the client (to nothing: servers send no requests) are ignored.
            if message["method"] == nil, message["result"] != nil || message["error"] != nil { return }
            return answer(
                id, error: WireError.json(code: WireError.invalidRequest, message: "a request needs \"jsonrpc\": \"2.0\" and a method name"))
        }
        let params = message["params"] ?? [:]
        if id.isNull {
            if method == "$/cancelRequest", let target = params["id"]?.intValue {
                state.withLock { $0.calls[target]?.task }?.cancel()
            }
            return
        }
        guard let number = id.intValue, number >= 1 else {
            return answer(id, error: WireError.json(code: WireError.invalidRequest, message: "a request's id must be a positive integer"))
        }
        if method == "initialize" { return initialize(id, params) }
        guard state.withLock({ $0.initialized }) else {
            return answer(id, error: WireError.json(code: WireError.notInitialized, message: "send initialize first"))
        }
        guard operations.contains(method) else {
            return answer(id, error: WireError.json(code: WireError.methodNotFound, message: "this hub does not implement \(method)"))
        }
        guard params.objectValue != nil else {
            return answer(
                id,
                error: WireError.json(FlowError(.invalidArgumentValue, "params of \(method) must be a JSON object")))
        }
        start(method, id: number, params: params)
    }

    private func initialize(_ id: JSONValue, _ params: JSONValue) {
        guard !state.withLock({ $0.initialized }) else {
            return answer(id, error: WireError.json(code: WireError.invalidRequest, message: "initialize was already sent"))
        }
        // A client of a later version may speak version 1 too: the answer says which version this server speaks.
        guard let version = params["protocolVersion"]?.intValue, version >= 1 else {
            return answer(
                id,
                error: WireError.json(FlowError(.invalidArgumentValue, "initialize needs protocolVersion, a positive integer")))
        }
        state.withLock { $0.initialized = true }
        answer(
            id,
            result: [
                "protocolVersion": .int(HubMethod.protocolVersion),
                "hub": identity.instance.map { ["name": .string(identity.name), "version": .string(identity.version), "instance": .string($0)] }
                    ?? ["name": .string(identity.name), "version": .string(identity.version)],
                // Events are offered only with the methods that subscribe to them, as clients require.
                "operations": .array(operations.map(JSONValue.string)),
                "events": .bool(identity.events && HubMethod.events.allSatisfy(operations.contains)),
                "structures": .array(identity.structures.map(JSONValue.string)),
            ])
    }

    /// Runs a call in a task of its own, registered for `$/cancelRequest`.
    private func start(_ method: String, id: Int, params: JSONValue) {
        let clock = channel.sharedClock
        state.withLock { registry in
            let task = clock.task { [self] in
                let outcome: Result<JSONValue, FlowError>
                do throws(FlowError) {
                    outcome = .success(try await dispatch(method, params))
                } catch {
                    outcome = .failure(error)
                }
                switch outcome {
                case .success(let result): answer(.int(id), result: result)
                case .failure(let error): answer(.int(id), error: WireError.json(error))
                }
                // Answered first, so that the last answer after the end of input goes out before the connection closes.
                let last = state.withLock { state -> Bool in
                    state.calls.removeValue(forKey: id)
                    return state.inputEnded && state.calls.isEmpty
                }
                if last { end() }
            }
            registry.calls[id] = (task: task, method: method)
        }
    }

    func answer(_ id: JSONValue, result: JSONValue) {
        send(["jsonrpc": "2.0", "id": id, "result": result])
    }

    func answer(_ id: JSONValue, error: JSONValue) {
        send(["jsonrpc": "2.0", "id": id, "error": error])
    }

    /// Sends a line to the client. One it will not take is lost: a client that left, or stopped reading, gets
    /// nothing more, while the calls it made run to their end (their effects are kept, docs/hub-protocol.md section
    /// 9). An answer too long for the protocol is answered with an error instead.
    private func send(_ message: JSONValue) {
        let line = JSONWriter.compact(message)
        guard line.utf8.count <= LineChannelLimits.maximumLineBytes else {
            if let id = message["id"] {
                answer(id, error: WireError.json(FlowError(
                    .hubFailure, "the answer is \(line.utf8.count) bytes, more than the hub protocol's 1 MiB line")))
            }
            return
        }
        try? channel.send(line)
    }

    // MARK: - Events

    func subscribe(structure: StructureID) async -> JSONValue {
        let name = state.withLock { state -> String in
            defer { state.nextSubscription += 1 }
            return "sub-\(state.nextSubscription)"
        }
        let subscription = await hub.subscribe(structure: structure) { [weak self] event in
            let params: JSONValue = [
                "subscription": .string(name), "structure": .string(event.structureID), "event": HubWire.json(event),
            ]
            self?.send(["jsonrpc": "2.0", "method": "event", "params": params])
        }
        let ended = state.withLock { state -> Bool in
            if !state.ended { state.subscriptions[name] = subscription }
            return state.ended
        }
        if ended { subscription.cancel() }
        return ["subscription": .string(name)]
    }

    func unsubscribe(_ name: String) {
        state.withLock { $0.subscriptions.removeValue(forKey: name) }?.cancel()
    }
}
