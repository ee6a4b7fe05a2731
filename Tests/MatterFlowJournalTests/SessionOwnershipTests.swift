import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// A session changed hands while a run was dead: recovery (cancel path or resume) never acts in the new session.
@Suite("session ownership")
struct SessionOwnershipTests {
    static let otherClient = "run-other-client"

    /// A run killed right after commissioning its device; then its session is released by hand (as
    /// `Workflows/cancel.json` would) and another client prepares a new one.
    static func handedOver() async throws -> (scenario: CrashScenario, foreignSession: String) {
        let outcome = try await RecoveryTests.sequence(of: JournalEntry.Kind.outcome.rawValue, "commissionDevice")
        let scenario = try await CrashScenario(position: .after, sequence: outcome)
        let other = try scenario.hub()
        #expect(try await other.cancelCommissioning(structure: Homes.structureID))
        let context = HubCallContext(runID: otherClient, idempotencyKey: otherClient + "/1")
        let session = try await HubCallContext.$current.withValue(context) {
            try await other.prepareCommissioning(structure: Homes.structureID)
        }
        return (scenario, session)
    }

    @Test("the cancel path leaves a session another client opened after the run died")
    func cancelPathLeavesForeignSession() async throws {
        let (scenario, foreign) = try await Self.handedOver()
        defer { scenario.scratch.remove() }
        let run = try #require(try await scenario.recover().runs.first)
        #expect(run.status == .cancelled)
        #expect(run.releasedSession == false)
        #expect(run.notes.contains { $0.contains("is no longer active") && $0.contains(foreign) }, "\(run.notes)")

        let session = try #require(try scenario.savedHome()?.activeSession, "the other client's session was released")
        #expect(session.sessionID == foreign)
        #expect(session.owner == Self.otherClient)
        #expect(session.phase == .prepared)
        // The workflow's own release was made for the run's session and released nothing.
        let records = try WorkflowRecoveryTests.records(scenario)
        let recovery = try #require(records.firstIndex { $0.type == JournalEntry.Kind.recoveryStarted.rawValue })
        let cancels = records[recovery...].filter {
            $0.type == JournalEntry.Kind.outcome.rawValue && $0.string("operation") == "cancelCommissioning"
        }
        #expect(!cancels.isEmpty)
        for cancel in cancels { #expect(cancel.payload["result"]?["released"] == false, "\(cancel.payload)") }
    }

    /// A wrapper around a hub, as an embedder writes one to count calls or inject faults.
    struct Wrapped: ForwardingHub {
        let base: any Hub
    }

    /// A wrapper that hides its base's sessions: a hub that cannot say whose its session is.
    struct Plain: ForwardingHub {
        let base: any Hub
        var sessionReader: (any RecoverableHub)? { nil }
    }

    @Test("recovery through a ForwardingHub reads its base's sessions: the run's session is released and reported so")
    func recoveryThroughAForwardingHub() async throws {
        let outcome = try await RecoveryTests.sequence(of: JournalEntry.Kind.outcome.rawValue, "commissionDevice")
        for plain in [false, true] {
            let scenario = try await CrashScenario(position: .after, sequence: outcome)
            defer { scenario.scratch.remove() }
            let clock = VirtualClock()
            let base = try scenario.hub(clock: clock)
            let hub: any Hub = plain ? Plain(base: base) : Wrapped(base: base)
            #expect((hub.sessionReader != nil) == !plain)
            let run = try #require(try await scenario.journal().recover(on: hub, options: RecoveryOptions(clock: clock)).runs.first)
            #expect(run.status == .cancelled, "plain \(plain)")
            #expect(run.releasedSession, "plain \(plain): \(run.notes)")
            #expect(try scenario.savedHome()?.activeSession == nil, "plain \(plain)")
            #expect(!run.notes.contains { $0.contains("is no longer active") }, "plain \(plain): \(run.notes)")
            #expect(
                run.notes.contains { $0.contains("cannot say whose, so recovery cannot tell whether it is still the run's commissioning session") } == plain,
                "plain \(plain): \(run.notes)")
        }
    }

    @Test("resume does not continue a run whose session is now another client's")
    func resumeRefusesForeignSession() async throws {
        let (scenario, foreign) = try await Self.handedOver()
        defer { scenario.scratch.remove() }
        let devicesBefore = try #require(try scenario.savedHome()).devices.map(\.id)
        let run = try #require(
            try await scenario.recover(resume: true, inputs: WorkflowRecoveryTests.payload).runs.first)
        #expect(!run.resumed)
        #expect(run.status == .cancelled)
        #expect(run.notes.contains { $0.contains("resume is not safe here") && $0.contains("no longer active") }, "\(run.notes)")

        let home = try #require(try scenario.savedHome())
        #expect(home.activeSession?.sessionID == foreign)
        #expect(home.activeSession?.phase == .prepared, "the run went on inside the other client's session")
        #expect(home.activeSession?.deviceIDs == [])
        #expect(home.devices.map(\.id) == devicesBefore)
        let records = try WorkflowRecoveryTests.records(scenario)
        #expect(!records.contains { $0.string("operation") == "completeCommissioning" })
    }

    @Test("the simulated hub refuses a call made for a session that is not the active one")
    func hubEnforcesExpectedSession() async throws {
        let hub = try SimulatedHub(home: Homes.basic(), clock: VirtualClock())
        let session = try await hub.prepareCommissioning(structure: Homes.structureID)
        let stale = HubCallContext(runID: "run-a", idempotencyKey: "run-a/2", expectedSessionID: "session-ended")
        let topology = Topology(ecosystemName: "Google Home", homes: [])
        do {
            _ = try await HubCallContext.$current.withValue(stale) {
                try await hub.createAddDeviceRequest(structure: Homes.structureID, topology: topology)
            }
            Issue.record("a request was created in another session")
        } catch {
            let flowError = FlowError.from(error)
            #expect(flowError.cause == .noActiveSession)
            #expect(flowError.message.contains("session-ended") && flowError.message.contains(session))
        }
        let released = try await HubCallContext.$current.withValue(stale) {
            try await hub.cancelCommissioning(structure: Homes.structureID)
        }
        #expect(!released)
        #expect(try await hub.activeSession(structure: Homes.structureID)?.sessionID == session)

        // Made for the active session, the same calls are served.
        let own = HubCallContext(runID: "run-a", idempotencyKey: "run-a/3", expectedSessionID: session)
        try await HubCallContext.$current.withValue(own) {
            _ = try await hub.createAddDeviceRequest(structure: Homes.structureID, topology: topology)
            #expect(try await hub.cancelCommissioning(structure: Homes.structureID))
        }
        #expect(try await hub.activeSession(structure: Homes.structureID) == nil)
    }

    @Test("a live journaled run whose session is taken over mid-run acts no further in the new session")
    func liveRunAfterTakeover() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let clock = VirtualClock()
        let simulated = try SimulatedHub(home: Homes.basic(), clock: clock)
        let hub = TakeoverHub(simulated)
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        let inputs: JSONObject = ["onboardingPayload": .string(Payloads.specQR), "deviceName": "Lamp", "roomName": "Kitchen"]
        let hold = ClockHold(clock)
        let result = try await RunJournal(directory: scratch.file("journal")).run(
            workflow, inputs: inputs, on: hub, options: RunOptions(structureID: Homes.structureID, clock: clock))
        hold.release()
        let foreign = try #require(hub.foreignSession)

        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .noActiveSession, "\(String(describing: result.error))")
        #expect(result.error?.message.contains(foreign) == true)
        let session = try #require(try await simulated.activeSession(structure: Homes.structureID), "the other client's session was released")
        #expect(session.sessionID == foreign)
        #expect(session.owner == Self.otherClient)
        #expect(session.phase == .prepared)
    }
}

/// A simulated hub on which, as soon as the run's device is commissioned, the run's session is released by hand and
/// another client prepares a new one (as if the run's lease had run out meanwhile).
final class TakeoverHub: RecoverableHub {
    let hub: SimulatedHub
    private let taken = Mutex<String?>(nil)

    init(_ hub: SimulatedHub) { self.hub = hub }

    /// The other client's session, once it took over.
    var foreignSession: String? { taken.withLock { $0 } }

    func commissionDevice(structure: StructureID, onboardingPayload: String, commissioningID: String) async throws {
        try await hub.commissionDevice(structure: structure, onboardingPayload: onboardingPayload, commissioningID: commissioningID)
        let other = SessionOwnershipTests.otherClient
        let session = try await HubCallContext.$current.withValue(nil) {
            _ = try await hub.cancelCommissioning(structure: structure)
            return try await HubCallContext.$current.withValue(HubCallContext(runID: other, idempotencyKey: other + "/1")) {
                try await hub.prepareCommissioning(structure: structure)
            }
        }
        taken.withLock { $0 = session }
    }

    func status(structure: StructureID) async throws -> HubStatus { try await hub.status(structure: structure) }
    func prepareCommissioning(structure: StructureID) async throws -> String { try await hub.prepareCommissioning(structure: structure) }
    func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest {
        try await hub.createAddDeviceRequest(structure: structure, topology: topology)
    }
    func fetchRooms(structure: StructureID) async throws -> [Room] { try await hub.fetchRooms(structure: structure) }
    func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        try await hub.configureDevice(structure: structure, name: name, roomName: roomName)
    }
    func completeCommissioning(structure: StructureID) async throws -> [String] { try await hub.completeCommissioning(structure: structure) }
    func cancelCommissioning(structure: StructureID) async throws -> Bool { try await hub.cancelCommissioning(structure: structure) }
    func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation {
        try await hub.basicInformation(structure: structure, deviceID: deviceID)
    }
    func activeSession(structure: StructureID) async throws -> HubSessionInfo? { try await hub.activeSession(structure: structure) }
}
