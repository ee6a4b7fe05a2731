import Foundation
@testable import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// The journal is fed by the run's driver: each intent carries the context the run's machine gave the call.
@Suite("journal fed by the run's driver")
struct RunRecordingTests {
    @Test("intents carry the machine's call keys in order, and session calls the session the run's prepare opened")
    func intentsCarryTheRunsContext() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let journal = try RunJournal(directory: scratch.path)
        let clock = VirtualClock()
        let hub = try SimulatedHub(home: Homes.basic(), clock: clock)
        let result = try await journaledCommission(journal: journal, hub: hub, clock: clock)
        #expect(result.outcome == .succeeded)
        let entries = try journal.read(runID: result.runID).entries()
        let intents = entries.intents.map(\.intent)
        #expect(intents.map(\.key) == (1...intents.count).map { "\(result.runID)/\($0)" })
        let session = try #require(entries.outcomes.first { $0.operation == "prepareCommissioning" }?.value?["sessionID"]?.stringValue)
        for intent in intents {
            #expect(intent.sessionID == (intent.usesSession ? session : nil), "\(intent.operation)")
        }
        #expect(intents.contains { $0.usesSession }, "the run made session calls")
        #expect(entries.outcomes.map(\.key) == intents.map(\.key), "every call has its outcome, under its intent's key")
    }

    @Test("a late result is journaled under the call's key with its secret fields redacted, and nothing after the run's end")
    func lateResultsAreJournaled() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("run-late.journal")
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        let recorder = JournalRecorder(
            writer: try JournalWriter(creating: path, hook: nil), runID: "run-late", workflow: workflow,
            structureID: Homes.structureID, showSecrets: false, hub: try SimulatedHub(home: Homes.basic()))
        let operation = try #require(OperationCatalog.standard["activateEpskc"])
        let call = PreparedCall(
            workflowPath: ["w"], state: "share", attempt: 1, operation: operation, shownArguments: [:],
            context: HubCallContext(runID: "run-late", idempotencyKey: "run-late/3"))
        recorder.lateResult(call, value: ["epskc": "123456789", "expiresInSeconds": 600])
        recorder.record(RunEvent(runID: "run-late", time: .zero, workflowPath: ["w"], kind: .runFinished(outcome: .failed, error: nil, holdsSession: false)))
        recorder.lateResult(call, value: ["epskc": "987654321", "expiresInSeconds": 600])
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!text.contains("123456789") && !text.contains("987654321"), "the key never reaches the journal")
        let late = try JournalReader.read(path: path).entries().compactMap { record -> LateResultEntry? in
            if case .lateResult(let late) = record.entry { late } else { nil }
        }
        #expect(late.count == 1, "one late result, and none after runFinished")
        #expect(late.first?.key == "run-late/3")
        #expect(late.first?.operation == "activateEpskc")
        #expect(late.first?.result["epskc"]?.stringValue == RunOptions.redacted)
    }

    @Test("a secret value inside another argument or in a result the hub echoes is redacted from intents and outcomes")
    func secretsAreRedactedByValueFromCallRecords() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        try #"""
            {"workflow": "echo", "version": 1, "start": "prepare", "onCancel": "release",
             "inputs": {"onboardingPayload": {"type": "onboardingPayload", "required": true},
                        "token": {"type": "string", "required": true, "secret": true}},
             "states": {
              "prepare": {"type": "workflow", "path": "\#(Repository.workflow("prepare"))", "next": "request", "onError": [{"errors": ["*"], "next": "failed"}]},
              "request": {"type": "workflow", "path": "\#(Repository.workflow("add-device"))", "next": "commission", "onError": [{"errors": ["*"], "next": "failed"}]},
              "commission": {"type": "action", "operation": "commissionDevice", "result": "commissioned", "next": "release",
                             "arguments": {"onboardingPayload": "${input.onboardingPayload}", "commissioningID": "cid-${input.token}"},
                             "onError": [{"errors": ["*"], "next": "remember"}]},
              "remember": {"type": "assign", "set": {"failure": "${error}"}, "next": "releaseAfterFailure"},
              "releaseAfterFailure": {"type": "workflow", "path": "\#(Repository.workflow("cancel"))", "next": "failedAfterRelease", "onError": [{"errors": ["*"], "next": "failedAfterRelease"}]},
              "failedAfterRelease": {"type": "fail", "error": "${vars.failure}"},
              "release": {"type": "workflow", "path": "\#(Repository.workflow("cancel"))", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
             }}
            """#.write(toFile: scratch.file("echo.json"), atomically: true, encoding: .utf8)
        let workflow = try WorkflowEngine().load(path: scratch.file("echo.json"))
        let journal = try RunJournal(directory: scratch.file("journal"))
        let clock = VirtualClock()
        let hub = try SimulatedHub(home: Homes.basic(), clock: clock)
        let hold = ClockHold(clock)
        let result = try await journal.run(
            workflow, inputs: ["onboardingPayload": .string(Payloads.specQR), "token": "tok-5bd1e0c3"], on: hub,
            options: RunOptions(structureID: Homes.structureID, clock: clock, runID: "run-echo"))
        hold.release()
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        let entries = try journal.read(runID: "run-echo").entries()
        let intent = try #require(entries.intents.map(\.intent).first { $0.operation == "commissionDevice" })
        #expect(intent.arguments["commissioningID"] == .string("cid-\(RunOptions.redacted)"))
        let outcome = try #require(entries.outcomes.first { $0.operation == "commissionDevice" })
        #expect(outcome.value?["commissioningID"] == .string("cid-\(RunOptions.redacted)"), "the hub's echo of the argument")
        let files = try FileManager.default.contentsOfDirectory(atPath: scratch.file("journal"))
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: scratch.file("journal/" + file)))
            #expect(!String(decoding: bytes, as: UTF8.self).contains("5bd1e0c3"), "\(file)")
        }
    }
}
