import MatterFlow
import MatterFlowJSON

/// The conformance suite of the hub protocol (docs/hub-protocol.md, section 8): what `matterflow hub check` runs
/// against a hub, and what a hub author runs against theirs.
///
/// The suite changes the structure only through a session it cancels again and, when it checks events, an ePSKc
/// key it deactivates again.
public struct HubConformance: Sendable {
    /// One check's outcome.
    public struct Check: Sendable, Hashable {
        /// Whether the hub met the check, broke it, or the check did not apply (an operation the hub does not list).
        public enum Verdict: String, Sendable, Hashable {
            case passed, failed, skipped
        }

        /// What the check asserts, as `hub check` prints it.
        public var name: String
        /// How the check came out.
        public var verdict: Verdict
        /// For a failure: what was sent, what came back, what the contract wanted. For a skip: why.
        public var detail: String
    }

    /// How long any one answer may take, in real time.
    public var answerLimit: Duration
    /// How long the answer to a cancelled call may take, in real time: 5 s by the protocol.
    public var cancellationLimit: Duration
    /// The structure to test; nil: the first the handshake names.
    public var structure: StructureID?

    /// Custom operations (declared in operation catalog files) the hub may list besides the protocol's methods.
    public var customOperations: Set<String>

    /// A suite that tests `structure` (nil: the first the handshake names), giving each answer `answerLimit` and the
    /// answer to a cancelled call `cancellationLimit`, and accepting `customOperations` in the handshake.
    public init(
        structure: StructureID? = nil, answerLimit: Duration = .seconds(10), cancellationLimit: Duration = .seconds(5),
        customOperations: Set<String> = []
    ) {
        self.structure = structure
        self.answerLimit = answerLimit
        self.cancellationLimit = cancellationLimit
        self.customOperations = customOperations
    }

    /// The check a hub that closed the connection fails (after the check it closed in); no check after it runs but
    /// for the two on what the hub had sent.
    public static let connectionKeptCheck = "the hub keeps the connection open while checks run"
    /// The check that the structure given to test is one the hub names; failed, the command was given the wrong one.
    public static let structureCheck = "the structure to test is one the hub names"
    /// The handshake's check: a hub that closed the connection before passing it never ran as a hub.
    public static let handshakeCheck = "initialize answers protocol version 1, a hub name, operations and events"
    /// The line standing for the checks of section 8 after the handshake when none of them could run (skipped).
    public static let laterChecks = "the checks after the handshake (status, sessions, errors, events, cancellation, extensions)"

    /// What a run of the suite found, beyond its checks: what a command needs to tell a mistake of its own (a hub
    /// command that is no hub, a structure the hub lacks) from the hub's.
    public struct Report: Sendable {
        /// Every check, in the order they ran.
        public var checks: [Check]
        /// How the hub ended the connection before its handshake passed; nil when it did not.
        public var endedBeforeHandshake: String?
        /// The structures the handshake names, when the structure to test is none of them; nil otherwise.
        public var structuresWhenUnknown: [String]?
        /// The hub's name from its handshake, when one passed.
        public var hubName: String?
        /// Whether a client can use the hub's handshake (it may still fail the check, for an operation it does not
        /// know); when it cannot, the hub cannot be used, whatever else the checks found.
        public var handshakeUsable = false
        /// Why no client can use the handshake (what the client's reader said, or that no result came).
        public var handshakeProblem: String?
        /// Whether no structure was given and the handshake names none: nothing past it could be checked.
        public var missingStructure = false
    }

    /// Runs every check over `channel` (a fresh connection: the suite sends the handshake itself).
    public func run(on channel: any LineChannel) async -> [Check] {
        await report(on: channel).checks
    }

    /// Runs every check over `channel`, as ``run(on:)``, and says what it learnt of the hub.
    public func report(on channel: any LineChannel) async -> Report {
        let run = ConformanceRun(client: RawHubClient(channel: channel), limit: answerLimit, cancellationLimit: cancellationLimit)
        run.customOperations = customOperations
        await run.checkAll(structure: structure)
        run.checkLines()
        run.checkResponses()
        // Read before this side closes: the close ends the connection too, and would read as the hub's doing.
        let endedBeforeHandshake = run.handshakePassed ? nil : run.client.closedReason
        channel.close()
        return Report(
            checks: run.checks, endedBeforeHandshake: endedBeforeHandshake, structuresWhenUnknown: run.structuresWhenUnknown,
            hubName: run.hubName, handshakeUsable: run.handshakeUsable, handshakeProblem: run.handshakeProblem,
            missingStructure: run.missingStructure)
    }
}

/// One run of the suite, collecting its checks in order.
final class ConformanceRun {
    let client: RawHubClient
    let limit: Duration
    let cancellationLimit: Duration
    private(set) var checks: [HubConformance.Check] = []
    /// Names the handshake may list besides the protocol's methods.
    var customOperations: Set<String> = []
    /// Whether the handshake's check passed.
    private(set) var handshakePassed = false
    /// The hub's name, from its handshake.
    private(set) var hubName: String?
    /// The structures the handshake names, when the structure to test is none of them.
    private(set) var structuresWhenUnknown: [String]?
    /// Whether no structure was given and the handshake names none, so nothing past it could be checked.
    private(set) var missingStructure = false
    /// Whether a client could use the hub's handshake (``RemoteHub/Handshake/init(reading:)``), whatever the check
    /// found beside (an operation it does not know).
    private(set) var handshakeUsable = false
    /// Why no client could use the handshake, when none could and the hub answered.
    private(set) var handshakeProblem: String?

    init(client: RawHubClient, limit: Duration, cancellationLimit: Duration) {
        self.client = client
        self.limit = limit
        self.cancellationLimit = cancellationLimit
    }

    func pass(_ name: String) { checks.append(.init(name: name, verdict: .passed, detail: "")) }

    /// Passes the check `name` when `holds`, else fails it with what `call` sent and got and what was `wanted`.
    /// An answer giving a key twice fails whatever it holds: `matterflow run` ends the connection there, and which of
    /// the two values a check read says nothing of what the hub meant.
    func check(_ name: String, _ holds: Bool, _ call: (sent: String, reply: RawHubClient.Received?), wanted: String) {
        if let repeated = Self.repeatedKeyProblem(call.reply) {
            fail(name, sent: call.sent, got: call.reply, wanted: wanted + "; " + repeated)
        } else if holds {
            pass(name)
        } else {
            fail(name, sent: call.sent, got: call.reply, wanted: wanted)
        }
    }

    /// What to say of an answer that gives a key twice in one object; nil for one that does not.
    static func repeatedKeyProblem(_ reply: RawHubClient.Received?) -> String? {
        reply?.repeatedKey.map { "each key once (this answer gives \"\($0.key)\" twice, at \($0.pointer); matterflow run ends the connection there)" }
    }

    func skip(_ name: String, _ why: String) { checks.append(.init(name: name, verdict: .skipped, detail: why)) }

    /// Records a failed check; `waited` is how long the check waited for `got` (the answer limit unless it says).
    func fail(_ name: String, sent: String, got: RawHubClient.Received?, wanted: String, waited: Duration? = nil) {
        // No answer with the request's id: the hub's last line, when it is not an answer to another request, is
        // most likely the one it meant (a wrong id, a line that is not JSON).
        let stray = client.received.last.flatMap { last -> String? in
            guard let message = last.message else { return last.line }
            guard message["method"] == nil, let id = message["id"]?.intValue else { return message["method"] == nil ? last.line : nil }
            return client.sentIDs.contains(id) ? nil : last.line
        }
        // A hub that closed the connection did not make the check wait its limit: say how it ended instead.
        let silence = client.closedReason.map { "nothing: \($0)" } ?? "nothing within \((waited ?? limit).secondsText) s"
        let reply = got.map { LineQuote.masked($0.line, limit: 300) }
            ?? silence + (stray.map { "; the hub's last line was \(LineQuote.masked($0, limit: 200))" } ?? "")
        checks.append(
            .init(
                name: name, verdict: .failed,
                detail: "sent: \(LineQuote.masked(sent, limit: 300))\ngot: \(reply)\nwanted: \(wanted)"))
    }

    /// Whether the hub has closed the connection (it exited, or broke the framing): then one failure says so, and
    /// the checks after it are not run, instead of each reporting the same silence.
    private func stoppedBecauseClosed() -> Bool {
        guard let reason = client.closedReason else { return false }
        checks.append(
            .init(
                name: HubConformance.connectionKeptCheck, verdict: .failed,
                detail: "got: \(reason), after \(checks.count) check\(checks.count == 1 ? "" : "s")\nwanted: the connection open until the client closes it (a hub that exits or breaks the framing ends every run's calls); the checks after this one were not run, but for the two on what the hub had sent"))
        return true
    }

    /// The `data.cause` and `data.code` of an error answer.
    func errorData(_ reply: RawHubClient.Received?) -> (code: String?, cause: String?, rpc: Int?) {
        let error = reply?.message?["error"]
        return (error?["data"]?["code"]?.stringValue, error?["data"]?["cause"]?.stringValue, error?["code"]?.intValue)
    }

    func result(_ reply: RawHubClient.Received?) -> JSONObject? { reply?.message?["result"]?.objectValue }

    /// 11. Everything the hub wrote to its output was a JSON object, each key once: MatterFlow ends the connection at
    /// any other line (a log line, a banner), so a hub that logs must log to standard error; and at a message giving
    /// a key twice, since only one of its values would be read.
    func checkLines() {
        let name = "every line the hub sends is a JSON object (logs go to standard error)"
        if let stray = client.received.first(where: { $0.message == nil }) {
            checks.append(
                .init(
                    name: name, verdict: .failed,
                    detail: "got: \(LineQuote.masked(stray.line, limit: 300))\nwanted: JSON-RPC messages only on standard output; "
                        + "matterflow run ends the connection at such a line (write logs to standard error)"))
        } else if let repeating = client.received.first(where: { $0.repeatedKey != nil }), let repeated = repeating.repeatedKey {
            checks.append(
                .init(
                    name: name, verdict: .failed,
                    detail: "got: \(LineQuote.masked(repeating.line, limit: 300))\nwanted: each key once in an object; this gives \"\(repeated.key)\" "
                        + "twice, at \(repeated.pointer) (matterflow run ends the connection at such a message)"))
        } else {
            pass(name)
        }
    }

    /// 12. The hub answered each request once, with its id, and sent no request of its own: MatterFlow ends the
    /// connection at a response to an id it never sent or already had answered, and version 1 has no hub requests.
    func checkResponses() {
        let name = "the hub answers each request once, with its id, and sends no request of its own"
        var answered = Set<Int>()
        for item in client.received {
            guard let message = item.message else { continue }
            let problem: String?
            if message["method"] != nil {
                problem = message["id"] == nil ? nil : "a request from the hub; in version 1 the hub sends only responses and notifications"
            } else if let id = message["id"]?.intValue {
                problem = !client.sentIDs.contains(id)
                    ? "a response to id \(id), which was never sent"
                    : answered.insert(id).inserted ? nil : "a second response to id \(id)"
            } else {
                problem = "a response without an integer id"
            }
            if let problem {
                checks.append(
                    .init(
                        name: name, verdict: .failed,
                        detail: "got: \(LineQuote.masked(item.line, limit: 300))\nwanted: one response per request; this is \(problem) (matterflow run ends the connection there)"))
                return
            }
        }
        pass(name)
    }

    /// A check that a method's result has the shape MatterFlow reads, with the same reader `matterflow run` uses.
    func checkShape(_ name: String, _ call: (sent: String, reply: RawHubClient.Received?), _ read: (WireReader) throws(FlowError) -> Void) {
        guard let value = call.reply?.message?["result"] else {
            fail(name, sent: call.sent, got: call.reply, wanted: "a result")
            return
        }
        if let repeated = Self.repeatedKeyProblem(call.reply) {
            fail(name, sent: call.sent, got: call.reply, wanted: "a result MatterFlow can read: " + repeated)
            return
        }
        do throws(FlowError) {
            try read(try WireReader(value, subject: "the result", cause: .hubFailure))
            pass(name)
        } catch {
            fail(name, sent: call.sent, got: call.reply, wanted: "a result MatterFlow can read: \(error.message)")
        }
    }

    func checkAll(structure: StructureID?) async {
        // 0. Requests before the handshake are refused.
        // A line that is not JSON ends this wait and the handshake's, as it ends a client's connection.
        let early = await client.call("status", ["structure": "any"], within: limit, endingAtStrayLine: true)
        check(
            "a request before initialize is refused with -32002",
            errorData(early.reply).rpc == WireError.notInitialized, early,
            wanted: "an error with code -32002 (not initialized)")
        if stoppedBecauseClosed() { return }

        // 1. Handshake.
        let hello = await client.call(
            "initialize", ["protocolVersion": 1, "client": ["name": "matterflow hub check", "version": "1"]], within: limit,
            endingAtStrayLine: true)
        let handshake = result(hello.reply)
        let operations = handshake?["operations"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let unknown = operations.filter { !HubMethod.all.contains($0) && !customOperations.contains($0) }
        // Read as a client reads it: what it refuses, no client can use.
        var problem = Self.repeatedKeyProblem(hello.reply)
        var read: RemoteHub.Handshake?
        if let handshake, problem == nil {
            do {
                read = try RemoteHub.Handshake(reading: .object(handshake))
                handshakeUsable = true
            } catch {
                problem = error.message
            }
        }
        guard let read, unknown.isEmpty else {
            if hello.reply.map({ $0.message == nil }) == true, let stray = client.firstStrayLine {
                problem = "the hub sent a line that is not JSON (\(LineQuote.numbered(stray.line, number: stray.number)))"
            }
            fail(
                HubConformance.handshakeCheck, sent: hello.sent, got: hello.reply,
                wanted: "result {\"protocolVersion\": 1, \"hub\": {\"name\", \"version\"}, \"operations\": [known methods], \"events\": bool}"
                    + (problem.map { " (\($0))" } ?? "")
                    + (unknown.isEmpty
                        ? ""
                        : "; unknown methods listed: \(unknown.joined(separator: ", ")) (custom operations need --catalog)"))
            handshakeProblem = problem ?? (handshake == nil ? "no result to initialize" : nil)
            if !stoppedBecauseClosed() { skip(HubConformance.laterChecks, "not run: the handshake failed") }
            return
        }
        pass(HubConformance.handshakeCheck)
        handshakePassed = true
        hubName = read.hubName
        guard let structure = structure ?? read.structures.first else {
            missingStructure = true
            skip(HubConformance.laterChecks, "not run: no structure to test (the handshake names none; give --structure ID)")
            return
        }
        let named = read.structures
        guard named.isEmpty || named.contains(structure) else {
            structuresWhenUnknown = named
            // A structure the hub does not serve would fail every later check for the person's mistake, not the hub's.
            fail(
                HubConformance.structureCheck, sent: hello.sent, got: hello.reply,
                wanted: "--structure naming one of the hub's structures: \(named.joined(separator: ", "))")
            skip(HubConformance.laterChecks, "not run: the hub names no such structure (give --structure with one it names)")
            return
        }
        let hub = HubUnderCheck(target: .string(structure), structure: structure, operations: operations, events: read.events)
        for step in Self.steps {
            await step(self)(hub)
            if stoppedBecauseClosed() { return }
        }
    }
}
