import MatterFlow
import MatterFlowJSON
import Synchronization

/// A client that sends exactly the lines it is given and keeps everything the hub sends, for the conformance
/// suite: unlike ``RemoteHub`` it checks nothing, so it can send what the contract forbids and see the raw answers.
final class RawHubClient: Sendable {
    /// A line the hub sent, parsed when it is JSON.
    struct Received: Sendable {
        var line: String
        var message: JSONObject?
        /// A key the message gives twice in one object (`matterflow run` ends the connection at such a message).
        var repeatedKey: JSONSourceMap.DuplicateKey? = nil
    }

    private struct State {
        var received: [Received] = []
        var closed: String?
        var waiters: [(id: Int, continuation: CheckedContinuation<Received?, Never>)] = []
        /// Ids whose wait ends at a line that is not a JSON object, as a client's ends the connection there.
        var endingAtStrayLines: Set<Int> = []
        var nextID = 1
    }

    let channel: any LineChannel
    private let state = Mutex(State())

    init(channel: any LineChannel) {
        self.channel = channel
        channel.start { [weak self] event in self?.receive(event) }
    }

    private func receive(_ event: LineEvent) {
        switch event {
        case .line(let line):
            let document = try? JSONDocument.parse(line, file: "hub", refusingLoneSurrogates: false)
            let message = document?.value.objectValue
            let item = Received(line: line, message: message, repeatedKey: message == nil ? nil : document?.sourceMap.duplicateKeys.first)
            let ready = state.withLock { state -> [CheckedContinuation<Received?, Never>] in
                state.received.append(item)
                let ending: (Int) -> Bool
                if let id = message?["id"]?.intValue {
                    ending = { $0 == id }
                } else if message == nil {
                    ending = { [stray = state.endingAtStrayLines] in stray.contains($0) }
                } else {
                    return []
                }
                let matching = state.waiters.filter { ending($0.id) }.map(\.continuation)
                state.waiters.removeAll { ending($0.id) }
                return matching
            }
            ready.forEach { $0.resume(returning: item) }
        case .malformed(let reason), .closed(let reason):
            let waiters = state.withLock { state -> [CheckedContinuation<Received?, Never>] in
                if state.closed == nil { state.closed = reason }
                defer { state.waiters = [] }
                return state.waiters.map(\.continuation)
            }
            waiters.forEach { $0.resume(returning: nil) }
        }
    }

    /// Why the connection ended, if it has.
    var closedReason: String? { state.withLock { $0.closed } }

    /// Everything received so far.
    var received: [Received] { state.withLock { $0.received } }

    /// The ids of the requests sent so far (allocated by ``requestLine(_:_:)``).
    var sentIDs: Range<Int> { 1..<state.withLock { $0.nextID } }

    func nextID() -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// The request line for `method` with `params` and a new id.
    func requestLine(_ method: String, _ params: JSONValue) -> (id: Int, line: String) {
        let id = nextID()
        return (id, JSONWriter.compact(["jsonrpc": "2.0", "id": .int(id), "method": .string(method), "params": params]))
    }

    /// Sends a line; false when the connection is closed.
    @discardableResult
    func send(_ line: String) -> Bool {
        (try? channel.send(line)) != nil
    }

    /// Waits for the response with `id`, at most `limit` of real time; nil when none came. With `endingAtStrayLine`,
    /// a line that is not a JSON object ends the wait too, and is what it returns.
    func response(to id: Int, within limit: Duration, endingAtStrayLine: Bool = false) async -> Received? {
        if endingAtStrayLine { state.withLock { _ = $0.endingAtStrayLines.insert(id) } }
        if let existing = state.withLock({ state in state.received.first { $0.message?["id"]?.intValue == id } }) {
            return existing
        }
        let timeout = Task { [weak self] in
            guard (try? await Task.sleep(for: limit)) != nil, let self else { return }
            let waiters = state.withLock { state -> [CheckedContinuation<Received?, Never>] in
                let matching = state.waiters.filter { $0.id == id }.map(\.continuation)
                state.waiters.removeAll { $0.id == id }
                return matching
            }
            waiters.forEach { $0.resume(returning: nil) }
        }
        defer { timeout.cancel() }
        return await withCheckedContinuation { (continuation: CheckedContinuation<Received?, Never>) in
            let ready = state.withLock { state -> (Bool, Received?) in
                if let existing = state.received.first(where: { $0.message?["id"]?.intValue == id }) { return (true, existing) }
                if state.closed != nil { return (true, nil) }
                if state.endingAtStrayLines.contains(id), let stray = state.received.first(where: { $0.message == nil }) { return (true, stray) }
                state.waiters.append((id, continuation))
                return (false, nil)
            }
            if ready.0 { continuation.resume(returning: ready.1) }
        }
    }

    /// Sends a request and waits for its response. A request that cannot be sent (the hub's end is gone) waits,
    /// within the same limit, for the connection's end to be told, so that ``closedReason`` says how the hub ended.
    func call(
        _ method: String, _ params: JSONValue, within limit: Duration, endingAtStrayLine: Bool = false
    ) async -> (sent: String, reply: Received?) {
        let (id, line) = requestLine(method, params)
        send(line)
        return (line, await response(to: id, within: limit, endingAtStrayLine: endingAtStrayLine))
    }

    /// The first line received that is not a JSON object, and its number among the lines received.
    var firstStrayLine: (line: String, number: Int)? {
        state.withLock { state in
            state.received.firstIndex { $0.message == nil }.map { (state.received[$0].line, $0 + 1) }
        }
    }

    /// Waits until a notification matching `matches` has arrived, at most `limit` of real time.
    func notification(within limit: Duration, where matches: @escaping @Sendable (JSONObject) -> Bool) async -> Received? {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let found = received.first(where: { item in
                guard let message = item.message, message["id"] == nil else { return false }
                return matches(message)
            }) {
                return found
            }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return nil
    }
}
