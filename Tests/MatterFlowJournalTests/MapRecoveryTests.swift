import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// A journaled commission-bridge run that stops inside its map state (reading the bridge's devices): recovery
/// settles the element's in-doubt call like any call, a resumed run goes on with the element that was running and
/// never reads again a device whose element had ended, and a cancelled recovery takes the cancel path.
@Suite("recovery inside a map state")
struct MapRecoveryTests {
    static let runID = "run-0000000b41d6"
    /// Vendor 0xFFF4, product 0x4242: a bridge in ``home()``, bringing two devices.
    static let bridgeQR = "MT:O6PS0C1K01HWUR1VJ00"
    static let inputs: JSONObject = ["onboardingPayload": .string(bridgeQR)]

    static func home() -> HomeDescription {
        var home = Homes.basic()
        home.simulation = .init(bridges: [.init(vendorID: 0xFFF4, productID: 0x4242, bridgedDevices: 2)])
        return home
    }

    /// A run whose journal ends right after record `sequence`, with the home as it was then.
    struct Interrupted {
        let scratch: Scratch
        var journal: String { scratch.file("journal") }
        var state: String { scratch.file("state") }

        init(after sequence: Int) async throws {
            scratch = try Scratch()
            let state = scratch.file("state")
            let saved = scratch.file("home-at-crash.json")
            let homePath = state + "/" + HomeStateStore.fileName
            let hook: JournalTestHook = { boundary in
                if boundary.position == .after, boundary.sequence == sequence {
                    try? FileManager.default.removeItem(atPath: saved)
                    try? FileManager.default.copyItem(atPath: homePath, toPath: saved)
                }
                return .proceed
            }
            let clock = VirtualClock()
            let hub = try SimulatedHub(stateStore: try HomeStateStore(directory: state, startingFrom: MapRecoveryTests.home()), clock: clock)
            let journal = try RunJournal(directory: scratch.file("journal"))
            clock.beginActivity()
            let handle = try journal.start(
                try WorkflowEngine().load(path: Repository.workflow("commission-bridge")), inputs: MapRecoveryTests.inputs, on: hub,
                options: RunOptions(structureID: Homes.structureID, clock: clock, runID: MapRecoveryTests.runID), testHook: hook)
            let result = await handle.result
            clock.endActivity()
            #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
            try cut(journal.path(of: MapRecoveryTests.runID), after: sequence)
            try? FileManager.default.removeItem(atPath: homePath)
            if FileManager.default.fileExists(atPath: saved) { try FileManager.default.copyItem(atPath: saved, toPath: homePath) }
        }

        func records() throws -> [JournalRecord] {
            try JournalReader.read(path: try RunJournal(directory: journal).path(of: MapRecoveryTests.runID)).records
        }

        func recover(resume: Bool) async throws -> RecoveryReport {
            let clock = VirtualClock()
            let hub = try SimulatedHub(stateStore: try HomeStateStore(directory: state, startingFrom: MapRecoveryTests.home()), clock: clock)
            return try await RunJournal(directory: journal).recover(
                on: hub, options: RecoveryOptions(resume: resume, inputs: resume ? MapRecoveryTests.inputs : [:], clock: clock))
        }
    }

    static func reads(_ records: [JournalRecord]) -> [JournalRecord] {
        records.filter { $0.type == JournalEntry.Kind.intent.rawValue && $0.string("operation") == "readBasicInformation" }
    }

    /// The sequence of the intent of the second element's read, found from a run that is not interrupted.
    static func secondReadIntent() async throws -> Int {
        let whole = try await Interrupted(after: 1_000_000)
        defer { whole.scratch.remove() }
        let records = try whole.records()
        let reads = Self.reads(records)
        #expect(reads.count == 3)
        // Each element's checkpoint on the map state records its index and the results before it.
        let progress = records.filter { $0.type == "checkpoint" && $0.string("state") == "readDevices" }.compactMap { $0.payload["map"]?["index"]?.intValue }
        #expect(progress == [0, 1, 2], "\(progress)")
        return try #require(reads.dropFirst().first).sequence
    }

    @Test("a resumed run settles the in-doubt read and does not read the first device again")
    func resumeInsideTheMap() async throws {
        let sequence = try await Self.secondReadIntent()
        let interrupted = try await Interrupted(after: sequence)
        defer { interrupted.scratch.remove() }
        let before = Self.reads(try interrupted.records()).map { $0.payload["arguments"]?["deviceID"] }
        #expect(before.count == 2)
        let report = try await interrupted.recover(resume: true)
        let run = try #require(report.runs.first)
        #expect(run.status == .succeeded, "\(run.notes)")
        let records = try interrupted.records()
        let after = Self.reads(records).map { $0.payload["arguments"]?["deviceID"] }
        // The second element's read is made again (it was in doubt), then the third; never the first.
        #expect(after.count == 4, "\(after)")
        #expect(after.filter { $0 == before[0] }.count == 1, "the first device is read once: \(after)")
        #expect(Array(after.prefix(2)) == before)
        #expect(after[2] == before[1])
        let finished = try #require(records.last { $0.type == JournalEntry.Kind.runFinished.rawValue })
        let devices = try #require(finished.payload["output"]?["devices"]?.arrayValue)
        #expect(devices.map { $0["index"] } == [.int(0), .int(1), .int(2)])
        #expect(devices.allSatisfy { $0["status"] == "succeeded" })
        #expect(devices[0]["item"] == before[0])
    }

    @Test("recovering without resume takes the cancel path from inside the map; the completed session stays completed")
    func cancelInsideTheMap() async throws {
        let sequence = try await Self.secondReadIntent()
        let interrupted = try await Interrupted(after: sequence)
        defer { interrupted.scratch.remove() }
        let report = try await interrupted.recover(resume: false)
        let run = try #require(report.runs.first)
        #expect(run.status == .cancelled, "\(run.notes)")
        let records = try interrupted.records()
        #expect(Self.reads(records).count == 2, "nothing is read again on the cancel path")
        let home = try #require(try HomeStateStore.loadSaved(directory: interrupted.state))
        #expect(home.activeSession == nil)
        #expect(home.devices.count == 3, "the bridge and its two devices stay commissioned")
    }
}
