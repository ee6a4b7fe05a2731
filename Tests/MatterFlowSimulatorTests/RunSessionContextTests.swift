import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// A run without a journal still carries its ``HubCallContext``: when its session ends and another client opens a
/// new one while the run is after commissioning, the run acts no further in the other client's session.
@Suite("run session context")
struct RunSessionContextTests {
    static let otherClient = "run-other-client"
    static let inputs: JSONObject = ["onboardingPayload": .string(Payloads.specQR), "deviceName": "Lamp", "roomName": "Kitchen"]

    static func commissionDevice() throws -> Workflow {
        try WorkflowEngine().load(path: BorderRouterWorkflowRunTests.workflowPath("commission-device"))
    }

    @Test("a run whose session is taken over after commissioning neither configures nor completes in the new one")
    func takeoverAfterCommissioning() async throws {
        let clock = VirtualClock()
        let simulated = try SimulatedHub(home: TestHomes.basic(), clock: clock)
        let hub = SessionTakeoverHub(simulated)
        let devicesBefore = try await simulated.snapshot(structure: TestHomes.structureID).devices.map(\.id)
        let result = try await WorkflowEngine().run(
            try Self.commissionDevice(), inputs: Self.inputs, on: hub,
            options: RunOptions(structureID: TestHomes.structureID, clock: clock))
        let foreign = try #require(hub.foreignSession, "the device was never commissioned")

        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .noActiveSession, "\(String(describing: result.error))")
        #expect(result.error?.message.contains(foreign) == true, "\(String(describing: result.error))")
        let session = try #require(
            try await simulated.activeSession(structure: TestHomes.structureID), "the other client's session was released")
        #expect(session.sessionID == foreign)
        #expect(session.owner == Self.otherClient)
        #expect(session.phase == .prepared, "the run went on inside the other client's session")
        #expect(session.pendingDeviceIDs == [])
        let devicesAfter = try await simulated.snapshot(structure: TestHomes.structureID).devices.map(\.id)
        #expect(devicesAfter == devicesBefore, "the run completed in the other client's session")

        // Every call carried the run's context: its ID, keys numbering its calls, and the run's own session for
        // the calls made inside it.
        let calls = hub.calls
        #expect(calls.map(\.context?.runID) == Array(repeating: result.runID, count: calls.count))
        #expect(calls.map(\.context?.idempotencyKey) == calls.indices.map { "\(result.runID)/\($0 + 1)" })
        let prepared = try #require(calls.firstIndex { $0.operation == "prepareCommissioning" })
        #expect(calls[prepared].context?.expectedSessionID == nil)
        let own = try #require(hub.ownSession)
        let inSession: Set = ["createAddDeviceRequest", "commissionDevice", "configureDevice", "completeCommissioning", "cancelCommissioning"]
        for call in calls[(prepared + 1)...] {
            #expect(call.context?.expectedSessionID == (inSession.contains(call.operation) ? own : nil), "\(call.operation)")
        }
        #expect(calls.contains { $0.operation == "cancelCommissioning" }, "the run's error path released nothing")
    }

    @Test("a context set around the run by an outer layer is left as it is")
    func outerContextKept() async throws {
        let clock = VirtualClock()
        let simulated = try SimulatedHub(home: TestHomes.basic(), clock: clock)
        let hub = SessionTakeoverHub(simulated, takeOver: false)
        let outer = HubCallContext(runID: "outer", idempotencyKey: "outer/7", expectedSessionID: nil)
        let result = try await HubCallContext.$current.withValue(outer) {
            try await WorkflowEngine().run(
                try Self.commissionDevice(), inputs: Self.inputs, on: hub,
                options: RunOptions(structureID: TestHomes.structureID, clock: clock))
        }
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(!hub.calls.isEmpty)
        #expect(hub.calls.allSatisfy { $0.context == outer })
    }
}

/// A simulated hub that records the context of each call and, unless told not to, as soon as the run's device is
/// commissioned releases the run's session and lets another client prepare a new one (as if the run's lease had
/// run out meanwhile).
final class SessionTakeoverHub: RecoverableHub {
    struct Call: Sendable {
        var operation: String
        var context: HubCallContext?
    }

    private struct State {
        var calls: [Call] = []
        var own: String?
        var foreign: String?
    }

    let hub: SimulatedHub
    let takeOver: Bool
    private let state = Mutex(State())

    init(_ hub: SimulatedHub, takeOver: Bool = true) {
        self.hub = hub
        self.takeOver = takeOver
    }

    /// The hub calls made, in order, with the context each carried.
    var calls: [Call] { state.withLock { $0.calls } }
    /// The session the run prepared.
    var ownSession: String? { state.withLock { $0.own } }
    /// The other client's session, once it took over.
    var foreignSession: String? { state.withLock { $0.foreign } }

    private func record(_ operation: String) {
        let context = HubCallContext.current
        state.withLock { $0.calls.append(Call(operation: operation, context: context)) }
    }

    func status(structure: StructureID) async throws -> HubStatus { try await hub.status(structure: structure) }
    func prepareCommissioning(structure: StructureID) async throws -> String {
        record("prepareCommissioning")
        let session = try await hub.prepareCommissioning(structure: structure)
        state.withLock { $0.own = session }
        return session
    }
    func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest {
        record("createAddDeviceRequest")
        return try await hub.createAddDeviceRequest(structure: structure, topology: topology)
    }
    func commissionDevice(structure: StructureID, onboardingPayload: String, commissioningID: String) async throws {
        record("commissionDevice")
        try await hub.commissionDevice(structure: structure, onboardingPayload: onboardingPayload, commissioningID: commissioningID)
        guard takeOver else { return }
        let other = RunSessionContextTests.otherClient
        let session = try await HubCallContext.$current.withValue(nil) {
            _ = try await hub.cancelCommissioning(structure: structure)
            return try await HubCallContext.$current.withValue(HubCallContext(runID: other, idempotencyKey: other + "/1")) {
                try await hub.prepareCommissioning(structure: structure)
            }
        }
        state.withLock { $0.foreign = session }
    }
    func fetchRooms(structure: StructureID) async throws -> [Room] {
        record("fetchRooms")
        return try await hub.fetchRooms(structure: structure)
    }
    func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        record("configureDevice")
        try await hub.configureDevice(structure: structure, name: name, roomName: roomName)
    }
    func completeCommissioning(structure: StructureID) async throws -> [String] {
        record("completeCommissioning")
        return try await hub.completeCommissioning(structure: structure)
    }
    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        record("cancelCommissioning")
        return try await hub.cancelCommissioning(structure: structure)
    }
    func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation {
        record("basicInformation")
        return try await hub.basicInformation(structure: structure, deviceID: deviceID)
    }
    func activeSession(structure: StructureID) async throws -> HubSessionInfo? { try await hub.activeSession(structure: structure) }
}
