@testable import MatterFlow
@testable import MatterFlowHubProtocol
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// The status result's optional `holder`: read when present, none from a hub that sends none (an earlier hub), and
/// a member of the wrong type the hub's failure naming where it is, as for every other member.
@Suite struct HubStatusHolderTests {
    static let plain: JSONObject = ["online": true, "reachable": true, "permissionGranted": true, "activeSession": true]

    static func read(_ status: JSONObject) -> Result<HubStatus, FlowError> {
        Result { () throws(FlowError) in
            try HubWire.status(try WireReader(.object(status), subject: "the hub's result for status", cause: .hubFailure))
        }
    }

    static func with(holder: JSONValue) -> JSONObject {
        var status = plain
        status["holder"] = holder
        return status
    }

    @Test("a holder is read with what the hub tells of it, and written back the same")
    func present() throws {
        let full = try Self.read(Self.with(holder: [
            "sessionID": "session-7", "owner": "run-1", "commissioningID": "c-2", "openedAt": 1_700_000_000.5,
        ])).get()
        let holder = SessionHolder(sessionID: "session-7", owner: "run-1", commissioningID: "c-2", openedAt: 1_700_000_000.5)
        #expect(full.holder == holder)
        #expect(try Self.read(HubWire.json(full).objectValue ?? [:]).get() == full)
        // Members a hub does not keep are null or left out.
        let partial = try Self.read(Self.with(holder: ["sessionID": "session-7", "owner": .null, "openedAt": 1000])).get()
        #expect(partial.holder == SessionHolder(sessionID: "session-7", openedAt: 1000))
    }

    @Test("a hub that sends no holder, or null, keeps working and says nothing of it; a status without one is sent without it")
    func absent() throws {
        #expect(try Self.read(Self.plain).get() == HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: true))
        #expect(try Self.read(Self.with(holder: .null)).get().holder == nil)
        let sent = HubWire.json(HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: false))
        #expect(sent.objectValue?["holder"] == nil)
    }

    static let wrongTypes: [(JSONValue, String)] = [
        (.string("run-1"), #"member "holder" must be an object or null; got string"#),
        (["owner": 5], #"member "holder.owner" must be a string or null; got integer"#),
        (["sessionID": ["s"]], #"member "holder.sessionID" must be a string or null; got array"#),
        (["commissioningID": true], #"member "holder.commissioningID" must be a string or null; got boolean"#),
        (["openedAt": "yesterday"], #"member "holder.openedAt" must be a number in 0...32503680000 (seconds since 1970) or null; got string"#),
        (["openedAt": -1], #"member "holder.openedAt" must be a number in 0...32503680000 (seconds since 1970) or null; got integer"#),
    ]

    @Test("a holder or a member of it of the wrong type is the hub's failure naming the member", arguments: wrongTypes)
    func wrongType(holder: JSONValue, message: String) throws {
        guard case .failure(let error) = Self.read(Self.with(holder: holder)) else {
            Issue.record("\(holder) was taken")
            return
        }
        #expect(error.cause == .hubFailure)
        #expect(error.message == "the hub's result for status: " + message)
    }

    @Test("through the wire, the simulator's status names the holder and a run's guard refusal names it as a local hub's does")
    func overTheWire() async throws {
        let clock = VirtualClock()
        let simulated = try SimulatedHub(home: HomeDescription.defaultHome, clock: clock)
        let structure = HomeDescription.defaultHome.structure.id
        await simulated.setTimeOrigin(1_700_000_000)
        _ = try await HubCallContext.$current.withValue(HubCallContext(runID: "run-holder", idempotencyKey: "run-holder/1")) {
            try await simulated.prepareCommissioning(structure: structure)
        }
        let wired = try await WiredHub.connect(simulated, clock: clock, structures: [structure])
        let status = try await wired.remote.status(structure: structure)
        #expect(status.holder?.owner == "run-holder")
        #expect(status.holder?.openedAt == 1_700_000_000)
        #expect(status == (try await simulated.status(structure: structure)))

        let engine = WorkflowEngine()
        let workflow = try engine.load(path: Repository.workflows + "/prepare.json")
        let result = try await engine.run(workflow, inputs: [:], on: wired.remote.hub, options: RunOptions(structureID: structure, clock: clock))
        #expect(result.error?.cause == .sessionBusy)
        #expect(result.error?.message.contains("held by run run-holder (session ") == true, "\(String(describing: result.error))")
        #expect(result.error?.message.contains(") since 2023-11-14T22:13:20Z: let run run-holder finish") == true)
    }

    @Test("an earlier hub's status through the wire: no holder, and the refusal reads as before")
    func earlierHub() async throws {
        let (clientEnd, hubEnd) = MemoryLineChannel.pair()
        _ = ScriptedPeer(channel: hubEnd) { message, peer in
            if peer.answerInitialize(message) { return }
            guard let id = message["id"] else { return }
            peer.send(["jsonrpc": "2.0", "id": id, "result": .object(Self.plain)])
        }
        let remote = RemoteHub(channel: clientEnd, options: .init(silenceLimit: nil))
        try await remote.initialize()
        #expect(try await remote.status(structure: "home").holder == nil)
        let result = try await WorkflowEngine().run(
            try WorkflowEngine().load(path: Repository.workflows + "/prepare.json"), inputs: [:], on: remote.hub,
            options: RunOptions(structureID: "home", clock: VirtualClock()))
        #expect(result.error?.message.hasPrefix("another commissioning session is active on this structure: let the run that holds it finish") == true)
    }
}
