import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// A journaled run that stops inside a `repeat` state: each iteration's checkpoint records its number, so a resumed
/// repeat continues its count and `maxIterations` bounds the whole run, not each process.
@Suite("recovery inside a repeat state")
struct RepeatRecoveryTests {
    static let runID = "run-0000000e9ea7"

    /// Polls a device the home does not have: every read fails with `deviceNotFound`, so the body's output says
    /// not found and the repeat uses up its 4 iterations.
    static let body = #"""
        {"workflow": "poll-device", "version": 1, "start": "read", "states": {
          "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "device-absent"},
                   "next": "found", "onError": [{"errors": ["deviceNotFound"], "next": "missing"}, {"errors": ["*"], "next": "failed"}]},
          "found": {"type": "succeed", "output": {"found": true}},
          "missing": {"type": "succeed", "output": {"found": false}},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    static let parent = #"""
        {"workflow": "wait-for-device", "version": 1, "start": "poll", "states": {
          "poll": {"type": "repeat", "path": "poll-device.json", "until": {"equals": ["${vars.poll.found}", true]},
                   "maxIterations": 4, "delaySeconds": 30, "result": "poll", "next": "done",
                   "onError": [{"errors": ["repeatExhausted"], "next": "gaveUp"}, {"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed"},
          "gaveUp": {"type": "fail", "error": "${error}"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    /// A run whose journal ends right after the record `cutAfter` picks from the whole run's records.
    struct Interrupted {
        let scratch: Scratch
        let journalPath: String

        init(cutAfter pick: ([JournalRecord]) throws -> Int) async throws {
            let result: RunResult
            (scratch, result, journalPath) = try await journaledRun(
                of: "wait-for-device.json",
                files: [("poll-device.json", RepeatRecoveryTests.body), ("wait-for-device.json", RepeatRecoveryTests.parent)],
                runID: RepeatRecoveryTests.runID)
            #expect(result.error?.cause == .repeatExhausted, "\(String(describing: result.error))")
            let records = try JournalReader.read(path: journalPath).records
            #expect(RepeatRecoveryTests.reads(records) == 4)
            try cut(journalPath, after: try pick(records))
        }

        func resume() async throws -> RunRecovery { try await resumeOnlyRun(in: scratch) }

        func records() throws -> [JournalRecord] { try JournalReader.read(path: journalPath).records }
    }

    static func reads(_ records: [JournalRecord]) -> Int {
        records.count { $0.type == "intent" && $0.string("operation") == "readBasicInformation" }
    }

    @Test("each iteration's checkpoint records its number")
    func checkpointsCount() async throws {
        let whole = try await Interrupted(cutAfter: { $0.count })
        defer { whole.scratch.remove() }
        let entries = try JournalReader.read(path: whole.journalPath).entries()
        let iterations = entries.compactMap { record -> Int? in
            guard case .checkpoint(let checkpoint) = record.entry, checkpoint.state == "poll" else { return nil }
            return checkpoint.repeatIteration
        }
        #expect(iterations == [1, 2, 3, 4])
    }

    @Test("resumed between iterations (its body not started), the repeat runs only the iterations left")
    func resumedBetweenIterations() async throws {
        let interrupted = try await Interrupted(cutAfter: { records in
            // The checkpoint of the third iteration, before its body's first state.
            let checkpoints = records.filter { $0.type == "checkpoint" && $0.string("state") == "poll" }
            return try #require(checkpoints.dropFirst(3).first).sequence
        })
        defer { interrupted.scratch.remove() }
        #expect(Self.reads(try interrupted.records()) == 2)
        let run = try await interrupted.resume()
        #expect(run.resumed, "\(run.notes)")
        #expect(run.status == .failed)
        let records = try interrupted.records()
        #expect(Self.reads(records) == 4, "iterations 3 and 4 only: maxIterations bounds the whole run")
        let finished = try JournalReader.read(path: interrupted.journalPath).entries().finished
        #expect(finished?.error?.cause == .repeatExhausted)
        #expect(finished?.error?.message.contains("4 times") == true)
    }

    @Test("resumed inside an iteration's body, the count goes on from that iteration")
    func resumedInsideTheBody() async throws {
        let interrupted = try await Interrupted(cutAfter: { records in
            // The body's checkpoint as it enters `missing` in the third iteration.
            let missing = records.filter { $0.type == "checkpoint" && $0.string("state") == "missing" }
            return try #require(missing.dropFirst(2).first).sequence
        })
        defer { interrupted.scratch.remove() }
        #expect(Self.reads(try interrupted.records()) == 3)
        let run = try await interrupted.resume()
        #expect(run.resumed, "\(run.notes)")
        let records = try interrupted.records()
        #expect(Self.reads(records) == 4, "the fourth iteration only")
        let finished = try JournalReader.read(path: interrupted.journalPath).entries().finished
        #expect(finished?.error?.cause == .repeatExhausted)
    }
}
