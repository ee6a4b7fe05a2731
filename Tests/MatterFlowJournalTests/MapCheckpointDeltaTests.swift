import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// A map state's checkpoints record each element's result once: after its first checkpoint, each lists only the
/// results new since the one before (`newResults`, `earlier`), and the journal's reader folds them back. A map of N
/// elements journals N results, not N²/2, and an interrupted run resumes with every result, also when it is
/// interrupted again after resuming.
@Suite("map checkpoints that list only new results")
struct MapCheckpointDeltaTests {
    static let runID = "run-00000d17a5e1"
    static let devices = (0..<6).map { "device-absent-\($0)" }

    /// Reads a device the home does not have: the read fails with `deviceNotFound`, and the body says so.
    static let body = #"""
        {"workflow": "probe-device", "version": 1,
         "inputs": {"deviceID": {"type": "string", "required": true}},
         "start": "read", "states": {
          "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "${input.deviceID}"},
                   "next": "found", "onError": [{"errors": ["deviceNotFound"], "next": "missing"}, {"errors": ["*"], "next": "failed"}]},
          "found": {"type": "succeed", "output": {"found": true, "deviceID": "${input.deviceID}"}},
          "missing": {"type": "succeed", "output": {"found": false, "deviceID": "${input.deviceID}"}},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    /// Probes each device in turn, one element at a time.
    static let parent = #"""
        {"workflow": "probe-devices", "version": 1,
         "inputs": {"devices": {"type": "array", "required": true}},
         "start": "probe", "states": {
          "probe": {"type": "map", "items": "${input.devices}", "as": "deviceID", "maxItems": 16, "path": "probe-device.json",
                    "inputs": {"deviceID": "${vars.deviceID}"}, "result": "probed", "next": "done",
                    "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed", "output": {"probed": "${vars.probed.elements}"}},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    static let inputs: JSONObject = ["devices": .array(devices.map(JSONValue.string))]

    /// A whole journaled run, whose journal a test then cuts where it stopped (the body only reads, so the home is
    /// the same at any point).
    struct Journaled {
        let scratch: Scratch
        var journalPath: String { (try? RunJournal(directory: scratch.file("journal")).path(of: MapCheckpointDeltaTests.runID)) ?? "" }

        init() async throws {
            scratch = try Scratch()
            try Data(MapCheckpointDeltaTests.body.utf8).write(to: URL(fileURLWithPath: scratch.file("probe-device.json")))
            try Data(MapCheckpointDeltaTests.parent.utf8).write(to: URL(fileURLWithPath: scratch.file("probe-devices.json")))
            let clock = VirtualClock()
            let hub = try SimulatedHub(
                stateStore: try HomeStateStore(directory: scratch.file("state"), startingFrom: Homes.basic()), clock: clock)
            let handle = try RunJournal(directory: scratch.file("journal")).start(
                try WorkflowEngine().load(path: scratch.file("probe-devices.json")), inputs: MapCheckpointDeltaTests.inputs, on: hub,
                options: RunOptions(structureID: Homes.structureID, clock: clock, runID: MapCheckpointDeltaTests.runID))
            let result = await handle.result
            #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        }

        func records() throws -> [JournalRecord] { try JournalReader.read(path: journalPath).records }

        /// Cuts the journal after the last map checkpoint whose folded progress is at element `index`.
        func cut(atElement index: Int) throws {
            let progress = MapCheckpointDeltaTests.folded(try records())
            let point = try #require(progress.last { $0.map.index == index })
            try MatterFlowJournalTests.cut(journalPath, after: point.sequence)
        }

        func resume() async throws -> RunRecovery { try await resumeOnlyRun(in: scratch) }
    }

    /// The map state's checkpoints as written.
    static func written(_ records: [JournalRecord]) -> [(sequence: Int, map: MapCheckpoint)] {
        records.compactMap { record in
            guard record.type == "checkpoint", record.string("state") == "probe", let json = record.payload["map"],
                let map = MapCheckpoint(json: json)
            else { return nil }
            return (record.sequence, map)
        }
    }

    /// The map state's checkpoints folded in order, as the journal's reader does.
    static func folded(_ records: [JournalRecord]) -> [(sequence: Int, map: MapCheckpoint)] {
        var folded: [(sequence: Int, map: MapCheckpoint)] = []
        for (sequence, map) in written(records) {
            guard let whole = folded.last.map({ map.folded(onto: $0.map) }) ?? (map.earlier == 0 ? map : nil) else {
                Issue.record("the map checkpoint at record \(sequence) does not fold onto the one before it")
                break
            }
            folded.append((sequence, whole))
        }
        return folded
    }

    static func reads(_ records: [JournalRecord]) -> [String] {
        records.filter { $0.type == "intent" && $0.string("operation") == "readBasicInformation" }.compactMap {
            $0.payload["arguments"]?["deviceID"]?.stringValue
        }
    }

    static func probed(_ records: [JournalRecord]) -> [JSONValue]? {
        records.last { $0.type == JournalEntry.Kind.runFinished.rawValue }?.payload["output"]?["probed"]?.arrayValue
    }

    @Test("each element's result is written once, in the checkpoint after it ended; the reader folds them back whole")
    func eachResultIsWrittenOnce() async throws {
        let run = try await Journaled()
        defer { run.scratch.remove() }
        let written = Self.written(try run.records())
        #expect(written.map(\.map.index) == Array(0..<6))
        #expect(written.map(\.map.earlier) == [0, 0, 1, 2, 3, 4], "each checkpoint leaves out the results written before it")
        #expect(written.map { $0.map.results.count } == [0] + Array(repeating: 1, count: 5))
        #expect(written.flatMap(\.map.results).compactMap { $0["index"]?.intValue } == Array(0..<5))
        let last = try #require(Self.folded(try run.records()).last?.map)
        #expect(last.results.compactMap { $0["item"]?.stringValue } == Array(Self.devices.prefix(5)))
        // What recovery reads: the run's level, folded.
        let entries = try JournalReader.read(path: run.journalPath).entries()
        try run.cut(atElement: 5)
        let cutEntries = try JournalReader.read(path: run.journalPath).entries()
        let level = try #require(JournalCallers(cutEntries, runID: Self.runID).run.checkpoints.first)
        #expect(level.map?.earlier == 0)
        #expect(level.map?.results.count == 5)
        #expect(entries.records.count > cutEntries.records.count)
    }

    @Test("a run stopped inside its map resumes at the next element with every result, and reads no device twice")
    func resumeKeepsEveryResult() async throws {
        let run = try await Journaled()
        defer { run.scratch.remove() }
        try run.cut(atElement: 4)
        let before = try run.records()
        #expect(Self.reads(before) == Array(Self.devices.prefix(4)))
        let recovered = try await run.resume()
        #expect(recovered.status == .succeeded, "\(recovered.notes)")
        let records = try run.records()
        #expect(Self.reads(records) == Self.devices, "each device is read once")
        let probed = try #require(Self.probed(records))
        #expect(probed.compactMap { $0["item"]?.stringValue } == Self.devices)
        #expect(probed.allSatisfy { $0["output"]?["found"] == false })
        // The resumed map's first checkpoint lists every result again, so its later ones fold onto it alone.
        let resumed = Self.written(records).filter { $0.sequence > before.count }
        #expect(resumed.first?.map.earlier == 0)
        #expect(resumed.first?.map.results.count == 4)
        #expect(Self.folded(records).last?.map.results.count == 5)
    }

    @Test("a run interrupted again after resuming folds the checkpoints of both and resumes with every result")
    func secondInterruptionFoldsAcrossTheResume() async throws {
        let run = try await Journaled()
        defer { run.scratch.remove() }
        try run.cut(atElement: 2)
        #expect(try await run.resume().status == .succeeded)
        // The resumed run's checkpoint before element 5 folds onto the whole one it wrote on resuming.
        try run.cut(atElement: 5)
        #expect(Self.reads(try run.records()) == Array(Self.devices.prefix(5)))
        let recovered = try await run.resume()
        #expect(recovered.status == .succeeded, "\(recovered.notes)")
        let records = try run.records()
        #expect(Self.reads(records) == Self.devices, "each device is read once over three processes")
        #expect(try #require(Self.probed(records)).compactMap { $0["item"]?.stringValue } == Self.devices)
    }

    @Test("a run stopped after any record resumes to the same end, never reading again a device whose result was journaled")
    func stoppedAnywhere() async throws {
        let run = try await Journaled()
        defer { run.scratch.remove() }
        let whole = try Data(contentsOf: URL(fileURLWithPath: run.journalPath))
        let records = try run.records()
        for stop in 1..<records.count {
            try whole.write(to: URL(fileURLWithPath: run.journalPath))
            try MatterFlowJournalTests.cut(run.journalPath, after: stop)
            let cut = try run.records()
            // The devices whose element's result the journal holds, as the reader folds the map's checkpoints.
            let kept = Set((Self.folded(cut).last?.map.results ?? []).compactMap { $0["item"]?.stringValue })
            let recovered = try await run.resume()
            #expect(recovered.status == .succeeded, "stopped after record \(stop): \(recovered.notes)")
            let after = try run.records().filter { $0.sequence > stop }
            let readAgain = Self.reads(after).filter(kept.contains)
            #expect(readAgain.isEmpty, "stopped after record \(stop): read again \(readAgain)")
            #expect(Self.probed(after)?.compactMap { $0["item"]?.stringValue } == Self.devices, "stopped after record \(stop)")
        }
    }

    @Test("a map checkpoint whose earlier results are not in the journal is not resumed from: recovery says why")
    func aCheckpointThatDoesNotFoldIsNotResumed() async throws {
        let run = try await Journaled()
        defer { run.scratch.remove() }
        try run.cut(atElement: 4)
        // The journal loses the map's checkpoint before element 3 (its record rewritten as a warning, frame intact):
        // the one before element 4 lists one result and leaves out three the journal no longer holds.
        let lost = try #require(Self.written(try run.records()).first { $0.map.index == 3 }).sequence
        try rewrite(run.journalPath, record: lost) { payload in
            ["seq": payload["seq"] ?? .null, "type": "warning", "wallTime": payload["wallTime"] ?? .null, "workflow": "probe-devices",
             "state": "probe", "message": "a record in place of a checkpoint", "clockTime": .int(0)]
        }
        let recovered = try await run.resume()
        // Neither resumed nor left needing attention: recovery releases what the run holds by itself and ends it.
        #expect(recovered.status == .cancelled, "\(recovered.status) \(recovered.notes)")
        let notes = recovered.notes.joined(separator: " | ")
        #expect(notes.contains("lists only the results of elements that ended since its previous checkpoint"), "\(notes)")
        #expect(Self.reads(try run.records()) == Array(Self.devices.prefix(4)), "no device is read again")
    }

    @Test("a delta checkpoint's JSON holds newResults and earlier, never results; what does not fit is refused")
    func deltaJSON() {
        let delta = MapCheckpoint(index: 3, results: [["index": .int(2)]], earlier: 2)
        #expect(delta.jsonValue["results"] == nil, "a reader that cannot fold refuses the record rather than misread it")
        #expect(delta.jsonValue["newResults"]?.arrayValue?.count == 1)
        #expect(MapCheckpoint(json: delta.jsonValue) == delta)
        let whole = MapCheckpoint(index: 2, results: [["index": .int(0)], ["index": .int(1)]])
        #expect(whole.jsonValue["earlier"] == nil && whole.jsonValue["newResults"] == nil)
        #expect(MapCheckpoint(json: ["index": .int(3), "results": .array([]), "newResults": .array([]), "earlier": .int(1)]) == nil)
        #expect(MapCheckpoint(json: ["index": .int(3), "newResults": .array([])]) == nil, "newResults without earlier")
        #expect(MapCheckpoint(json: ["index": .int(3), "newResults": .array([]), "earlier": .int(0)]) == nil)
        #expect(MapCheckpoint(json: ["index": .int(3), "results": .array([]), "earlier": .int(1)]) == nil, "earlier with results")
        #expect(MapCheckpoint(json: ["index": .int(2), "newResults": .array([["index": .int(1)]]), "earlier": .int(2)]) == nil, "more than started")
        #expect(MapCheckpoint(json: ["index": .int(1)]) == nil)
        // Folding: onto the whole results before it, in element order; anything else does not fold.
        #expect(delta.folded(onto: whole) == MapCheckpoint(index: 3, results: [["index": .int(0)], ["index": .int(1)], ["index": .int(2)]]))
        #expect(delta.folded(onto: MapCheckpoint(index: 1, results: [["index": .int(0)]])) == nil, "one result short")
        #expect(delta.folded(onto: MapCheckpoint(index: 2, results: [["index": .int(0)], ["index": .int(2)]])) == nil, "element 2 twice")
        #expect(delta.folded(onto: MapCheckpoint(index: 2, results: [["index": .int(0)], ["index": .int(1)]], earlier: 1)) == nil)
        #expect(whole.folded(onto: delta) == whole, "a whole checkpoint is itself")
        let level = RunCheckpoint(workflowPath: ["w"], state: "probe", inputs: [:], variables: [:], map: delta)
        let before = RunCheckpoint(workflowPath: ["w"], state: "probe", inputs: [:], variables: [:], map: whole)
        #expect(level.folded(onto: before)?.map?.results.count == 3)
        var elsewhere = before
        elsewhere.state = "other"
        #expect(level.folded(onto: elsewhere) == nil, "another state's checkpoint")
        elsewhere = before
        elsewhere.element = "outer[1]"
        #expect(level.folded(onto: elsewhere) == nil, "another element's checkpoint")
    }
}
