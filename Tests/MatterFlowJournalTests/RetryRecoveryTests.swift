import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// A journaled run that stops while a step is being retried: the retry's checkpoint records the attempt and the
/// retries used, so a resumed step continues its count and `maxRetries` bounds the whole run, not each process.
@Suite("recovery of a step being retried")
struct RetryRecoveryTests {
    static let runID = "run-00000000e7e7"

    /// Reads a device the home does not have: every attempt fails with `deviceNotFound`, retried 3 times.
    static let retried = #"""
        {"workflow": "read-retried", "version": 1, "start": "read", "states": {
          "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "device-absent"},
                   "retry": [{"errors": ["hubUnreachable"], "maxRetries": 1}, {"errors": ["deviceNotFound"], "maxRetries": 3, "intervalSeconds": 5}],
                   "next": "found", "onError": [{"errors": ["*"], "next": "failed"}]},
          "found": {"type": "succeed"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    /// The same read once, without retries, run by a sub-workflow state that retries it twice.
    static let once = #"""
        {"workflow": "read-once", "version": 1, "start": "read", "states": {
          "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "device-absent"},
                   "next": "found", "onError": [{"errors": ["*"], "next": "failed"}]},
          "found": {"type": "succeed"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#
    static let outer = #"""
        {"workflow": "outer", "version": 1, "start": "poll", "states": {
          "poll": {"type": "workflow", "path": "read-once.json",
                   "retry": [{"errors": ["deviceNotFound"], "maxRetries": 2, "intervalSeconds": 5}],
                   "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """#

    /// A run of `file` (one of the workflows above, written to a scratch directory) to its end, its journal then cut
    /// right after the record `pick` chooses from the whole run's records.
    struct Interrupted {
        let scratch: Scratch
        let journalPath: String

        init(_ file: String, reads: Int, cutAfter pick: ([JournalRecord]) throws -> Int) async throws {
            let result: RunResult
            (scratch, result, journalPath) = try await journaledRun(
                of: file, files: [("read-retried.json", retried), ("read-once.json", once), ("outer.json", outer)],
                runID: RetryRecoveryTests.runID)
            #expect(result.error?.cause == .deviceNotFound, "\(String(describing: result.error))")
            let records = try JournalReader.read(path: journalPath).records
            #expect(RetryRecoveryTests.attempts(records).count == reads, "the whole run reads \(reads) times")
            try cut(journalPath, after: try pick(records))
        }

        func resume() async throws -> RunRecovery { try await resumeOnlyRun(in: scratch) }

        func records() throws -> [JournalRecord] { try JournalReader.read(path: journalPath).records }

        func finished() throws -> RunFinishedEntry? { try JournalReader.read(path: journalPath).entries().finished }
    }

    /// The attempt number of each read the journal records an intent for, in order.
    static func attempts(_ records: [JournalRecord]) -> [Int] {
        records.compactMap { $0.type == "intent" && $0.string("operation") == "readBasicInformation" ? $0.payload["attempt"]?.intValue : nil }
    }

    /// The sequence of the checkpoint of `state` that records attempt `attempt` about to run.
    static func retryCheckpoint(_ records: [JournalRecord], state: String, attempt: Int) throws -> Int {
        try #require(records.first { $0.type == "checkpoint" && $0.string("state") == state && $0.payload["retry"]?["attempt"] == .int(attempt) })
            .sequence
    }

    @Test("each retry writes a checkpoint with the attempt that follows, the retries each rule has used and the delay")
    func checkpointsCount() async throws {
        let whole = try await Interrupted("read-retried.json", reads: 4, cutAfter: { $0.count })
        defer { whole.scratch.remove() }
        let retries = try JournalReader.read(path: whole.journalPath).entries().compactMap { record -> StepRetries?? in
            guard case .checkpoint(let checkpoint) = record.entry, checkpoint.state == "read" else { return nil }
            return .some(checkpoint.retry)
        }
        #expect(
            retries == [
                nil, StepRetries(attempt: 2, used: [0, 1], delaySeconds: 5), StepRetries(attempt: 3, used: [0, 2], delaySeconds: 10),
                StepRetries(attempt: 4, used: [0, 3], delaySeconds: 20),
            ])
    }

    @Test(
        "resumed in a retry's delay, the step waits what is left of it by wall time, then makes only the attempts left",
        arguments: [(3.0, 7.0), (9.5, 0.5), (11.0, nil)] as [(Double, Double?)])
    func resumedInTheDelay(after elapsed: Double, waits left: Double?) async throws {
        let interrupted = try await Interrupted(
            "read-retried.json", reads: 4, cutAfter: { try RetryRecoveryTests.retryCheckpoint($0, state: "read", attempt: 3) })
        defer { interrupted.scratch.remove() }
        let before = try interrupted.records()
        #expect(Self.attempts(before) == [1, 2])
        // The 10 s delay before attempt 3 began with its retryScheduled record; the process comes back `elapsed` later.
        let scheduled = try #require(before.last { $0.type == "retryScheduled" }?.payload["wallTime"]?.doubleValue)
        let clock = VirtualClock()
        let hub = try SimulatedHub(
            stateStore: try HomeStateStore(directory: interrupted.scratch.file("state"), startingFrom: Homes.basic()), clock: clock)
        var options = RecoveryOptions(resume: true, clock: clock)
        options.wallClock = { scheduled + elapsed }
        let run = try #require(try await RunJournal(directory: interrupted.scratch.file("journal")).recover(on: hub, options: options).runs.first)
        #expect(run.resumed, "\(run.notes)")
        #expect(run.status == .failed)
        let after = try interrupted.records()
        #expect(Self.attempts(after) == [1, 2, 3, 4], "maxRetries bounds the whole run")
        #expect(try interrupted.finished()?.error?.cause == .deviceNotFound)
        // The first wait after the resume: what is left of attempt 3's delay, or, once it has passed, attempt 4's retry.
        let firstWait = try #require(after.dropFirst(before.count).first { $0.type == "delayStarted" || $0.type == "retryScheduled" })
        if let left {
            #expect(firstWait.type == "delayStarted" && firstWait.string("state") == "read" && firstWait.payload["seconds"]?.doubleValue == left, "\(firstWait.payload)")
        } else {
            #expect(firstWait.type == "retryScheduled", "attempt 3 is made before any delay: \(firstWait.payload)")
        }
    }

    @Test("resumed during an attempt whose read is in doubt, that attempt is made again under its own number")
    func resumedDuringAnAttempt() async throws {
        let interrupted = try await Interrupted(
            "read-retried.json", reads: 4,
            cutAfter: { records in
                try #require(records.last { $0.type == "intent" && $0.payload["attempt"] == 3 }).sequence
            })
        defer { interrupted.scratch.remove() }
        let run = try await interrupted.resume()
        #expect(run.resumed, "\(run.notes)")
        #expect(Self.attempts(try interrupted.records()) == [1, 2, 3, 3, 4])
        #expect(try interrupted.finished()?.error?.cause == .deviceNotFound)
    }

    @Test("resumed again after a resume, the count still goes on")
    func resumedTwice() async throws {
        let interrupted = try await Interrupted(
            "read-retried.json", reads: 4, cutAfter: { try RetryRecoveryTests.retryCheckpoint($0, state: "read", attempt: 2) })
        defer { interrupted.scratch.remove() }
        // The resumed run stops again right after it re-entered the state: the checkpoint it wrote then keeps the count.
        let path = interrupted.journalPath
        let before = try interrupted.records().count
        _ = try await interrupted.resume()
        let reentry = try #require(
            try interrupted.records().first { $0.sequence > before && $0.type == "checkpoint" && $0.string("state") == "read" })
        let retry = reentry.payload["retry"]
        #expect(retry?["attempt"] == 2 && retry?["used"] == [0, 1] && retry?["delaySeconds"]?.doubleValue == 5, "\(String(describing: retry))")
        try cut(path, after: reentry.sequence)
        let again = try await interrupted.resume()
        #expect(again.resumed, "\(again.notes)")
        #expect(Self.attempts(try interrupted.records()) == [1, 2, 3, 4])
    }

    @Test("resumed inside a retried sub-workflow, the outer state's count goes on")
    func resumedInsideTheRetriedBody() async throws {
        let interrupted = try await Interrupted(
            "outer.json", reads: 3,
            cutAfter: { records in
                // The body's first checkpoint in the outer state's second attempt.
                let entries = records.filter { $0.type == "checkpoint" && $0.string("workflow") == "outer/read-once" && $0.string("state") == "read" }
                return try #require(entries.dropFirst().first).sequence
            })
        defer { interrupted.scratch.remove() }
        #expect(Self.attempts(try interrupted.records()) == [1])
        let run = try await interrupted.resume()
        #expect(run.resumed, "\(run.notes)")
        #expect(Self.attempts(try interrupted.records()).count == 3, "attempts 2 and 3 of the outer state only")
        #expect(try interrupted.finished()?.error?.cause == .deviceNotFound)
    }

    @Test("cancelled as it resumes, the run takes its cancel path with the cancel path's own states, not the retried one")
    func cancelledAsItResumes() async throws {
        let text = #"""
            {"workflow": "read-retried", "version": 1, "start": "read", "onCancel": "abort", "states": {
              "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "device-absent"},
                       "retry": [{"errors": ["deviceNotFound"], "maxRetries": 3, "intervalSeconds": 5}],
                       "next": "found", "onError": [{"errors": ["*"], "next": "failed"}]},
              "found": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"},
              "abort": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "device-on-cancel-path"},
                        "next": "aborted", "onError": [{"errors": ["*"], "next": "aborted"}]},
              "aborted": {"type": "succeed"}
            }}
            """#
        let workflow = try WorkflowEngine().load(text: text, baseDirectory: "/")
        let clock = VirtualClock()
        var options = RunOptions(structureID: Homes.structureID, clock: clock, runID: "r")
        let cancellation = RunCancellation()
        cancellation.cancel()
        options.cancellation = cancellation
        let point = ResumePoint(
            levels: [
                RunCheckpoint(workflowPath: ["read-retried"], state: "read", inputs: [:], variables: [:], retry: StepRetries(attempt: 3, used: [2]))
            ],
            cancel: false)
        let handle = try WorkflowEngine().resume(workflow, from: point, on: try SimulatedHub(home: Homes.basic(), clock: clock), options: options)
        var calls: [String] = []
        for await event in handle.events {
            if case .hubCallStarted(let state, _, let attempt, let arguments) = event.kind {
                calls.append("\(state) \(attempt) \(arguments["deviceID"]?.stringValue ?? "")")
            }
        }
        #expect(calls == ["abort 1 device-on-cancel-path"])
        #expect(await handle.result.outcome == .cancelled)
    }

    @Test("a resume point whose retries the step's rules do not allow is refused before anything runs")
    func retriesBeyondTheRules() async throws {
        let workflow = try WorkflowEngine().load(text: Self.retried, baseDirectory: "/")
        let clock = VirtualClock()
        let hub = try SimulatedHub(home: Homes.basic(), clock: clock)
        let options = RunOptions(structureID: Homes.structureID, clock: clock, runID: "r")
        for retry in [StepRetries(attempt: 5, used: [0, 4]), StepRetries(attempt: 3, used: [2]), StepRetries(attempt: 4, used: [1, 1])] {
            let point = ResumePoint(
                levels: [RunCheckpoint(workflowPath: ["read-retried"], state: "read", inputs: [:], variables: [:], retry: retry)], cancel: false)
            #expect(throws: FlowError.self, "\(retry)") { _ = try WorkflowEngine().resume(workflow, from: point, on: hub, options: options) }
        }
        let fits = ResumePoint(
            levels: [RunCheckpoint(workflowPath: ["read-retried"], state: "read", inputs: [:], variables: [:], retry: StepRetries(attempt: 4, used: [0, 3]))],
            cancel: false)
        let handle = try WorkflowEngine().resume(workflow, from: fits, on: hub, options: options)
        var attempts: [Int] = []
        for await event in handle.events {
            if case .hubCallStarted(_, _, let attempt, _) = event.kind { attempts.append(attempt) }
        }
        #expect(attempts == [4], "the last retry the rules allow, then the error routes")
        #expect(await handle.result.error?.cause == .deviceNotFound)
    }
}
