import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// A map that runs elements at once, run again in one run: by a repeat state around it (each iteration is new work,
/// so its elements are named apart, `readAll#2[0]` from the second iteration on) or by a retried sub-workflow state
/// (the same work again: the elements keep their names, and number their calls after the last attempt's). No call
/// key is given twice, and a run stopped anywhere resumes each element from its own iteration's checkpoints.
@Suite("map elements run again in one run")
struct MapElementKeyTests {
    static let runID = "run-0000000e7e4a"

    /// Reads a device the home does not have: it succeeds anyway in a repeat's body; in a retried body it fails,
    /// failing the map and the body.
    static func element(failing: Bool) -> String {
        #"""
        {"workflow": "read-one", "version": 1, "inputs": {"deviceID": {"type": "string", "required": true}},
         "start": "read", "states": {
          "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "${input.deviceID}"},
                   "next": "ok", "onError": [{"errors": ["*"], "next": "\#(failing ? "failed" : "ok")"}]},
          \#(failing ? #""failed": {"type": "fail", "error": "${error}"},"# : "")
          "ok": {"type": "succeed"}
        }}
        """#
    }

    static let body = #"""
        {"workflow": "read-all", "version": 1, "inputs": {"devices": {"type": "array", "required": true}},
         "start": "readAll", "states": {
          "readAll": {"type": "map", "items": "${input.devices}", "as": "deviceID", "maxItems": 4, "concurrency": 2, "tolerateFailures": 0,
                      "path": "read-one.json", "inputs": {"deviceID": "${vars.deviceID}"}, "result": "read", "next": "done",
                      "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed", "output": {"found": false}},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    /// Polls three times, never finding what it waits for.
    static let repeating = #"""
        {"workflow": "poll-devices", "version": 1, "start": "poll", "states": {
          "poll": {"type": "repeat", "path": "read-all.json", "inputs": {"devices": ["device-a", "device-b"]},
                   "until": {"equals": ["${vars.poll.found}", true]}, "maxIterations": 3, "delaySeconds": 1, "result": "poll",
                   "next": "done", "onError": [{"errors": ["repeatExhausted"], "next": "gaveUp"}, {"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed"},
          "gaveUp": {"type": "fail", "error": "${error}"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    /// Reads the devices, retrying twice when an element fails (as every one does).
    static let retried = #"""
        {"workflow": "poll-devices", "version": 1, "start": "poll", "states": {
          "poll": {"type": "workflow", "path": "read-all.json", "inputs": {"devices": ["device-a", "device-b"]}, "result": "poll",
                   "retry": [{"errors": ["mapElementsFailed"], "maxRetries": 2, "intervalSeconds": 1}],
                   "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    enum Scenario: String, CaseIterable, CustomTestStringConvertible {
        case repeating, retried
        var testDescription: String { rawValue }
        /// Why the whole run fails.
        var cause: ErrorCause { self == .repeating ? .repeatExhausted : .mapElementsFailed }
    }

    /// A whole journaled run of the scenario, whose journal a test may then cut.
    struct Journaled {
        let scratch: Scratch
        let journalPath: String

        init(_ scenario: Scenario) async throws {
            let files = [
                ("read-one.json", MapElementKeyTests.element(failing: scenario == .retried)), ("read-all.json", MapElementKeyTests.body),
                ("poll-devices.json", scenario == .repeating ? MapElementKeyTests.repeating : MapElementKeyTests.retried),
            ]
            let result: RunResult
            (scratch, result, journalPath) = try await journaledRun(of: "poll-devices.json", files: files, runID: MapElementKeyTests.runID)
            #expect(result.error?.cause == scenario.cause, "\(String(describing: result.error))")
        }

        func records() throws -> [JournalRecord] { try JournalReader.read(path: journalPath).records }
    }

    static func intents(_ records: [JournalRecord]) -> [JournalRecord] {
        records.filter { $0.type == "intent" && $0.string("operation") == "readBasicInformation" }
    }

    @Test("each iteration's elements have names and call keys of their own")
    func keysDifferPerIteration() async throws {
        let run = try await Journaled(.repeating)
        defer { run.scratch.remove() }
        let keys = Self.intents(try run.records()).compactMap { $0.string("key") }
        #expect(keys.count == 6)
        #expect(Set(keys).count == keys.count, "a key given twice: \(keys)")
        let names = Set(try run.records().compactMap { $0.string("element") })
        #expect(names == ["poll/readAll[0]", "poll/readAll[1]", "poll/readAll#2[0]", "poll/readAll#2[1]", "poll/readAll#3[0]", "poll/readAll#3[1]"])
    }

    @Test("a retried sub-workflow's elements keep their names and number their calls after the last attempt's")
    func retriedElementsNumberOn() async throws {
        let run = try await Journaled(.retried)
        defer { run.scratch.remove() }
        let keys = Self.intents(try run.records()).compactMap { $0.string("key") }
        #expect(Set(keys).count == keys.count, "a key given twice: \(keys)")
        #expect(Set(keys.map { $0.split(separator: "/").dropLast().joined(separator: "/") }) == ["\(Self.runID)/poll/readAll[0]", "\(Self.runID)/poll/readAll[1]"])
        #expect(keys.contains("\(Self.runID)/poll/readAll[0]/3"), "the third attempt's call: \(keys)")
    }

    @Test("an element of a retried map that had not begun in the new attempt starts afresh, not from the last attempt's checkpoints")
    func retriedElementStartsAfresh() async throws {
        let run = try await Journaled(.retried)
        defer { run.scratch.remove() }
        let records = try run.records()
        func mapCheckpoint(_ record: JournalRecord) -> Bool {
            record.type == "checkpoint" && record.string("state") == "readAll" && record.payload["element"] == nil
        }
        // The second attempt enters the map state, then starts its elements.
        let entries = records.filter { mapCheckpoint($0) && ($0.payload["map"]?.isNull ?? true) }
        let second = try #require(entries.dropFirst().first).sequence
        let launched = try #require(records.first { $0.sequence > second && mapCheckpoint($0) && $0.payload["map"]?["running"] != nil })
        try cut(run.journalPath, after: launched.sequence)
        let recovered = try await resumeOnlyRun(in: run.scratch)
        #expect(recovered.status == .failed, "\(recovered.notes)")
        let after = try run.records().filter { $0.sequence > launched.sequence }
        for element in ["poll/readAll[0]", "poll/readAll[1]"] {
            let first = after.first { $0.type == "checkpoint" && $0.string("element") == element }
            #expect(first?.string("state") == "read", "\(element) went on from \(first?.string("state") ?? "nothing")")
        }
    }

    @Test("a run stopped after any record resumes to the same end; every iteration reads its devices, no key twice", arguments: Scenario.allCases)
    func stoppedAnywhere(_ scenario: Scenario) async throws {
        let run = try await Journaled(scenario)
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
            #expect(finished?.payload["error"]?["cause"] == .string(scenario.cause.rawValue), "stopped after record \(stop)")
            let intents = Self.intents(records)
            let keys = intents.compactMap { $0.string("key") }
            #expect(Set(keys).count == keys.count, "stopped after record \(stop): a key given twice: \(keys)")
            // Each of the three iterations reads each device (an element resumed from an earlier iteration's
            // checkpoints would skip its read); each of the three attempts reads a device at least.
            for device in scenario == .repeating ? ["device-a", "device-b"] : [] {
                let reads = intents.count { $0.payload["arguments"]?["deviceID"]?.stringValue == device }
                #expect(reads >= 3, "stopped after record \(stop): \(device) read \(reads) times")
            }
            #expect(intents.count >= 3, "stopped after record \(stop)")
        }
    }
}
