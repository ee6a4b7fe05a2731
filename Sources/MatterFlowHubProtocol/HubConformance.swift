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
        public enum Verdict: String, Sendable, Hashable {
            case passed, failed, skipped
        }

        public var name: String
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

    public init(
        structure: StructureID? = nil, answerLimit: Duration = .seconds(10), cancellationLimit: Duration = .seconds(5),
        customOperations: Set<String> = []
    ) {
        self.structure = structure
        self.answerLimit = answerLimit
        self.cancellationLimit = cancellationLimit
        self.customOperations = customOperations
    }

    /// Runs every check over `channel` (a fresh connection: the suite sends the handshake itself).
    public func run(on channel: any LineChannel) async -> [Check] {
        let run = ConformanceRun(client: RawHubClient(channel: channel), limit: answerLimit, cancellationLimit: cancellationLimit)
        run.customOperations = customOperations
        await run.checkAll(structure: structure)
        run.checkLines()
        run.checkResponses()
        channel.close()
        return run.checks
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

    init(client: RawHubClient, limit: Duration, cancellationLimit: Duration) {
        self.client = client
        self.limit = limit
        self.cancellationLimit = cancellationLimit
    }

    private func pass(_ name: String) { checks.append(.init(name: name, verdict: .passed, detail: "")) }

    private func skip(_ name: String, _ why: String) { checks.append(.init(name: name, verdict: .skipped, detail: why)) }

    /// Records a failed check; `waited` is how long the check waited for `got` (the answer limit unless it says).
    private func fail(_ name: String, sent: String, got: RawHubClient.Received?, wanted: String, waited: Duration? = nil) {
        // No answer with the request's id: the hub's last line, when it is not an answer to another request, is
        // most likely the one it meant (a wrong id, a line that is not JSON).
        let stray = client.received.last.flatMap { last -> String? in
            guard let message = last.message else { return last.line }
            guard message["method"] == nil, let id = message["id"]?.intValue else { return message["method"] == nil ? last.line : nil }
            return client.sentIDs.contains(id) ? nil : last.line
        }
        let reply = got.map { LineQuote.masked($0.line, limit: 300) }
            ?? "nothing within \((waited ?? limit).secondsText) s" + (client.closedReason.map { " (\($0))" } ?? "")
                + (stray.map { "; the hub's last line was \(LineQuote.masked($0, limit: 200))" } ?? "")
        checks.append(
            .init(
                name: name, verdict: .failed,
                detail: "sent: \(LineQuote.masked(sent, limit: 300))\n      got: \(reply)\n      wanted: \(wanted)"))
    }

    /// Whether the hub has closed the connection (it exited, or broke the framing): then one failure says so, and
    /// the checks after it are not run, instead of each reporting the same silence.
    private func stoppedBecauseClosed() -> Bool {
        guard let reason = client.closedReason else { return false }
        checks.append(
            .init(
                name: "the hub keeps the connection open while checks run", verdict: .failed,
                detail: "got: \(reason), after \(checks.count) check\(checks.count == 1 ? "" : "s")\n      wanted: the connection open until the client closes it (a hub that exits or breaks the framing ends every run's calls); the checks after this one were not run"))
        return true
    }

    /// The `data.cause` and `data.code` of an error answer.
    private func errorData(_ reply: RawHubClient.Received?) -> (code: String?, cause: String?, rpc: Int?) {
        let error = reply?.message?["error"]
        return (error?["data"]?["code"]?.stringValue, error?["data"]?["cause"]?.stringValue, error?["code"]?.intValue)
    }

    private func result(_ reply: RawHubClient.Received?) -> JSONObject? { reply?.message?["result"]?.objectValue }

    /// 11. Everything the hub wrote to its output was a JSON object: MatterFlow ends the connection at any other line
    /// (a log line, a banner), so a hub that logs must log to standard error.
    func checkLines() {
        let name = "every line the hub sends is a JSON object (logs go to standard error)"
        if let stray = client.received.first(where: { $0.message == nil }) {
            checks.append(
                .init(
                    name: name, verdict: .failed,
                    detail: "got: \(LineQuote.masked(stray.line, limit: 300))\n      wanted: JSON-RPC messages only on standard output; "
                        + "matterflow run ends the connection at such a line (write logs to standard error)"))
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
                        detail: "got: \(LineQuote.masked(item.line, limit: 300))\n      wanted: one response per request; this is \(problem) (matterflow run ends the connection there)"))
                return
            }
        }
        pass(name)
    }

    /// A check that a method's result has the shape MatterFlow reads, with the same reader `matterflow run` uses.
    private func checkShape(_ name: String, _ call: (sent: String, reply: RawHubClient.Received?), _ read: (WireReader) throws(FlowError) -> Void) {
        guard let value = call.reply?.message?["result"] else {
            fail(name, sent: call.sent, got: call.reply, wanted: "a result")
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
        let early = await client.call("status", ["structure": "any"], within: limit)
        if errorData(early.reply).rpc == WireError.notInitialized {
            pass("a request before initialize is refused with -32002")
        } else {
            fail(
                "a request before initialize is refused with -32002", sent: early.sent, got: early.reply,
                wanted: "an error with code -32002 (not initialized)")
        }

        // 1. Handshake.
        let hello = await client.call(
            "initialize", ["protocolVersion": 1, "client": ["name": "matterflow hub check", "version": "1"]], within: limit)
        let handshake = result(hello.reply)
        let operations = handshake?["operations"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let unknown = operations.filter { !HubMethod.all.contains($0) && !customOperations.contains($0) }
        guard let handshake, handshake["protocolVersion"]?.intValue == 1, handshake["hub"]?["name"]?.stringValue != nil,
            handshake["events"]?.boolValue != nil, handshake["operations"]?.arrayValue != nil, unknown.isEmpty
        else {
            fail(
                "initialize answers protocol version 1, a hub name, operations and events", sent: hello.sent, got: hello.reply,
                wanted: "result {\"protocolVersion\": 1, \"hub\": {\"name\", \"version\"}, \"operations\": [known methods], \"events\": bool}"
                    + (unknown.isEmpty
                        ? ""
                        : "; unknown methods listed: \(unknown.joined(separator: ", ")) (custom operations need --catalog)"))
            return
        }
        pass("initialize answers protocol version 1, a hub name, operations and events")
        let events = handshake["events"]?.boolValue ?? false
        guard let structure = structure ?? handshake["structures"]?.arrayValue?.first?.stringValue else {
            fail(
                "a structure to test", sent: hello.sent, got: hello.reply,
                wanted: "\"structures\" in the handshake, or --structure ID")
            return
        }
        let target: JSONValue = .string(structure)

        // 2. Status shape.
        let status = await client.call("status", ["structure": target], within: limit)
        if let value = result(status.reply), ["online", "reachable", "permissionGranted", "activeSession"].allSatisfy({ value[$0]?.boolValue != nil }) {
            pass("status has online, reachable, permissionGranted and activeSession as booleans")
        } else {
            fail(
                "status has online, reachable, permissionGranted and activeSession as booleans", sent: status.sent, got: status.reply,
                wanted: "result with four booleans")
        }

        if stoppedBecauseClosed() { return }
        // 2b. Results of the other reading methods the hub lists, read as `matterflow run` reads them.
        if operations.contains("activeSession") {
            let session = await client.call("activeSession", ["structure": target], within: limit)
            checkShape("activeSession's result has the shape MatterFlow reads", session) { reader throws(FlowError) in
                _ = try reader.optionalObject("session").map { session throws(FlowError) in try HubWire.session(session) }
            }
        }
        if operations.contains("borderRouters") {
            let routers = await client.call("borderRouters", ["structure": target], within: limit)
            checkShape("borderRouters' result has the shape MatterFlow reads", routers) { reader throws(FlowError) in
                for router in try reader.objects("borderRouters") { _ = try HubWire.borderRouter(router) }
            }
            let first = result(routers.reply)?["borderRouters"]?.arrayValue?.first?["deviceID"]?.stringValue
            if operations.contains("threadCapabilities"), let first {
                let capabilities = await client.call("threadCapabilities", ["structure": target, "deviceID": .string(first)], within: limit)
                if errorData(capabilities.reply).cause == "notSupported" {
                    pass("threadCapabilities' result has the shape MatterFlow reads")
                } else {
                    checkShape("threadCapabilities' result has the shape MatterFlow reads", capabilities) { reader throws(FlowError) in
                        _ = try HubWire.capabilities(reader)
                    }
                }
            }
        }

        if stoppedBecauseClosed() { return }
        // 3. A method the hub did not list.
        if let missing = HubMethod.all.first(where: { !operations.contains($0) }) {
            let call = await client.call(missing, ["structure": target], within: limit)
            if errorData(call.reply).rpc == WireError.methodNotFound {
                pass("a method not in operations (\(missing)) is answered with -32601")
            } else {
                fail(
                    "a method not in operations (\(missing)) is answered with -32601", sent: call.sent, got: call.reply,
                    wanted: "an error with code -32601")
            }
        } else {
            skip("a method not in operations is answered with -32601", "the hub lists every method")
        }

        if stoppedBecauseClosed() { return }
        // 4. Cancel with nothing open.
        let idle = await client.call("cancelCommissioning", ["structure": target], within: limit)
        if result(idle.reply)?["released"]?.boolValue == false {
            pass("cancelCommissioning with no session open returns released: false")
        } else {
            fail(
                "cancelCommissioning with no session open returns released: false", sent: idle.sent, got: idle.reply,
                wanted: "result {\"released\": false} (is a session left open on \(structure)?)")
        }

        if stoppedBecauseClosed() { return }
        // 5. One session per structure.
        await checkSession(target)

        if stoppedBecauseClosed() { return }
        // 6. Unknown device.
        let unknownDevice = await client.call(
            "basicInformation", ["structure": target, "deviceID": "hub-check-no-such-device"], within: limit)
        let unknownData = errorData(unknownDevice.reply)
        if unknownData.code == "notFound", unknownData.cause == "deviceNotFound" {
            pass("basicInformation of an unknown device fails with notFound / deviceNotFound")
        } else {
            fail(
                "basicInformation of an unknown device fails with notFound / deviceNotFound", sent: unknownDevice.sent,
                got: unknownDevice.reply, wanted: "an error with data {\"code\": \"notFound\", \"cause\": \"deviceNotFound\"}")
        }

        if stoppedBecauseClosed() { return }
        // 7. Invalid arguments.
        let noStructure = await client.call("status", [:], within: limit)
        if errorData(noStructure.reply).code == "invalidArgument" {
            pass("a call without structure fails with invalidArgument")
        } else {
            fail(
                "a call without structure fails with invalidArgument", sent: noStructure.sent, got: noStructure.reply,
                wanted: "an error with data.code \"invalidArgument\" (JSON-RPC -32602)")
        }
        let badName = await client.call("configureDevice", ["structure": target, "name": 42, "roomName": .null], within: limit)
        if errorData(badName.reply).code == "invalidArgument" {
            pass("configureDevice with a number for name fails with invalidArgument")
        } else {
            fail(
                "configureDevice with a number for name fails with invalidArgument", sent: badName.sent, got: badName.reply,
                wanted: "an error with data.code \"invalidArgument\" (JSON-RPC -32602)")
        }

        if stoppedBecauseClosed() { return }
        // 8. Events.
        if events {
            await checkEvents(target, operations: operations)
        } else {
            skip("events arrive as notifications", "the hub's handshake says events: false")
        }

        if stoppedBecauseClosed() { return }
        // 9. Cancellation.
        let (id, line) = client.requestLine("status", ["structure": target])
        client.send(line)
        client.send(JSONWriter.compact(["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": .int(id)]]))
        let cancelled = await client.response(to: id, within: cancellationLimit)
        let cancelledData = errorData(cancelled)
        let cancellationCheck = "a cancelled call is answered (runCancelled or its result) within \(cancellationLimit.secondsText) s"
        if result(cancelled) != nil || cancelledData.cause == "runCancelled" {
            pass(cancellationCheck)
        } else {
            fail(
                cancellationCheck, sent: line, got: cancelled,
                wanted: "its result, or an error with data.cause \"runCancelled\"", waited: cancellationLimit)
        }

        if stoppedBecauseClosed() { return }
        // 10. Extensions are ignored.
        client.send(JSONWriter.compact(["jsonrpc": "2.0", "method": "$/hubCheckUnknown", "params": [:]]))
        let extended = await client.call("status", ["structure": target, "hubCheckFutureMember": 1], within: limit)
        if result(extended.reply)?["online"]?.boolValue != nil {
            pass("unknown params members and unknown $/ notifications are ignored")
        } else {
            fail(
                "unknown params members and unknown $/ notifications are ignored", sent: extended.sent, got: extended.reply,
                wanted: "status's usual result")
        }
    }

    private func checkSession(_ target: JSONValue) async {
        let name = "one session per structure: a second prepareCommissioning fails with sessionBusy"
        let first = await client.call("prepareCommissioning", ["structure": target], within: limit)
        guard result(first.reply)?["sessionID"]?.stringValue != nil else {
            fail(name, sent: first.sent, got: first.reply, wanted: "result {\"sessionID\": string} for the first prepare")
            // The hub may have opened a session all the same (an answer late or malformed): the check leaves none.
            _ = await client.call("cancelCommissioning", ["structure": target], within: limit)
            return
        }
        let status = await client.call("status", ["structure": target], within: limit)
        let active = result(status.reply)?["activeSession"]?.boolValue == true
        let second = await client.call("prepareCommissioning", ["structure": target], within: limit)
        let data = errorData(second.reply)
        if !active {
            fail(name, sent: status.sent, got: status.reply, wanted: "activeSession: true while a session is open")
        } else if data.code == "failedPrecondition", data.cause == "sessionBusy" {
            pass(name)
        } else {
            fail(
                name, sent: second.sent, got: second.reply,
                wanted: "an error with data {\"code\": \"failedPrecondition\", \"cause\": \"sessionBusy\"}")
        }
        let release = await client.call("cancelCommissioning", ["structure": target], within: limit)
        if result(release.reply)?["released"]?.boolValue == true {
            pass("cancelCommissioning releases an open session (released: true)")
        } else {
            fail(
                "cancelCommissioning releases an open session (released: true)", sent: release.sent, got: release.reply,
                wanted: "result {\"released\": true}")
        }
    }

    private func checkEvents(_ target: JSONValue, operations: [String]) async {
        let subscribe = await client.call("subscribe", ["structure": target], within: limit)
        guard let subscription = result(subscribe.reply)?["subscription"]?.stringValue else {
            fail("subscribe returns a subscription", sent: subscribe.sent, got: subscribe.reply, wanted: "result {\"subscription\": string}")
            return
        }
        pass("subscribe returns a subscription")
        let name = "an event caused while subscribed arrives as an event notification"
        let capable = ["borderRouters", "activateEpskc", "deactivateEpskc"].allSatisfy(operations.contains)
        let routers = capable ? await client.call("borderRouters", ["structure": target], within: limit) : nil
        let router = result(routers?.reply)?["borderRouters"]?.arrayValue?.first { router in
            router["traits"]?.arrayValue?.contains { trait in
                trait["commands"]?.arrayValue?.contains { $0.stringValue?.lowercased().contains("epskc") == true } == true
            } == true
        }
        if let deviceID = router?["deviceID"]?.stringValue {
            let activate = await client.call(
                "activateEpskc", ["structure": target, "deviceID": .string(deviceID), "requestedDurationSeconds": .null], within: limit)
            checkShape("activateEpskc's result has the shape MatterFlow reads", activate) { reader throws(FlowError) in
                _ = try HubWire.activation(reader)
            }
            if result(activate.reply) == nil {
                fail(name, sent: activate.sent, got: activate.reply, wanted: "an ePSKc key, so that deactivating it causes an event")
                // A key the hub activated all the same (its answer late or malformed) does not stay active.
                _ = await client.call("deactivateEpskc", ["structure": target, "deviceID": .string(deviceID)], within: limit)
            } else {
                let deactivate = await client.call("deactivateEpskc", ["structure": target, "deviceID": .string(deviceID)], within: limit)
                let event = await client.notification(within: limit) { message in
                    message["method"]?.stringValue == "event" && message["params"]?["subscription"]?.stringValue == subscription
                        && message["params"]?["event"]?["name"]?.stringValue == "epskcModeDeactivated"
                }
                let shaped = event?.message?["params"]?["event"].map { event in
                    event["value"]?.stringValue != nil && event["fields"]?.objectValue != nil && event["time"]?.doubleValue != nil
                } ?? false
                if shaped {
                    pass(name)
                } else {
                    fail(
                        name, sent: deactivate.sent, got: event ?? deactivate.reply,
                        wanted: "an \"event\" notification for \(subscription) named epskcModeDeactivated with value, fields and time")
                }
            }
        } else {
            skip(name, "no border router with ePSKc to cause an event with (borderRouters, activateEpskc, deactivateEpskc)")
        }
        let unsubscribe = await client.call("unsubscribe", ["subscription": .string(subscription), "structure": target], within: limit)
        if result(unsubscribe.reply) != nil {
            pass("unsubscribe answers {}")
        } else {
            fail("unsubscribe answers {}", sent: unsubscribe.sent, got: unsubscribe.reply, wanted: "result {}")
        }
    }
}
