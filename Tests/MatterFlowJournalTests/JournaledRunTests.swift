import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// A hub that, at each call that changes something, reads the journal and notes whether the call's intent is
/// already its last record: the write-ahead property.
final class WriteAheadProbe: Hub {
    let inner: SimulatedHub
    let journalPath: String
    private let seen = Mutex<[(String, String?)]>([])

    init(_ inner: SimulatedHub, journalPath: String) {
        self.inner = inner
        self.journalPath = journalPath
    }

    /// For each changing call: its operation and the operation of the journal's last record, if it is an intent.
    var observations: [(String, String?)] { seen.withLock { $0 } }

    private func note(_ operation: String) {
        let last = (try? JournalReader.read(path: journalPath))?.records.last
        seen.withLock { $0.append((operation, last?.type == JournalEntry.Kind.intent.rawValue ? last?.string("operation") : nil)) }
    }

    func status(structure: StructureID) async throws -> HubStatus { try await inner.status(structure: structure) }
    func prepareCommissioning(structure: StructureID) async throws -> String {
        note("prepareCommissioning")
        return try await inner.prepareCommissioning(structure: structure)
    }
    func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest {
        note("createAddDeviceRequest")
        return try await inner.createAddDeviceRequest(structure: structure, topology: topology)
    }
    func commissionDevice(structure: StructureID, onboardingPayload: String, commissioningID: String) async throws {
        note("commissionDevice")
        try await inner.commissionDevice(structure: structure, onboardingPayload: onboardingPayload, commissioningID: commissioningID)
    }
    func fetchRooms(structure: StructureID) async throws -> [Room] { try await inner.fetchRooms(structure: structure) }
    func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        note("configureDevice")
        try await inner.configureDevice(structure: structure, name: name, roomName: roomName)
    }
    func completeCommissioning(structure: StructureID) async throws -> [String] {
        note("completeCommissioning")
        return try await inner.completeCommissioning(structure: structure)
    }
    func cancelCommissioning(structure: StructureID) async throws -> Bool {
        note("cancelCommissioning")
        return try await inner.cancelCommissioning(structure: structure)
    }
    func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation {
        try await inner.basicInformation(structure: structure, deviceID: deviceID)
    }
}

@Suite("journaled runs")
struct JournaledRunTests {
    @Test("every hub call's intent is on disk before the hub sees the call")
    func writeAhead() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let journal = try RunJournal(directory: scratch.path)
        let clock = VirtualClock()
        let runID = "run-0000000000aa"
        let hub = WriteAheadProbe(try SimulatedHub(home: Homes.basic(), clock: clock), journalPath: journal.path(of: runID))
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        let hold = ClockHold(clock)
        let result = try await journal.run(
            workflow, inputs: ["onboardingPayload": .string(Payloads.specQR), "deviceName": "Lamp"], on: hub,
            options: RunOptions(structureID: Homes.structureID, clock: clock, runID: runID))
        hold.release()
        #expect(result.outcome == .succeeded)
        let observations = hub.observations
        #expect(observations.map(\.0) == [
            "prepareCommissioning", "createAddDeviceRequest", "commissionDevice", "configureDevice", "completeCommissioning",
        ])
        for (operation, intent) in observations { #expect(intent == operation, "\(operation) ran before its intent was written") }
    }

    @Test("the journal holds the run: start, intents and outcomes with results, events, the end; no secret")
    func contents() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let journal = try RunJournal(directory: scratch.path)
        let clock = VirtualClock()
        let hub = try SimulatedHub(home: Homes.basic(), clock: clock)
        let result = try await journaledCommission(journal: journal, hub: hub, clock: clock)
        #expect(result.outcome == .succeeded)
        let path = journal.path(of: result.runID)
        let text = String(decoding: try JournalFile.readAll(path), as: UTF8.self)
        #expect(!text.contains(Payloads.specQR), "the onboarding payload is a secret")
        let contents = try JournalReader.read(path: path)
        #expect(contents.tornTail == nil && contents.problems.isEmpty)
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        let started = try #require(contents.records.first)
        #expect(started.type == JournalEntry.Kind.runStarted.rawValue)
        #expect(started.string("contentHash") == workflow.contentHash)
        #expect(workflow.contentHash.count == 64)
        #expect(started.payload["version"]?.intValue == 1)
        #expect(started.payload["inputs"]?["onboardingPayload"]?.stringValue == RunOptions.redacted)
        #expect(contents.records.last?.type == JournalEntry.Kind.runFinished.rawValue)
        #expect(contents.records.last?.string("outcome") == "succeeded")

        let intents = contents.records(JournalEntry.Kind.intent.rawValue)
        let outcomes = contents.records(JournalEntry.Kind.outcome.rawValue)
        #expect(intents.map(\.key) == outcomes.map(\.key))
        #expect(Set(intents.compactMap(\.key)).count == intents.count, "idempotency keys are unique")
        for (intent, outcome) in zip(intents, outcomes) { #expect(intent.sequence < outcome.sequence) }
        let commission = try #require(intents.first { $0.string("operation") == "commissionDevice" })
        #expect(commission.payload["arguments"]?["onboardingPayload"]?.stringValue == RunOptions.redacted)
        #expect(commission.string("effect") == "nonIdempotentWrite")
        let prepared = try #require(outcomes.first { $0.string("operation") == "prepareCommissioning" })
        #expect(prepared.payload["result"]?["sessionID"]?.stringValue?.hasPrefix("session-") == true)
        let devices = try #require(result.output?["deviceIDs"]?.arrayValue)
        let commissioned = try #require(outcomes.first { $0.string("operation") == "commissionDevice" })
        #expect(commissioned.payload["devices"]?.arrayValue == devices, "the devices a commission created are journaled")
        #expect(contents.records.contains { $0.type == "stateEntered" })
        #expect(contents.records.contains { $0.type == "transitionTaken" })

        let summary = try #require(try journal.runs().first)
        #expect(summary.status == .succeeded)
        #expect(summary.workflow == "commission-device")
        #expect(summary.recovered == false)
    }

    @Test("a journal write that fails mid-run cancels the run without making the torn call; the cancel path still releases the session")
    func writeFailureCancels() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let journal = try RunJournal(directory: scratch.path)
        let clock = VirtualClock()
        let hub = try SimulatedHub(home: Homes.basic(), clock: clock)
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        // Tear the intent of commissionDevice: the write fails, as on a full disk.
        let intent = try await RecoveryTests.sequence(of: JournalEntry.Kind.intent.rawValue, "commissionDevice")
        let hold = ClockHold(clock)
        let handle = try journal.start(
            workflow, inputs: ["onboardingPayload": .string(Payloads.specQR), "deviceName": "Lamp"], on: hub,
            options: RunOptions(structureID: Homes.structureID, clock: clock, runID: "run-00000000fa11"),
            testHook: { boundary in boundary.position == .before && boundary.sequence == intent ? .tear : .proceed })
        let result = await handle.result
        hold.release()
        #expect(result.outcome == .cancelled)
        // The call whose intent was torn is not made; the cancel path's release is, unrecorded.
        let calls = await hub.calls(structure: Homes.structureID).map { "\($0.operation)" }
        #expect(!calls.contains("commissionDevice"), "\(calls)")
        #expect(calls.last == "cancelCommissioning", "\(calls)")
        #expect(try await hub.activeSession(structure: Homes.structureID) == nil, "the cancel path released the session")
        let contents = try JournalReader.read(path: journal.path(of: "run-00000000fa11"))
        #expect(contents.tornTail != nil, "the failed write is visible as a torn tail")
    }

    @Test("a journal that cannot be created stops the run before it touches the hub")
    func unwritableJournal() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let journal = try RunJournal(directory: scratch.path)
        let clock = VirtualClock()
        let hub = try SimulatedHub(home: Homes.basic(), clock: clock)
        let workflow = try WorkflowEngine().load(path: Repository.workflow("prepare"))
        let options = RunOptions(structureID: Homes.structureID, clock: clock, runID: "run-000000000002")
        _ = FileManager.default.createFile(atPath: journal.path(of: "run-000000000002"), contents: Data())
        #expect(throws: JournalError.self) { _ = try journal.start(workflow, on: hub, options: options) }
        #expect(await hub.callRecords.isEmpty)
    }
}
