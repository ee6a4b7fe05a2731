import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// A journaled commission-bridge run that stops inside its map state, which reads the bridge's devices up to four
/// at once: recovery settles each running element's in-doubt call like any call, a resumed run continues the
/// elements that were running (each from its own checkpoints) and never reads again a device whose element had
/// ended, and a cancelled recovery takes the cancel path; the same whether recovery awaits the run or puts it into a
/// pool.
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

    /// A whole journaled run, whose journal a test then cuts where it stopped. The map only reads, so the home as
    /// the whole run left it is the home at any point inside the map.
    struct Journaled {
        let scratch: Scratch
        var journal: String { scratch.file("journal") }
        var state: String { scratch.file("state") }

        init() async throws {
            scratch = try Scratch()
            let clock = VirtualClock()
            let hub = try SimulatedHub(
                stateStore: try HomeStateStore(directory: scratch.file("state"), startingFrom: MapRecoveryTests.home()), clock: clock)
            let journal = try RunJournal(directory: scratch.file("journal"))
            let hold = ClockHold(clock)
            let handle = try journal.start(
                try WorkflowEngine().load(path: Repository.workflow("commission-bridge")), inputs: MapRecoveryTests.inputs, on: hub,
                options: RunOptions(structureID: Homes.structureID, clock: clock, runID: MapRecoveryTests.runID))
            let result = await handle.result
            hold.release()
            #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        }

        func records() throws -> [JournalRecord] {
            try JournalReader.read(path: try RunJournal(directory: journal).path(of: MapRecoveryTests.runID)).records
        }

        /// Cuts the journal after the first record `where` picks (as if the process had died there).
        func cut(where pick: ([JournalRecord], JournalRecord) -> Bool) throws -> Int {
            let records = try records()
            let record = try #require(records.first { pick(records, $0) })
            try MatterFlowJournalTests.cut(try RunJournal(directory: journal).path(of: MapRecoveryTests.runID), after: record.sequence)
            return record.sequence
        }

        /// Recovers the run, awaited (`recover(on:)`) or put into a pool (`recover(into:)`, then awaited there), and
        /// returns what recovery did once the run has ended.
        func recover(resume: Bool, intoPool: Bool) async throws -> RunRecovery {
            let clock = VirtualClock()
            let hub = try SimulatedHub(stateStore: try HomeStateStore(directory: state, startingFrom: MapRecoveryTests.home()), clock: clock)
            let options = RecoveryOptions(resume: resume, inputs: resume ? MapRecoveryTests.inputs : [:], clock: clock)
            guard intoPool else { return try #require(try await RunJournal(directory: journal).recover(on: hub, options: options).runs.first) }
            let pool = RunPool(hub: hub, clock: clock)
            let settled = Mutex<RunRecovery?>(nil)
            let report = try await RunJournal(directory: journal).recover(into: pool, options: options) { run in
                settled.withLock { $0 = run }
            }
            let handedOver = try #require(report.runs.first)
            // A run recovery settles at once (a completed commissioning, not resumed) never enters the pool.
            guard handedOver.action == .continuing else { return handedOver }
            _ = await pool.result(of: try #require(handedOver.pooled))
            return try #require(settled.withLock { $0 })
        }
    }

    static func reads(_ records: [JournalRecord]) -> [JournalRecord] {
        records.filter { $0.type == JournalEntry.Kind.intent.rawValue && $0.string("operation") == "readBasicInformation" }
    }

    static func readOutcomes(_ records: [JournalRecord]) -> [JournalRecord] {
        records.filter { $0.type == JournalEntry.Kind.outcome.rawValue && $0.string("operation") == "readBasicInformation" }
    }

    /// The map's checkpoints (not its elements'), as written: each lists only the results new since the one before.
    static func mapCheckpoints(_ records: [JournalRecord]) -> [(sequence: Int, map: MapCheckpoint)] {
        records.compactMap { record in
            guard record.type == "checkpoint", record.string("state") == "readDevices", record.payload["element"] == nil,
                let json = record.payload["map"], let map = MapCheckpoint(json: json)
            else { return nil }
            return (record.sequence, map)
        }
    }

    /// The map's progress at each of its checkpoints, folded as recovery reads it: the results kept and the
    /// elements running.
    static func progressions(_ records: [JournalRecord]) -> [(sequence: Int, results: [JSONValue], running: [Int])] {
        var folded: [(sequence: Int, results: [JSONValue], running: [Int])] = []
        var previous: MapCheckpoint?
        for (sequence, map) in mapCheckpoints(records) {
            guard let whole = previous.map({ map.folded(onto: $0) }) ?? (map.earlier == 0 ? map : nil) else {
                Issue.record("checkpoint \(sequence) does not fold onto the one before it")
                return folded
            }
            folded.append((sequence, whole.results, whole.running))
            previous = whole
        }
        return folded
    }

    @Test("the elements' reads overlap, each under its own element, and the map's checkpoints keep what ended")
    func theJournalTellsElementsApart() async throws {
        let run = try await Journaled()
        defer { run.scratch.remove() }
        let records = try run.records()
        let reads = Self.reads(records)
        #expect(reads.count == 3)
        // Every element's call is keyed by its element, so they can be told apart.
        #expect(Set(reads.compactMap { $0.string("key") }) == Set((0..<3).map { "\(Self.runID)/readDevices[\($0)]/1" }))
        // All three are in flight before the first answers.
        let firstOutcome = try #require(Self.readOutcomes(records).first).sequence
        #expect(reads.allSatisfy { $0.sequence < firstOutcome })
        // Elements' checkpoints name their element.
        let elements = Set(records.filter { $0.type == "checkpoint" }.compactMap { $0.string("element") })
        #expect(elements == Set((0..<3).map { "readDevices[\($0)]" }))
        let progress = Self.progressions(records)
        #expect(progress.first?.running == [0, 1, 2])
        #expect(progress.last?.results.map { $0["index"] } == [.int(0), .int(1), .int(2)])
        // Each element's result is written once, in the first checkpoint after it ended: not again in every later one.
        let written = Self.mapCheckpoints(records).flatMap { $0.map.results }.compactMap { $0["index"]?.intValue }
        #expect(written.sorted() == [0, 1, 2])
    }

    @Test("a resumed run continues the running elements and never reads again a device whose element had ended", arguments: [false, true])
    func resumeWithElementsInFlight(intoPool: Bool) async throws {
        let run = try await Journaled()
        defer { run.scratch.remove() }
        _ = try run.cut { records, record in
            Self.progressions(records).first { $0.sequence == record.sequence }.map { $0.results.count == 1 && !$0.running.isEmpty } ?? false
        }
        let before = try run.records()
        let ended = try #require(Self.progressions(before).last?.results.first)
        let endedDevice = try #require(ended["item"])
        let recovered = try await run.recover(resume: true, intoPool: intoPool)
        #expect(recovered.status == .succeeded, "\(recovered.notes)")
        let records = try run.records()
        let devices = Self.reads(records).map { $0.payload["arguments"]?["deviceID"] }
        #expect(devices.filter { $0 == endedDevice }.count == 1, "the ended element's device is read once: \(devices)")
        let finished = try #require(records.last { $0.type == JournalEntry.Kind.runFinished.rawValue })
        let results = try #require(finished.payload["output"]?["devices"]?.arrayValue)
        #expect(results.map { $0["index"] } == [.int(0), .int(1), .int(2)])
        #expect(results.allSatisfy { $0["status"] == "succeeded" })
    }

    @Test("stopped again right after a resume re-entered its map, the run still resumes each element from its own checkpoints")
    func stoppedAgainAfterResuming() async throws {
        let run = try await Journaled()
        defer { run.scratch.remove() }
        // Stopped as element 0 reaches its end, before the map learnt of it.
        let first = try run.cut { _, record in
            record.type == "checkpoint" && record.string("state") == "done" && record.payload["element"] != nil
        }
        let ended = try #require(try run.records().first { $0.sequence == first }?.string("element"))
        #expect(try await run.recover(resume: true, intoPool: false).status == .succeeded)
        // Stopped again once the resumed run has entered its map state again and restarted its elements.
        _ = try run.cut { records, record in
            let resumedAt = records.first { $0.type == JournalEntry.Kind.recoveryStarted.rawValue }?.sequence ?? .max
            return record.sequence > resumedAt && Self.mapCheckpoints([record]).first != nil
        }
        let recovered = try await run.recover(resume: true, intoPool: false)
        #expect(recovered.status == .succeeded, "\(recovered.notes)")
        // The element that had reached its end is not started afresh by the second recovery: its device is read once.
        let records = try run.records()
        let reads = Self.reads(records).filter { $0.string("key")?.contains(ended) == true }
        #expect(reads.count == 1, "\(ended) read \(reads.count) times")
    }

    @Test("a run stopped right after completing the commissioning resumes into its map and reads every device", arguments: [false, true])
    func resumeAfterCompletionRunsTheMap(intoPool: Bool) async throws {
        let run = try await Journaled()
        defer { run.scratch.remove() }
        _ = try run.cut { _, record in
            record.type == JournalEntry.Kind.outcome.rawValue && record.string("operation") == "completeCommissioning"
        }
        #expect(Self.reads(try run.records()).isEmpty)
        let recovered = try await run.recover(resume: true, intoPool: intoPool)
        #expect(recovered.status == .succeeded, "\(recovered.notes)")
        let records = try run.records()
        #expect(Self.readOutcomes(records).count == 3, "each device is read once the run resumes")
        let finished = try #require(records.last { $0.type == JournalEntry.Kind.runFinished.rawValue })
        let results = try #require(finished.payload["output"]?["devices"]?.arrayValue)
        #expect(results.map { $0["index"] } == [.int(0), .int(1), .int(2)])
    }

    @Test("each running element's in-doubt read is settled, then a resumed run reads again under the element's next key", arguments: [false, true])
    func inDoubtElementCallsAreSettled(intoPool: Bool) async throws {
        let run = try await Journaled()
        defer { run.scratch.remove() }
        // Cut as the first read answers: every element is in flight, and the others' reads are in doubt.
        _ = try run.cut { _, record in record.type == JournalEntry.Kind.outcome.rawValue && record.string("operation") == "readBasicInformation" }
        let cut = try run.records()
        let answered = Set(Self.readOutcomes(cut).compactMap { $0.string("key") })
        let inDoubt = Self.reads(cut).compactMap { $0.string("key") }.filter { !answered.contains($0) }
        #expect(inDoubt.count == 2, "\(inDoubt)")
        let recovered = try await run.recover(resume: true, intoPool: intoPool)
        #expect(recovered.status == .succeeded, "\(recovered.notes)")
        let records = try run.records()
        let settled = records.filter { $0.type == JournalEntry.Kind.resolution.rawValue }.compactMap { $0.string("key") }
        #expect(Set(settled) == Set(inDoubt), "each in-doubt read is settled: \(settled)")
        // A repeated read goes under the element's next key, never one the hub saw.
        let keys = Self.reads(records).compactMap { $0.string("key") }
        #expect(Set(keys).count == keys.count, "\(keys)")
        let finished = try #require(records.last { $0.type == JournalEntry.Kind.runFinished.rawValue })
        #expect(finished.payload["output"]?["devices"]?.arrayValue?.count == 3)
    }

    @Test("recovering without resume runs nothing more: the commissioning had completed, so the run succeeded with its devices", arguments: [false, true])
    func cancelWithElementsInFlight(intoPool: Bool) async throws {
        let run = try await Journaled()
        defer { run.scratch.remove() }
        // Cut as the first element reaches its end: the others have not, whichever order the map learnt of ends in.
        _ = try run.cut { _, record in
            record.type == "checkpoint" && record.string("state") == "done" && record.payload["element"] != nil
        }
        let readsBefore = Self.reads(try run.records()).count
        let recovered = try await run.recover(resume: false, intoPool: intoPool)
        #expect(recovered.status == .succeeded, "\(recovered.notes)")
        #expect(recovered.notes.contains { $0.contains("the states after the completion were not run") }, "\(recovered.notes)")
        let records = try run.records()
        #expect(Self.reads(records).count == readsBefore, "nothing is read again")
        let home = try #require(try HomeStateStore.loadSaved(directory: run.state))
        #expect(home.activeSession == nil)
        #expect(home.devices.count == 3, "the bridge and its two devices stay commissioned")
    }
}
