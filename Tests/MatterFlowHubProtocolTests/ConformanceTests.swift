import MatterFlow
import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// The conformance suite (`matterflow hub check`): the simulator behind ``HubServer`` passes it, and a hub that
/// breaks the contract fails it with a message saying what was sent, what came back and what was wanted.
@Suite struct ConformanceTests {
    static func serve(_ hub: any Hub, operations: [String]? = nil, events: Bool = true, structure: StructureID) -> MemoryLineChannel {
        let (clientEnd, serverEnd) = MemoryLineChannel.pair()
        _ = HubServer(
            hub: hub, channel: serverEnd,
            identity: .init(name: "under-test", version: "1", operations: operations, events: events, structures: [structure]))
        return clientEnd
    }

    /// The suite with limits for a loaded machine: the hub under test shares the test process's threads.
    static let conformance = HubConformance(answerLimit: .seconds(60), cancellationLimit: .seconds(60))

    @Test func theSimulatorPassesEveryCheckIncludingEvents() async throws {
        let home = try HomeDescription.load(path: Repository.examples + "/border-router-home.json")
        let simulated = try SimulatedHub(home: home, clock: SystemClock())
        let checks = await Self.conformance.run(on: Self.serve(simulated, structure: home.structure.id))
        // The simulator lists every method, so the check of an unlisted one has nothing to test.
        for check in checks where check.verdict != .passed && !check.name.contains("not in operations") {
            Issue.record("\(check.verdict): \(check.name)\n\(check.detail)")
        }
        #expect(checks.count >= 13)
        #expect(checks.contains { $0.name.contains("event notification") && $0.verdict == .passed })
        // The suite leaves no session open.
        #expect(try await simulated.snapshot(structure: home.structure.id).activeSession == nil)
    }

    @Test("a hub that writes a line that is not JSON (a banner, a log line) fails the suite, the line quoted")
    func aBannerOnTheOutputFails() async throws {
        let home = HomeDescription.defaultHome
        let (clientEnd, serverEnd) = MemoryLineChannel.pair()
        try serverEnd.send("my-hub starting up...")
        _ = HubServer(
            hub: try SimulatedHub(home: home, clock: SystemClock()), channel: serverEnd,
            identity: .init(name: "under-test", version: "1", operations: nil, events: false, structures: [home.structure.id]))
        let checks = await Self.conformance.run(on: clientEnd)
        let failed = checks.filter { $0.verdict == .failed }
        #expect(failed.map(\.name) == ["every line the hub sends is a JSON object (logs go to standard error)"], "\(checks)")
        #expect(failed.first?.detail.contains("got: my-hub starting up...") == true, "\(String(describing: failed.first?.detail))")
    }

    @Test func aHubThatOpensASecondSessionFailsTheSessionCheck() async throws {
        let home = HomeDescription.defaultHome
        let broken = MisbehavingPrepare(inner: try SimulatedHub(home: home, clock: SystemClock())) { inner, structure in
            if try await inner.status(structure: structure).activeSession { return "second-session" }
            return try await inner.prepareCommissioning(structure: structure)
        }
        let checks = await Self.conformance.run(
            on: Self.serve(broken, operations: HubMethod.commissioning.filter { $0 != "activeSession" }, events: false, structure: home.structure.id))
        let failed = checks.filter { $0.verdict == .failed }
        #expect(failed.map(\.name) == ["one session per structure: a second prepareCommissioning fails with sessionBusy"])
        let detail = try #require(failed.first?.detail)
        #expect(detail.contains(#"sent: {"jsonrpc":"2.0","id":"#) && detail.contains(#""method":"prepareCommissioning""#))
        #expect(detail.contains(#"got: {"jsonrpc":"2.0","id":"#) && detail.contains(#""result":{"sessionID":"second-session"}"#))
        #expect(detail.contains(#"wanted: an error with data {"code": "failedPrecondition", "cause": "sessionBusy"}"#))
        #expect(checks.contains { $0.verdict == .skipped && $0.name.contains("events") })
    }

    @Test("a hub whose status names the holder in a shape MatterFlow cannot read fails the check that reads it, naming the member")
    func aHolderOfTheWrongShapeFails() async throws {
        let home = HomeDescription.defaultHome
        // The simulator behind a relay that turns the holder of every status with a session open into a string.
        let (clientEnd, relayEnd) = MemoryLineChannel.pair()
        let (relayToHub, hubEnd) = MemoryLineChannel.pair()
        _ = HubServer(
            hub: try SimulatedHub(home: home, clock: SystemClock()), channel: hubEnd,
            identity: .init(name: "under-test", version: "1", operations: nil, events: false, structures: [home.structure.id]))
        relayEnd.start { event in
            switch event {
            case .line(let line): try? relayToHub.send(line)
            case .malformed, .closed: relayToHub.close()
            }
        }
        relayToHub.start { event in
            switch event {
            case .line(let line):
                guard var message = (try? JSONDocument.parse(line, file: "line"))?.value.objectValue, var result = message["result"]?.objectValue,
                    result["holder"] != nil
                else {
                    try? relayEnd.send(line)
                    return
                }
                result["holder"] = "run-1"
                message["result"] = .object(result)
                try? relayEnd.send(JSONWriter.compact(.object(message)))
            case .malformed, .closed: relayEnd.close()
            }
        }
        let checks = await Self.conformance.run(on: clientEnd)
        let failed = checks.filter { $0.verdict == .failed }
        #expect(failed.map(\.name) == ["status with a session open has the shape MatterFlow reads, its holder included when sent"], "\(checks)")
        #expect(failed.first?.detail.contains(#"member "holder" must be an object or null; got string"#) == true, "\(String(describing: failed.first?.detail))")
    }

    @Test func aPrepareThatFailsAfterOpeningASessionLeavesNoSessionOpen() async throws {
        let home = HomeDescription.defaultHome
        let simulated = try SimulatedHub(home: home, clock: SystemClock())
        let broken = MisbehavingPrepare(inner: simulated) { inner, structure in
            _ = try await inner.prepareCommissioning(structure: structure)
            throw FlowError(.hubFailure, "the answer was lost")
        }
        let checks = await Self.conformance.run(
            on: Self.serve(broken, operations: HubMethod.commissioning.filter { $0 != "activeSession" }, events: false, structure: home.structure.id))
        #expect(checks.contains { $0.verdict == .failed && $0.name.hasPrefix("one session per structure") })
        #expect(try await simulated.snapshot(structure: home.structure.id).activeSession == nil, "the check released what the hub opened")
    }

    @Test func anActivationThatFailsAfterActivatingLeavesNoKeyActive() async throws {
        let home = try HomeDescription.load(path: Repository.examples + "/border-router-home.json")
        let simulated = try SimulatedHub(home: home, clock: SystemClock())
        let broken = LostEpskcAnswer(base: simulated)
        let checks = await Self.conformance.run(on: Self.serve(broken, structure: home.structure.id))
        #expect(checks.contains { $0.verdict == .failed && $0.name.contains("event notification") })
        let activated = broken.activated.value
        #expect(!activated.isEmpty, "the check activated a key on a border router")
        for deviceID in activated {
            // A key left active would make this fail with epskcAlreadyActive.
            _ = try await simulated.activateEpskc(structure: home.structure.id, deviceID: deviceID, requestedDurationSeconds: nil)
        }
    }
}

/// A hub whose events carry a time past the year 3000, which `matterflow run` refuses.
struct FarFutureEvents: ForwardingHub {
    let base: any Hub

    func subscribe(structure: StructureID, _ handler: @escaping @Sendable (HubEvent) -> Void) async -> any HubEventSubscription {
        await base.subscribe(structure: structure) { event in
            var late = event
            late.time = .seconds(40_000_000_000)
            handler(late)
        }
    }
}

extension ConformanceTests {
    @Test("an event whose time run refuses fails the event check, naming the member, as run would read it")
    func anEventRunCannotReadFailsTheEventCheck() async throws {
        let home = try HomeDescription.load(path: Repository.examples + "/border-router-home.json")
        let simulated = try SimulatedHub(home: home, clock: SystemClock())
        let checks = await Self.conformance.run(on: Self.serve(FarFutureEvents(base: simulated), structure: home.structure.id))
        let check = try #require(checks.first { $0.name.contains("event notification") })
        #expect(check.verdict == .failed, "\(check.detail)")
        #expect(check.detail.contains(#"that matterflow run can read (an event from the hub: member "time" must be a number of seconds in 0"#), "\(check.detail)")
    }
}

/// A hub whose `activateEpskc` activates the key and then loses the answer.
struct LostEpskcAnswer: ForwardingHub {
    let base: any Hub
    let activated = LockedList()

    func activateEpskc(structure: StructureID, deviceID: String, requestedDurationSeconds: Int?) async throws -> EpskcActivation {
        _ = try await base.activateEpskc(structure: structure, deviceID: deviceID, requestedDurationSeconds: requestedDurationSeconds)
        activated.append(deviceID)
        throw FlowError(.hubFailure, "the answer was lost")
    }
}

/// Device IDs, appended from any task.
final class LockedList: Sendable {
    private let list = Mutex<[String]>([])
    var value: [String] { list.withLock { $0 } }
    func append(_ item: String) { list.withLock { $0.append(item) } }
}

/// The simulator with a prepare of the test's own, breaking the contract as the test needs.
struct MisbehavingPrepare: Hub {
    let inner: SimulatedHub
    let prepare: @Sendable (SimulatedHub, StructureID) async throws -> String

    func status(structure: StructureID) async throws -> HubStatus { try await inner.status(structure: structure) }

    func prepareCommissioning(structure: StructureID) async throws -> String {
        try await prepare(inner, structure)
    }

    func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest {
        try await inner.createAddDeviceRequest(structure: structure, topology: topology)
    }

    func commissionDevice(structure: StructureID, onboardingPayload: String, commissioningID: String) async throws {
        try await inner.commissionDevice(structure: structure, onboardingPayload: onboardingPayload, commissioningID: commissioningID)
    }

    func fetchRooms(structure: StructureID) async throws -> [Room] { try await inner.fetchRooms(structure: structure) }

    func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        try await inner.configureDevice(structure: structure, name: name, roomName: roomName)
    }

    func completeCommissioning(structure: StructureID) async throws -> [String] {
        try await inner.completeCommissioning(structure: structure)
    }

    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        try await inner.cancelCommissioning(structure: structure)
    }

    func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation {
        try await inner.basicInformation(structure: structure, deviceID: deviceID)
    }
}

/// Hubs that answer what was not asked, or in shapes MatterFlow cannot read: `hub check` names the line.
@Suite struct StrayAnswerConformanceTests {
    static let quick = HubConformance(structure: "home", answerLimit: .milliseconds(300), cancellationLimit: .milliseconds(300))

    @Test("an answer with an id never sent fails its own check, and the check that waited names the line")
    func anAnswerWithAnotherIDIsNamed() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        _ = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message, operations: ["status"]) { return }
            guard let id = message["id"]?.intValue else { return }
            peer.send(["jsonrpc": "2.0", "id": .int(id + 1000), "result": ["online": true]])
        }
        let checks = await Self.quick.run(on: clientEnd)
        let stray = try #require(checks.first { $0.name.hasPrefix("the hub answers each request once") })
        #expect(stray.verdict == .failed)
        #expect(stray.detail.contains("a response to id 1001, which was never sent"), "\(stray.detail)")
        let waited = try #require(checks.first { $0.verdict == .failed && $0.name.hasPrefix("a request before initialize") })
        #expect(waited.detail.contains(#"the hub's last line was {"jsonrpc":"2.0","id":1001"#), "\(waited.detail)")
    }

    @Test("an answer sent twice fails the check that each request is answered once")
    func aSecondAnswerIsNamed() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        _ = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message, operations: ["status"]) { return }
            guard let id = message["id"] else { return }
            let answer: JSONValue = ["jsonrpc": "2.0", "id": id, "result": ["online": true, "reachable": true, "permissionGranted": true, "activeSession": false]]
            peer.send(answer)
            peer.send(answer)
        }
        let checks = await Self.quick.run(on: clientEnd)
        let once = try #require(checks.first { $0.name.hasPrefix("the hub answers each request once") })
        #expect(once.verdict == .failed)
        #expect(once.detail.contains("a second response to id 1"), "\(once.detail)")
    }

    @Test("an answer giving a key twice fails the line check, naming the key: run would end the connection there")
    func aRepeatedKeyIsNamed() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        _ = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message, operations: ["status"]) { return }
            guard let id = message["id"]?.intValue else { return }
            peer.sendRaw(#"{"jsonrpc":"2.0","id":\#(id),"result":{"online":true,"reachable":true,"permissionGranted":true,"activeSession":false,"online":false}}"#)
        }
        let checks = await Self.quick.run(on: clientEnd)
        let lines = try #require(checks.first { $0.name.hasPrefix("every line the hub sends is a JSON object") })
        #expect(lines.verdict == .failed)
        #expect(lines.detail.contains(#"this gives "online" twice, at /result/online"#), "\(lines.detail)")
        // The check that reads the status fails too, whichever value it would have read.
        let reading = checks.filter { $0.verdict == .failed && $0.name != lines.name && $0.detail.contains(#"gives "online" twice, at /result/online"#) }
        #expect(!reading.isEmpty, "\(checks)")
        #expect(!checks.contains { $0.verdict == .passed && $0.name.contains("status") }, "\(checks)")
    }

    @Test("a check that passes on what an answer says fails when that answer gives a key twice: which value was read says nothing")
    func aRepeatedKeyFailsTheCheckThatReadsIt() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        _ = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message, operations: ["status"] + HubMethod.events, events: true) { return }
            guard let id = message["id"]?.intValue else { return }
            switch message["method"]?.stringValue {
            case "subscribe":
                peer.sendRaw(#"{"jsonrpc":"2.0","id":\#(id),"result":{"subscription":"s-1","subscription":"s-2"}}"#)
            case "status":
                peer.send(["jsonrpc": "2.0", "id": .int(id), "result": ["online": true, "reachable": true, "permissionGranted": true, "activeSession": false]])
            default:
                peer.send(["jsonrpc": "2.0", "id": .int(id), "result": [:]])
            }
        }
        let checks = await Self.quick.run(on: clientEnd)
        let subscribe = try #require(checks.first { $0.name == "subscribe returns a subscription" }, "\(checks.map { "\($0.name): \($0.verdict)" })")
        #expect(subscribe.verdict == .failed, "\(subscribe)")
        #expect(subscribe.detail.contains(#"gives "subscription" twice, at /result/subscription"#), "\(subscribe.detail)")
    }

    @Test("a hub that closes the connection fails once, saying so, instead of every later check reporting silence")
    func aClosedConnectionIsReportedOnce() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        _ = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message, operations: ["status"]) { return }
            guard let id = message["id"] else { return }
            if message["method"]?.stringValue == "cancelCommissioning" {
                hubEnd.close()
                return
            }
            peer.send(["jsonrpc": "2.0", "id": id, "result": ["online": true, "reachable": true, "permissionGranted": true, "activeSession": false]])
        }
        let checks = await Self.quick.run(on: clientEnd)
        let closed = checks.filter { $0.name == "the hub keeps the connection open while checks run" }
        #expect(closed.count == 1, "\(checks.map(\.name))")
        #expect(closed.first?.detail.contains("the checks after this one were not run") == true)
        #expect(!checks.contains { $0.name.hasPrefix("one session per structure") }, "not run after the close")
    }

    @Test("a hub that closes the connection at once fails the first check, saying so rather than that it waited, and no check after it runs")
    func aHubThatClosesAtOnceStopsTheChecks() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        hubEnd.close()
        let checks = await Self.quick.run(on: clientEnd)
        #expect(checks.map(\.verdict) == [.failed, .failed, .passed, .passed], "\(checks.map(\.name))")
        #expect(checks.first?.name == "a request before initialize is refused with -32002")
        #expect(checks.first?.detail.contains("got: nothing: ") == true, "\(checks.first?.detail ?? "")")
        #expect(checks.first?.detail.contains("within") == false, "the check did not wait its limit")
        #expect(checks[1].name == "the hub keeps the connection open while checks run")
        #expect(!checks.contains { $0.name.hasPrefix("initialize") }, "not run after the close")
    }

    @Test("a result MatterFlow cannot read fails a shape check naming the member")
    func wrongShapesAreNamed() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        _ = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message, operations: ["status", "activeSession", "borderRouters"]) { return }
            guard let id = message["id"] else { return }
            let result: JSONValue = switch message["method"]?.stringValue {
            case "activeSession": ["session": ["sessionID": 5]]
            case "borderRouters": ["borderRouters": [["deviceID": "br"]]]
            default: ["online": true, "reachable": true, "permissionGranted": true, "activeSession": false]
            }
            peer.send(["jsonrpc": "2.0", "id": id, "result": result])
        }
        let checks = await Self.quick.run(on: clientEnd)
        let session = try #require(checks.first { $0.name == "activeSession's result has the shape MatterFlow reads" })
        #expect(session.verdict == .failed)
        #expect(session.detail.contains(#"member "session.sessionID" must be a string; got integer"#), "\(session.detail)")
        let routers = try #require(checks.first { $0.name == "borderRouters' result has the shape MatterFlow reads" })
        #expect(routers.verdict == .failed)
        #expect(routers.detail.contains("wanted: a result MatterFlow can read: the result: member"), "\(routers.detail)")
    }
}
