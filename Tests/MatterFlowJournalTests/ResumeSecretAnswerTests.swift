import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// A secret answer given before a crash: the journal keeps a salted digest of it, never the answer;
/// `recover --resume` continues the run with the answer given again, refuses another one before changing anything,
/// and without it takes the cancel path, naming the `--answer` that would have resumed it.
@Suite("resumed secret answers")
struct ResumeSecretAnswerTests {
    static let pin = "482913"

    /// Prepares, asks a secret PIN, fetches the rooms, releases the session; the output says whether the PIN the
    /// run holds at the end is the one answered (so the output never holds the PIN itself).
    static func workflowText() -> String {
        """
        {"workflow": "secret-answer", "version": 1, "start": "prepare", "onCancel": "release",
         "states": {
          "prepare": {"type": "action", "operation": "prepareCommissioning", "result": "session", "next": "pin",
                      "onError": [{"errors": ["*"], "next": "failed"}]},
          "pin": {"type": "ask", "prompt": "Code for the device?", "answer": {"text": {"pattern": "[0-9]{6}"}},
                  "secret": true, "result": "pin", "timeoutSeconds": 60, "next": "rooms", "onTimeout": "release"},
          "rooms": {"type": "action", "operation": "fetchRooms", "result": "rooms", "next": "finish",
                    "onError": [{"errors": ["*"], "next": "release"}]},
          "finish": {"type": "action", "operation": "cancelCommissioning", "next": "check",
                     "onError": [{"errors": ["*"], "next": "failed"}]},
          "check": {"type": "choice", "choices": [{"if": {"equals": ["${vars.pin}", "\(pin)"]}, "next": "same"}],
                    "default": "other"},
          "same": {"type": "succeed", "output": {"samePin": true}},
          "other": {"type": "succeed", "output": {"samePin": false}},
          "release": {"type": "action", "operation": "cancelCommissioning", "next": "cancelled",
                      "onError": [{"errors": ["*"], "next": "failed"}]},
          "cancelled": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "released"},
          "failed": {"type": "fail", "error": "${error}"}
         }}
        """
    }

    /// A run answered with the PIN (or `answers`), killed just after it entered `rooms` (its checkpoint holds the
    /// answer redacted), with the home as it was then. `files` are the workflow's sub-workflows, by file name.
    struct Crashed {
        let scratch: Scratch
        var stateDirectory: String { scratch.file("state") }
        var journalPath: String { (try? RunJournal(directory: scratch.file("journal")).path(of: Self.runID)) ?? "" }
        var journalDirectory: String { scratch.file("journal") }
        static let runID = "run-00000000a5e7"

        init(
            workflow: String = ResumeSecretAnswerTests.workflowText(), files: [String: String] = [:],
            answers: [String: JSONValue] = ["pin": .string(ResumeSecretAnswerTests.pin)],
            output: JSONValue? = ["samePin": true]
        ) async throws {
            scratch = try Scratch()
            let workflowPath = scratch.file("secret-answer.json")
            try Data(workflow.utf8).write(to: URL(fileURLWithPath: workflowPath))
            for (name, text) in files {
                try Data(text.utf8).write(to: URL(fileURLWithPath: scratch.file(name)))
            }
            let stateDirectory = scratch.file("state")
            let homePath = stateDirectory + "/" + HomeStateStore.fileName
            // The home's bytes after each record, to put back the one at the crash.
            let homes = Mutex<[Int: [UInt8]]>([:])
            let hook: JournalTestHook = { boundary in
                if boundary.position == .after {
                    let bytes = (try? JournalFile.readAll(homePath)) ?? []
                    homes.withLock { $0[boundary.sequence] = bytes }
                }
                return .proceed
            }
            let clock = VirtualClock()
            let hub = try SimulatedHub(stateStore: try HomeStateStore(directory: stateDirectory, startingFrom: Homes.basic()), clock: clock)
            var options = RunOptions(structureID: Homes.structureID, clock: clock, runID: Self.runID)
            options.answers = answers
            let hold = ClockHold(clock)
            let handle = try RunJournal(directory: scratch.file("journal")).start(
                try WorkflowEngine().load(path: workflowPath), on: hub, options: options, testHook: hook)
            let result = await handle.result
            hold.release()
            #expect(result.output == output, "the uninterrupted run: \(String(describing: result.error))")

            let path = try RunJournal(directory: scratch.file("journal")).path(of: Self.runID)
            let records = try JournalReader.read(path: path).records
            let entered = try #require(records.first { $0.type == "stateEntered" && $0.string("state") == "rooms" })
            let checkpoint = try #require(records.first { $0.type == "checkpoint" && $0.sequence > entered.sequence })
            try cut(path, after: checkpoint.sequence)
            let home = try #require(homes.withLock { $0[checkpoint.sequence] })
            try Data(home).write(to: URL(fileURLWithPath: homePath))
        }

        func recover(answers: [String: JSONValue]) async throws -> RunRecovery {
            let clock = VirtualClock()
            let hub = try SimulatedHub(stateStore: try HomeStateStore(directory: stateDirectory, startingFrom: Homes.basic()), clock: clock)
            var options = RecoveryOptions(resume: true, clock: clock)
            options.answers = answers
            return try #require(try await RunJournal(directory: scratch.file("journal")).recover(on: hub, options: options).runs.first)
        }

        func journalText() throws -> String { String(decoding: try JournalFile.readAll(journalPath), as: UTF8.self) }

        func finished() throws -> RunFinishedEntry? { try JournalReader.read(path: journalPath).entries().finished }

        func sessionActive() throws -> Bool { try HomeStateStore.loadSaved(directory: stateDirectory)?.activeSession != nil }
    }

    @Test("the answered record keeps a salted digest of the secret answer; the checkpoints keep it redacted")
    func digestKept() async throws {
        let crashed = try await Crashed()
        defer { crashed.scratch.remove() }
        let text = try crashed.journalText()
        #expect(!text.contains(Self.pin))
        let entries = try JournalReader.read(path: crashed.journalPath).entries()
        let started = try #require(entries.started?.entry)
        let key = try #require(try SecretDigestKey.load(fromDirectory: crashed.journalDirectory))
        let digests = try #require(started.secretDigests?.withKey(key))
        let answered = entries.compactMap { record -> JournalEventEntry? in
            guard case .event(let event) = record.entry, event.name == .answered else { return nil }
            return event
        }
        #expect(answered.count == 1)
        #expect(answered.first?.details["value"]?.stringValue == RunOptions.redacted)
        #expect(answered.first?.details["digest"]?.stringValue == digests.digest(.string(Self.pin)))
        #expect(try crashed.sessionActive(), "the crash left the session held")
    }

    @Test("without the digest key, a run whose secret question is not answered yet is not resumed: its answer could not be digested")
    func keyMissingRefusesAnUnansweredSecretQuestion() async throws {
        let crashed = try await Crashed()
        defer { crashed.scratch.remove() }
        let asked = try #require(try JournalReader.read(path: crashed.journalPath).records.first { $0.type == "questionAsked" })
        try cut(crashed.journalPath, after: asked.sequence - 1)
        try FileManager.default.removeItem(atPath: crashed.journalDirectory + "/" + SecretDigestKey.fileName)
        let run = try await crashed.recover(answers: ["pin": .string(Self.pin)])
        #expect(run.action == .deferred)
        #expect(!run.resumed)
        let reason = run.notes.joined(separator: "; ")
        #expect(reason.contains("cannot be checked") && reason.contains(SecretDigestKey.fileName), "\(reason)")
        #expect(!(try crashed.journalText()).contains(Self.pin))
    }

    @Test("resumed with the answer given again, the run continues with it and succeeds; nothing shows it")
    func resumedWithTheAnswer() async throws {
        let crashed = try await Crashed()
        defer { crashed.scratch.remove() }
        let run = try await crashed.recover(answers: ["pin": .string(Self.pin)])
        #expect(run.resumed, "\(run.notes)")
        #expect(run.status == .succeeded, "\(run.notes)")
        #expect(run.notes.contains { $0.contains("secret answer to pin was given again") })
        #expect(try crashed.finished()?.output == ["samePin": true], "the resumed run held the PIN it was answered")
        #expect(!(try crashed.journalText()).contains(Self.pin), "the resumed run's records redact the PIN too")
        #expect(!run.notes.joined().contains(Self.pin))
        #expect(try !crashed.sessionActive())
    }

    @Test("another answer is refused before recovery writes or calls anything; the right one then resumes")
    func wrongAnswerRefused() async throws {
        let crashed = try await Crashed()
        defer { crashed.scratch.remove() }
        let journalBefore = try crashed.journalText()
        let refused = try await crashed.recover(answers: ["pin": "111111"])
        #expect(refused.action == .deferred)
        #expect(refused.status == .needsAttention)
        #expect(!refused.resumed)
        let reason = refused.notes.joined(separator: "; ")
        #expect(reason.contains("resume refused") && reason.contains("--answer pin"), "\(reason)")
        #expect(!reason.contains("111111") && !reason.contains(Self.pin))
        let after = try crashed.journalText()
        #expect(after.hasPrefix(journalBefore) && !after.contains("recoveryStarted"), "recovery wrote only its deferral")
        #expect(!after.contains("111111"))
        #expect(try crashed.sessionActive(), "the hub was left alone")

        let resumed = try await crashed.recover(answers: ["pin": .string(Self.pin)])
        #expect(resumed.resumed && resumed.status == .succeeded, "\(resumed.notes)")
    }

    @Test("without the answer, the run takes its cancel path and the note names the --answer to give")
    func withoutTheAnswer() async throws {
        let crashed = try await Crashed()
        defer { crashed.scratch.remove() }
        let run = try await crashed.recover(answers: [:])
        #expect(!run.resumed)
        #expect(run.status == .cancelled, "\(run.notes)")
        let notes = run.notes.joined(separator: "; ")
        #expect(notes.contains("vars.pin") && notes.contains("--answer pin="), "\(notes)")
        #expect(try !crashed.sessionActive(), "the cancel path released the session")
    }
}
