import MatterFlow
import MatterFlowJSON

/// The hub a conformance run checks, as its handshake described it.
struct HubUnderCheck {
    /// The structure under test, as sent in calls.
    let target: JSONValue
    let structure: StructureID
    /// The methods the handshake lists.
    let operations: [String]
    /// Whether the handshake says the hub sends events.
    let events: Bool
}

/// Checks 2 to 10 of the suite, each against the hub its handshake described.
extension ConformanceRun {
    /// The checks after the handshake, in order. The run stops after the one during which the hub closed the
    /// connection (``stoppedBecauseClosed()``), rather than have each later one report the same silence.
    static var steps: [(ConformanceRun) -> (HubUnderCheck) async -> Void] {
        [
            ConformanceRun.checkStatus,
            ConformanceRun.checkReadingMethods,
            ConformanceRun.checkUnlistedMethod,
            ConformanceRun.checkIdleCancel,
            ConformanceRun.checkOneSession,
            ConformanceRun.checkUnknownDevice,
            ConformanceRun.checkInvalidArguments,
            ConformanceRun.checkEventsIfAny,
            ConformanceRun.checkCancellation,
            ConformanceRun.checkExtensions,
        ]
    }

    /// 2. `status` has its four booleans.
    func checkStatus(_ hub: HubUnderCheck) async {
        let target = hub.target
        let status = await client.call("status", ["structure": target], within: limit)
        let value = result(status.reply)
        check(
            "status has online, reachable, permissionGranted and activeSession as booleans",
            ["online", "reachable", "permissionGranted", "activeSession"].allSatisfy { value?[$0]?.boolValue != nil }, status,
            wanted: "result with four booleans")
    }

    /// 2b. The other reading methods the hub lists answer what `matterflow run` reads.
    func checkReadingMethods(_ hub: HubUnderCheck) async {
        let target = hub.target
        let operations = hub.operations
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
                    check(
                        "threadCapabilities' result has the shape MatterFlow reads", true, capabilities,
                        wanted: "a result MatterFlow reads, or an error with data.cause \"notSupported\"")
                } else {
                    checkShape("threadCapabilities' result has the shape MatterFlow reads", capabilities) { reader throws(FlowError) in
                        _ = try HubWire.capabilities(reader)
                    }
                }
            }
        }
    }

    /// 3. A method the hub did not list is answered with -32601.
    func checkUnlistedMethod(_ hub: HubUnderCheck) async {
        let target = hub.target
        let operations = hub.operations
        if let missing = HubMethod.all.first(where: { !operations.contains($0) }) {
            let call = await client.call(missing, ["structure": target], within: limit)
            check(
                "a method not in operations (\(missing)) is answered with -32601",
                errorData(call.reply).rpc == WireError.methodNotFound, call,
                wanted: "an error with code -32601")
        } else {
            skip("a method not in operations is answered with -32601", "the hub lists every method")
        }
    }

    /// 4. `cancelCommissioning` with nothing open answers released: false.
    func checkIdleCancel(_ hub: HubUnderCheck) async {
        let target = hub.target
        let structure = hub.structure
        let idle = await client.call("cancelCommissioning", ["structure": target], within: limit)
        check(
            "cancelCommissioning with no session open returns released: false",
            result(idle.reply)?["released"]?.boolValue == false, idle,
            wanted: "result {\"released\": false} (is a session left open on \(structure)?)")
    }

    /// 6. An unknown device is `notFound` / `deviceNotFound`.
    func checkUnknownDevice(_ hub: HubUnderCheck) async {
        let target = hub.target
        let unknownDevice = await client.call(
            "basicInformation", ["structure": target, "deviceID": "hub-check-no-such-device"], within: limit)
        let unknownData = errorData(unknownDevice.reply)
        check(
            "basicInformation of an unknown device fails with notFound / deviceNotFound",
            unknownData.code == "notFound" && unknownData.cause == "deviceNotFound", unknownDevice,
            wanted: "an error with data {\"code\": \"notFound\", \"cause\": \"deviceNotFound\"}")
    }

    /// 7. Invalid arguments are `invalidArgument`.
    func checkInvalidArguments(_ hub: HubUnderCheck) async {
        let target = hub.target
        let noStructure = await client.call("status", [:], within: limit)
        check(
            "a call without structure fails with invalidArgument",
            errorData(noStructure.reply).code == "invalidArgument", noStructure,
            wanted: "an error with data.code \"invalidArgument\" (JSON-RPC -32602)")
        let badName = await client.call("configureDevice", ["structure": target, "name": 42, "roomName": .null], within: limit)
        check(
            "configureDevice with a number for name fails with invalidArgument",
            errorData(badName.reply).code == "invalidArgument", badName,
            wanted: "an error with data.code \"invalidArgument\" (JSON-RPC -32602)")
    }

    /// 8. Events arrive as notifications (when the hub has them).
    func checkEventsIfAny(_ hub: HubUnderCheck) async {
        guard hub.events else {
            skip("events arrive as notifications", "the hub's handshake says events: false")
            return
        }
        await checkEvents(hub)
    }

    /// 9. A cancelled call is answered within the cancellation limit.
    func checkCancellation(_ hub: HubUnderCheck) async {
        let target = hub.target
        let (id, line) = client.requestLine("status", ["structure": target])
        client.send(line)
        client.send(JSONWriter.compact(["jsonrpc": "2.0", "method": "$/cancelRequest", "params": ["id": .int(id)]]))
        let cancelled = await client.response(to: id, within: cancellationLimit)
        let cancelledData = errorData(cancelled)
        let cancellationCheck = "a cancelled call is answered (runCancelled or its result) within \(cancellationLimit.secondsText) s"
        if result(cancelled) != nil || cancelledData.cause == "runCancelled" {
            check(cancellationCheck, true, (line, cancelled), wanted: "its result, or an error with data.cause \"runCancelled\"")
        } else {
            fail(
                cancellationCheck, sent: line, got: cancelled,
                wanted: "its result, or an error with data.cause \"runCancelled\"", waited: cancellationLimit)
        }
    }

    /// 10. Unknown members and `$/` notifications are ignored.
    func checkExtensions(_ hub: HubUnderCheck) async {
        let target = hub.target
        client.send(JSONWriter.compact(["jsonrpc": "2.0", "method": "$/hubCheckUnknown", "params": [:]]))
        let extended = await client.call("status", ["structure": target, "hubCheckFutureMember": 1], within: limit)
        check(
            "unknown params members and unknown $/ notifications are ignored", result(extended.reply)?["online"]?.boolValue != nil,
            extended, wanted: "status's usual result")
    }

    /// 5. One session per structure: status reads while it is open (its holder too, when sent), a second prepare is
    /// `sessionBusy`, and a cancel releases the first.
    func checkOneSession(_ hub: HubUnderCheck) async {
        let target = hub.target
        let name = "one session per structure: a second prepareCommissioning fails with sessionBusy"
        let statusName = "status with a session open has the shape MatterFlow reads, its holder included when sent"
        let releaseName = "cancelCommissioning releases an open session (released: true)"
        let first = await client.call("prepareCommissioning", ["structure": target], within: limit)
        guard result(first.reply)?["sessionID"]?.stringValue != nil else {
            fail(name, sent: first.sent, got: first.reply, wanted: "result {\"sessionID\": string} for the first prepare")
            skip(statusName, "not run: the first prepareCommissioning opened no session")
            skip(releaseName, "not run: the first prepareCommissioning opened no session")
            // The hub may have opened a session all the same (an answer late or malformed): the check leaves none.
            _ = await client.call("cancelCommissioning", ["structure": target], within: limit)
            return
        }
        let status = await client.call("status", ["structure": target], within: limit)
        let active = result(status.reply)?["activeSession"]?.boolValue == true
        // A hub that says who holds the session says it now: a holder MatterFlow cannot read fails every guard's read.
        checkShape(statusName, status) { reader throws(FlowError) in
            _ = try HubWire.status(reader)
        }
        let second = await client.call("prepareCommissioning", ["structure": target], within: limit)
        let data = errorData(second.reply)
        if !active {
            fail(name, sent: status.sent, got: status.reply, wanted: "activeSession: true while a session is open")
        } else if data.code == "failedPrecondition", data.cause == "sessionBusy" {
            check(name, true, second, wanted: "an error with data {\"code\": \"failedPrecondition\", \"cause\": \"sessionBusy\"}")
        } else {
            fail(
                name, sent: second.sent, got: second.reply,
                wanted: "an error with data {\"code\": \"failedPrecondition\", \"cause\": \"sessionBusy\"}")
        }
        let release = await client.call("cancelCommissioning", ["structure": target], within: limit)
        check(
            releaseName,
            result(release.reply)?["released"]?.boolValue == true, release,
            wanted: "result {\"released\": true}")
    }

    /// Subscribes, causes an event (an ePSKc key activated and deactivated) where a router allows, and unsubscribes.
    func checkEvents(_ hub: HubUnderCheck) async {
        let target = hub.target
        let operations = hub.operations
        let subscribe = await client.call("subscribe", ["structure": target], within: limit)
        guard let subscription = result(subscribe.reply)?["subscription"]?.stringValue else {
            fail("subscribe returns a subscription", sent: subscribe.sent, got: subscribe.reply, wanted: "result {\"subscription\": string}")
            return
        }
        check("subscribe returns a subscription", true, subscribe, wanted: "result {\"subscription\": string}")
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
                // Read as a client reads it: an event it refuses closes a run's connection.
                var problem: String?
                if let payload = event?.message?["params"]?["event"] {
                    do throws(FlowError) {
                        _ = try HubWire.event(WireReader(payload, subject: "an event from the hub", cause: .hubFailure), structure: "")
                    } catch {
                        problem = error.message
                    }
                }
                if let event, problem == nil {
                    check(
                        name, true, (deactivate.sent, event),
                        wanted: "an \"event\" notification for \(subscription) named epskcModeDeactivated that matterflow run can read")
                } else {
                    fail(
                        name, sent: deactivate.sent, got: event ?? deactivate.reply,
                        wanted: "an \"event\" notification for \(subscription) named epskcModeDeactivated with value, fields and time"
                            + (problem.map { " that matterflow run can read (\($0))" } ?? ""))
                }
            }
        } else {
            skip(name, "no border router with ePSKc to cause an event with (borderRouters, activateEpskc, deactivateEpskc)")
        }
        let unsubscribe = await client.call("unsubscribe", ["subscription": .string(subscription), "structure": target], within: limit)
        check(
            "unsubscribe answers {}", result(unsubscribe.reply) != nil, unsubscribe,
            wanted: "result {}")
    }
}
