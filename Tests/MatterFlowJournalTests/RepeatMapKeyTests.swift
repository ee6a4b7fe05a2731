import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// A repeat state whose body reads devices with a map that runs elements at once: each iteration is new work, so its
/// elements are named apart (`readAll#2[0]` from the second iteration on) and no call key is given twice; a run
/// stopped anywhere resumes each element from its own iteration's checkpoints, never from an earlier one's.
@Suite("map elements inside a repeat state")
struct RepeatMapKeyTests {
    static let runID = "run-0000000e7e4a"

    static let element = #"""
        {"workflow": "read-one", "version": 1, "inputs": {"deviceID": {"type": "string", "required": true}},
         "start": "read", "states": {
          "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "${input.deviceID}"},
                   "next": "ok", "onError": [{"errors": ["*"], "next": "ok"}]},
          "ok": {"type": "succeed"}
        }}
        """#

    static let body = #"""
        {"workflow": "read-all", "version": 1, "inputs": {"devices": {"type": "array", "required": true}},
         "start": "readAll", "states": {
          "readAll": {"type": "map", "items": "${input.devices}", "as": "deviceID", "maxItems": 4, "concurrency": 2, "tolerateFailures": 4,
                      "path": "read-one.json", "inputs": {"deviceID": "${vars.deviceID}"}, "result": "read", "next": "done",
                      "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed", "output": {"found": false}},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    /// Polls three times, never finding what it waits for.
    static let parent = #"""
        {"workflow": "poll-devices", "version": 1, "start": "poll", "states": {
          "poll": {"type": "repeat", "path": "read-all.json", "inputs": {"devices": ["device-a", "device-b"]},
                   "until": {"equals": ["${vars.poll.found}", true]}, "maxIterations": 3, "delaySeconds": 1, "result": "poll",
                   "next": "done", "onError": [{"errors": ["repeatExhausted"], "next": "gaveUp"}, {"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed"},
          "gaveUp": {"type": "fail", "error": "${error}"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    let scratch: Scratch
    var journalPath: String { (try? RunJournal(directory: scratch.file("journal")).path(of: Self.runID)) ?? "" }

    init() async throws {
        scratch = try Scratch()
        for (name, text) in [("read-one.json", Self.element), ("read-all.json", Self.body), ("poll-devices.json", Self.parent)] {
            try Data(text.utf8).write(to: URL(fileURLWithPath: scratch.file(name)))
        }
        let clock = VirtualClock()
        let hub = try SimulatedHub(stateStore: try HomeStateStore(directory: scratch.file("state"), startingFrom: Homes.basic()), clock: clock)
        let handle = try RunJournal(directory: scratch.file("journal")).start(
            try WorkflowEngine().load(path: scratch.file("poll-devices.json")), on: hub,
            options: RunOptions(structureID: Homes.structureID, clock: clock, runID: Self.runID))
        let result = await handle.result
        #expect(result.error?.cause == .repeatExhausted, "\(String(describing: result.error))")
    }

    func records() throws -> [JournalRecord] { try JournalReader.read(path: journalPath).records }

    static func intents(_ records: [JournalRecord]) -> [JournalRecord] {
        records.filter { $0.type == "intent" && $0.string("operation") == "readBasicInformation" }
    }

    @Test("each iteration's elements have names and call keys of their own")
    func keysDifferPerIteration() async throws {
        let run = try await RepeatMapKeyTests()
        defer { run.scratch.remove() }
        let keys = Self.intents(try run.records()).compactMap { $0.string("key") }
        #expect(keys.count == 6)
        #expect(Set(keys).count == keys.count, "a key given twice: \(keys)")
        let names = Set(try run.records().compactMap { $0.string("element") })
        #expect(names == ["poll/readAll[0]", "poll/readAll[1]", "poll/readAll#2[0]", "poll/readAll#2[1]", "poll/readAll#3[0]", "poll/readAll#3[1]"])
    }

    @Test("a run stopped after any record resumes to the same end; every iteration reads both devices, no key twice")
    func stoppedAnywhere() async throws {
        let run = try await RepeatMapKeyTests()
        defer { run.scratch.remove() }
        let whole = try Data(contentsOf: URL(fileURLWithPath: run.journalPath))
        let count = try run.records().count
        for stop in 1..<count {
            try whole.write(to: URL(fileURLWithPath: run.journalPath))
            try cut(run.journalPath, after: stop)
            let recovered = try await resumeOnlyRun(in: run.scratch)
            #expect(recovered.status == .failed, "stopped after record \(stop): \(recovered.notes)")
            let records = try run.records()
            let finished = records.last { $0.type == JournalEntry.Kind.runFinished.rawValue }
            #expect(finished?.payload["error"]?["cause"] == "repeatExhausted", "stopped after record \(stop)")
            let intents = Self.intents(records)
            let keys = intents.compactMap { $0.string("key") }
            #expect(Set(keys).count == keys.count, "stopped after record \(stop): a key given twice: \(keys)")
            // Each of the three iterations reads each device (an element resumed from an earlier iteration's
            // checkpoints would skip its read).
            for device in ["device-a", "device-b"] {
                let reads = intents.count { $0.payload["arguments"]?["deviceID"]?.stringValue == device }
                #expect(reads >= 3, "stopped after record \(stop): \(device) read \(reads) times")
            }
        }
    }
}
