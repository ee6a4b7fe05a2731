import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// Paths inside the repository, found from this file.
enum Repository {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    static func workflow(_ name: String) -> String { root + "/Workflows/" + name + ".json" }
}

enum Payloads {
    /// The specification's example QR code: vendor 0xFFF1, product 0x8000, discriminator 3840.
    static let specQR = "MT:Y.K9042C00KA0648G00"
}

/// A temporary directory the test removes.
struct Scratch {
    let path: String

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("matterflow-journal-tests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

enum Homes {
    static let structureID = "journal-home"

    static func basic() -> HomeDescription {
        HomeDescription(
            structure: .init(id: structureID, name: "Journal Home"),
            rooms: [Room(id: "room-kitchen", name: "Kitchen")], seed: 7)
    }
}

/// A journaled commission-device run on a hub, to its end.
func journaledCommission(
    journal: RunJournal, hub: SimulatedHub, clock: any WorkflowClock, runID: String = "run-000000000001",
    room: String = "Kitchen", observer: (@Sendable (RunEvent) -> Void)? = nil
) async throws -> RunResult {
    let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
    let inputs: JSONObject = [
        "onboardingPayload": .string(Payloads.specQR), "deviceName": "Lamp", "roomName": .string(room),
    ]
    let hold = ClockHold(clock)
    defer { hold.release() }
    return try await journal.run(
        workflow, inputs: inputs, on: hub,
        options: RunOptions(structureID: Homes.structureID, clock: clock, runID: runID, observer: observer))
}

/// Keeps the records of a journal file up to and including `sequence` (as if the process had died right after
/// writing it), optionally followed by some extra bytes.
func cut(_ path: String, after sequence: Int, appending extra: [UInt8] = []) throws {
    let bytes = try JournalFile.readAll(path)
    let contents = try JournalReader.decode(bytes, path: path)
    let end = contents.records.first { $0.sequence == sequence + 1 }?.offset ?? bytes.count
    try Data(bytes.prefix(end) + extra).write(to: URL(fileURLWithPath: path))
}

/// The records of a type.
extension JournalContents {
    func records(_ type: String) -> [JournalRecord] { records.filter { $0.type == type } }
}

/// Raw members of a record as the file holds them, for tests that check the on-disk format itself.
extension JournalRecord {
    func string(_ member: String) -> String? { payload[member]?.stringValue }
    /// The `key` member of an intent, outcome, late result or resolution.
    var key: String? { string("key") }
}

/// Replaces the payload of record `sequence` in a journal file, framed again (length and checksum), as a journal
/// another writer damaged but whose frames are intact.
func rewrite(_ path: String, record sequence: Int, _ change: (JSONObject) -> JSONObject) throws {
    let read = try JournalReader.read(path: path)
    var bytes = Array(JournalFrame.header.utf8)
    for record in read.records {
        bytes += JournalFrame.encode(record.sequence == sequence ? change(record.payload) : record.payload)
    }
    try Data(bytes).write(to: URL(fileURLWithPath: path))
}

/// Writes `files` (name, text) into a new scratch directory and runs `workflow`, one of them, journaled there to its
/// end: on the basic home kept in the scratch's `state` directory, on a virtual clock whose delays pass while nothing
/// else holds it. Returns the scratch, the run's result and its journal's path.
func journaledRun(
    of workflow: String, files: [(name: String, text: String)], runID: String
) async throws -> (scratch: Scratch, result: RunResult, journalPath: String) {
    let scratch = try Scratch()
    for file in files { try Data(file.text.utf8).write(to: URL(fileURLWithPath: scratch.file(file.name))) }
    let clock = VirtualClock()
    let hub = try SimulatedHub(stateStore: try HomeStateStore(directory: scratch.file("state"), startingFrom: Homes.basic()), clock: clock)
    let journal = try RunJournal(directory: scratch.file("journal"))
    let handle = try journal.start(
        try WorkflowEngine().load(path: scratch.file(workflow)), on: hub,
        options: RunOptions(structureID: Homes.structureID, clock: clock, runID: runID))
    let result = await handle.result
    return (scratch, result, journal.path(of: runID))
}

/// Recovers, resuming, the one run of the journal in `scratch`'s `journal` directory against the simulated home kept
/// in its `state` directory (starting from `home` when none is kept), on a virtual clock of its own.
func resumeOnlyRun(in scratch: Scratch, home: HomeDescription = Homes.basic()) async throws -> RunRecovery {
    let clock = VirtualClock()
    let hub = try SimulatedHub(stateStore: try HomeStateStore(directory: scratch.file("state"), startingFrom: home), clock: clock)
    return try #require(
        try await RunJournal(directory: scratch.file("journal")).recover(on: hub, options: RecoveryOptions(resume: true, clock: clock)).runs.first)
}
