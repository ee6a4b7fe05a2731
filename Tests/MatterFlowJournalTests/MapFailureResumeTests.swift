import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// A map state that runs elements at once and has already failed (more failures than it tolerates, or results too
/// large) while its other elements were being cancelled: a run stopped then and resumed fails the same way, never
/// goes on to start more elements and succeed.
@Suite("resuming a map that had failed")
struct MapFailureResumeTests {
    static let runID = "run-00000fa11ed0"

    /// An element for "bad" fails at once; any other reads a device the home does not have (a call in flight while
    /// the map learns of the failure) and succeeds saying it was not found.
    static let body = #"""
        {"workflow": "check-device", "version": 1,
         "inputs": {"deviceID": {"type": "string", "required": true}},
         "start": "which", "states": {
          "which": {"type": "choice", "choices": [{"if": {"equals": ["${input.deviceID}", "bad"]}, "next": "refuse"}], "default": "read"},
          "refuse": {"type": "fail", "error": {"code": "invalidArgument", "message": "a bad device"}},
          "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "${input.deviceID}"},
                   "next": "found", "onError": [{"errors": ["deviceNotFound"], "next": "missing"}, {"errors": ["*"], "next": "failed"}]},
          "found": {"type": "succeed", "output": {"found": true}},
          "missing": {"type": "succeed", "output": {"found": false}},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    static let parent = #"""
        {"workflow": "check-devices", "version": 1,
         "inputs": {"devices": {"type": "array", "required": true}},
         "start": "check", "states": {
          "check": {"type": "map", "items": "${input.devices}", "as": "deviceID", "maxItems": 16, "concurrency": 2,
                    "path": "check-device.json", "inputs": {"deviceID": "${vars.deviceID}"}, "result": "checked", "next": "done",
                    "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed", "output": {"checked": "${vars.checked}"}},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    static let inputs: JSONObject = ["devices": ["absent-0", "bad", "absent-2", "absent-3"]]

    let scratch: Scratch
    var journalPath: String { (try? RunJournal(directory: scratch.file("journal")).path(of: Self.runID)) ?? "" }

    init() throws {
        scratch = try Scratch()
        try Data(Self.body.utf8).write(to: URL(fileURLWithPath: scratch.file("check-device.json")))
        try Data(Self.parent.utf8).write(to: URL(fileURLWithPath: scratch.file("check-devices.json")))
    }

    /// Reads take 5 s on the hub's clock, so an element that reads is still reading when "bad" fails the map.
    static var home: HomeDescription {
        var home = Homes.basic()
        home.simulation.latencySeconds[.readBasicInformation] = 5
        return home
    }

    func run() async throws -> RunResult {
        let clock = VirtualClock()
        let handle = try RunJournal(directory: scratch.file("journal")).start(
            try WorkflowEngine().load(path: scratch.file("check-devices.json")), inputs: Self.inputs,
            on: try SimulatedHub(stateStore: try HomeStateStore(directory: scratch.file("state"), startingFrom: Self.home), clock: clock),
            options: RunOptions(structureID: Homes.structureID, clock: clock, runID: Self.runID))
        return await handle.result
    }

    func records() throws -> [JournalRecord] { try JournalReader.read(path: journalPath).records }

    func resume() async throws -> RunRecovery { try await resumeOnlyRun(in: scratch, home: Self.home) }

    /// The map's checkpoints (not its elements'), as written.
    func mapCheckpoints() throws -> [(sequence: Int, map: MapCheckpoint)] {
        try records().compactMap { record in
            guard record.type == "checkpoint", record.string("state") == "check", record.payload["element"] == nil,
                let json = record.payload["map"], let map = MapCheckpoint(json: json)
            else { return nil }
            return (record.sequence, map)
        }
    }

    /// Without the map's error in the checkpoint (a journal from before it was recorded), its failures past the
    /// tolerance still tell.
    @Test("a run stopped after its map failed, an element still being cancelled, fails the same way when resumed", arguments: [true, false])
    func failedMapStaysFailed(checkpointKeepsFailure: Bool) async throws {
        let run = try MapFailureResumeTests()
        defer { run.scratch.remove() }
        let whole = try await run.run()
        #expect(whole.error?.cause == .mapElementsFailed, "\(String(describing: whole.error))")
        // The checkpoint written as the bad element ended: the map has failed, element 0 is still running (being
        // cancelled).
        let failed = try #require(try run.mapCheckpoints().first { $0.map.results.contains { $0["status"] == "failed" } })
        #expect(failed.map.running == [0])
        #expect(failed.map.failure?.cause == .mapElementsFailed)
        try cut(run.journalPath, after: failed.sequence)
        if !checkpointKeepsFailure {
            try rewrite(run.journalPath, record: failed.sequence) { payload in
                var payload = payload
                var map = payload["map"]?.objectValue ?? [:]
                map["failure"] = nil
                payload["map"] = .object(map)
                return payload
            }
            #expect(try run.mapCheckpoints().last?.map.failure == nil)
        }
        let recovered = try await run.resume()
        #expect(recovered.status == .failed, "\(recovered.notes)")
        let records = try run.records()
        let finished = try #require(records.last { $0.type == JournalEntry.Kind.runFinished.rawValue })
        #expect(finished.payload["error"]?["cause"] == "mapElementsFailed", "\(String(describing: finished.payload["error"]))")
        let reads = records.filter { $0.type == "intent" && $0.string("operation") == "readBasicInformation" }
            .compactMap { $0.payload["arguments"]?["deviceID"]?.stringValue }
        #expect(!reads.contains("absent-2") && !reads.contains("absent-3"), "no element starts after the map failed: \(reads)")
        // The element the map was cancelling goes on with its cancel: after the stop it reads nothing and enters no
        // state of its body but the one it stood in (entered again on resuming).
        let after = records.filter { $0.sequence > failed.sequence }
        let readsAfter = after.filter { $0.type == "intent" && $0.string("operation") == "readBasicInformation" }
        #expect(readsAfter.isEmpty, "\(readsAfter.map(\.payload))")
        func elementZero(_ record: JournalRecord) -> Bool { record.type == "checkpoint" && record.string("element") == "check[0]" }
        let stoodIn = records.last { $0.sequence <= failed.sequence && elementZero($0) }?.string("state")
        let entered = after.filter(elementZero).compactMap { $0.string("state") }.filter { $0 != stoodIn }
        #expect(entered.isEmpty, "element 0 went on with its body from \(stoodIn ?? "-") after the map had failed: \(entered)")
    }

    @Test("a run stopped after any record and resumed fails as the whole run did, starting no element after the failure")
    func stoppedAnywhere() async throws {
        let run = try MapFailureResumeTests()
        defer { run.scratch.remove() }
        #expect(try await run.run().error?.cause == .mapElementsFailed)
        let whole = try Data(contentsOf: URL(fileURLWithPath: run.journalPath))
        let records = try run.records()
        for stop in 1..<records.count {
            try whole.write(to: URL(fileURLWithPath: run.journalPath))
            try cut(run.journalPath, after: stop)
            let recovered = try await run.resume()
            #expect(recovered.status == .failed, "stopped after record \(stop): \(recovered.notes)")
            let after = try run.records()
            let finished = after.last { $0.type == JournalEntry.Kind.runFinished.rawValue }
            #expect(finished?.payload["error"]?["cause"] == "mapElementsFailed", "stopped after record \(stop)")
            let reads = after.filter { $0.type == "intent" && $0.string("operation") == "readBasicInformation" }
                .compactMap { $0.payload["arguments"]?["deviceID"]?.stringValue }
            #expect(!reads.contains("absent-2") && !reads.contains("absent-3"), "stopped after record \(stop): \(reads)")
        }
    }

    @Test("a map checkpoint's failure is read as strictly as any error of a record: a member missing is named, never defaulted",
          arguments: ["message", "cause", "code"])
    func failureReadStrictly(missing member: String) async throws {
        let run = try MapFailureResumeTests()
        defer { run.scratch.remove() }
        _ = try await run.run()
        let failed = try #require(try run.mapCheckpoints().first { $0.map.failure != nil })
        try rewrite(run.journalPath, record: failed.sequence) { payload in
            var payload = payload
            var map = payload["map"]?.objectValue ?? [:]
            var failure = map["failure"]?.objectValue ?? [:]
            failure[member] = nil
            map["failure"] = .object(failure)
            payload["map"] = .object(map)
            return payload
        }
        do {
            _ = try JournalReader.read(path: run.journalPath).entries()
            Issue.record("a map failure without \(member) was read")
        } catch {
            #expect(error.code == .malformedRecord)
            #expect(error.message.contains("map.failure.\(member)"), "\(error.message)")
        }
    }

    @Test("a map checkpoint's failure round-trips, and a journal without it still fails a map past its tolerance")
    func failureJSON() throws {
        let failure = FlowError(code: .aborted, cause: .mapElementsFailed, message: "too many", state: "check")
        let saved = MapCheckpoint(index: 2, results: [["index": .int(1), "status": "failed"]], running: [0], failure: failure)
        let read = try #require(MapCheckpoint(json: saved.jsonValue))
        #expect(read.failure?.cause == .mapElementsFailed && read.failure?.message == "too many")
        #expect(MapCheckpoint(index: 1, results: []).jsonValue["failure"] == nil)
        #expect(MapCheckpoint(json: ["index": .int(1), "results": .array([]), "failure": "no"]) == nil)
    }
}
