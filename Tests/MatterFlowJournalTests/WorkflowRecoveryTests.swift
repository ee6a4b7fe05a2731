import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// Recovery through the run's own workflow: restored from its last checkpoint, it takes its `onCancel` states, or
/// with `resume` continues from where it stopped.
@Suite("recovery through the workflow")
struct WorkflowRecoveryTests {
    static let payload: JSONObject = ["onboardingPayload": .string(Payloads.specQR)]

    static func records(_ scenario: CrashScenario) throws -> [JournalRecord] {
        try JournalReader.read(path: try scenario.journal().path(of: scenario.runID)).records
    }

    @Test("the cancel path is the workflow's own: its onCancel states run, innermost level first")
    func workflowCancelPath() async throws {
        let outcome = try await RecoveryTests.sequence(of: JournalEntry.Kind.outcome.rawValue, "commissionDevice")
        let scenario = try await CrashScenario(position: .after, sequence: outcome)
        defer { scenario.scratch.remove() }
        let device = try #require(try scenario.savedHome()?.activeSession?.deviceIDs.first)
        let run = try #require(try await scenario.recover().runs.first)
        #expect(run.status == .cancelled)
        #expect(run.releasedSession)
        #expect(!run.resumed)

        let records = try Self.records(scenario)
        let recovery = try #require(records.firstIndex { $0.type == JournalEntry.Kind.recoveryStarted.rawValue })
        let entered = records[recovery...].filter { $0.type == "stateEntered" }.map {
            ($0.string("workflow") ?? "") + ":" + ($0.string("state") ?? "")
        }
        // The commission level releases first (its onCancel), then the top level's cancel path.
        let release = try #require(entered.firstIndex(of: "commission-device/commission:release"), "\(entered)")
        let top = try #require(entered.firstIndex(of: "commission-device:cancelIfPrepared"), "\(entered)")
        #expect(release < top)
        // The calls are the workflow's, journaled with keys that continue the run's.
        let calls = records[recovery...].filter { $0.type == JournalEntry.Kind.intent.rawValue }
        #expect(calls.first?.string("workflow") == "commission-device/commission")
        #expect(calls.first?.key == "\(scenario.runID)/4")
        let finished = try #require(records.last { $0.type == JournalEntry.Kind.runFinished.rawValue })
        #expect(finished.payload["recovered"]?.boolValue == true)
        #expect(finished.payload["holdsSession"]?.boolValue == false, "the cancel path released the session")
        #expect(finished.payload["error"]?["message"]?.stringValue?.contains("recovery took the workflow's cancel path") == true)
        #expect(records.last?.type == JournalEntry.Kind.recoveryFinished.rawValue)

        let home = try #require(try scenario.savedHome())
        #expect(home.activeSession == nil)
        #expect(!home.devices.map(\.id).contains(device))
    }

    @Test("resume continues mid-workflow: commissioning finishes with the device named and placed")
    func resumeMidWorkflow() async throws {
        let outcome = try await RecoveryTests.sequence(of: JournalEntry.Kind.outcome.rawValue, "commissionDevice")
        let scenario = try await CrashScenario(position: .after, sequence: outcome)
        defer { scenario.scratch.remove() }
        let device = try #require(try scenario.savedHome()?.activeSession?.deviceIDs.first)
        let run = try #require(try await scenario.recover(resume: true, inputs: Self.payload).runs.first)
        #expect(run.status == .succeeded, "\(run.notes)")
        #expect(run.resumed)
        #expect(!run.releasedSession)

        let home = try #require(try scenario.savedHome())
        #expect(home.activeSession == nil)
        let added = try #require(home.devices.first { $0.id == device })
        #expect(added.name == "Lamp")
        #expect(added.room == "Kitchen")
        let records = try Self.records(scenario)
        // commissionDevice is not called again: its journaled outcome stands.
        #expect(records.filter { $0.type == JournalEntry.Kind.intent.rawValue && $0.string("operation") == "commissionDevice" }.count == 1)
        let finished = try #require(records.last { $0.type == JournalEntry.Kind.runFinished.rawValue })
        #expect(finished.string("outcome") == "succeeded")
        #expect(finished.payload["holdsSession"]?.boolValue == false, "completing the commissioning released the session")
        #expect(finished.payload["output"]?["deviceIDs"] == [.string(device)])
        // The re-supplied secret is kept out of the journal like the original.
        let text = String(decoding: try JournalFile.readAll(try scenario.journal().path(of: scenario.runID)), as: UTF8.self)
        #expect(!text.contains(Payloads.specQR))
    }

    @Test("resume without the secret inputs the rest of the run needs takes the cancel path and says what to pass")
    func resumeNeedsSecrets() async throws {
        let outcome = try await RecoveryTests.sequence(of: JournalEntry.Kind.outcome.rawValue, "prepareCommissioning")
        let scenario = try await CrashScenario(position: .after, sequence: outcome)
        defer { scenario.scratch.remove() }
        let run = try #require(try await scenario.recover(resume: true).runs.first)
        #expect(run.status == .cancelled)
        #expect(!run.resumed)
        #expect(run.releasedSession)
        #expect(run.notes.contains { $0.contains("input.onboardingPayload") && $0.contains("--input") }, "\(run.notes)")
        #expect(try scenario.savedHome()?.activeSession == nil)
    }

    @Test("resume at every journal boundary: the run finishes, nothing is left held, every device is journaled")
    func resumeEveryBoundary() async throws {
        let total = try await RecoveryTests.recordCount()
        var succeeded = 0
        var unreadable: [String] = []
        for sequence in 1...total {
            for position in [JournalBoundary.Position.before, .after] {
                let scenario = try await CrashScenario(position: position, sequence: sequence)
                defer { scenario.scratch.remove() }
                let label = "\(position):\(sequence)"
                let report = try await scenario.recover(resume: true, inputs: Self.payload)
                let run = try #require(report.runs.first, "\(label)")
                #expect(!report.needsAttention, "\(label): \(run.notes)")
                // No saved home: the run stopped before the hub saw anything.
                let home = try scenario.savedHome() ?? Homes.basic()
                #expect(home.activeSession == nil, "\(label): a session was left active")
                let records = try Self.records(scenario)
                let created = Set(
                    records.flatMap { $0.payload["devices"]?.arrayValue?.compactMap(\.stringValue) ?? [] }
                        + records.flatMap { $0.payload["result"]?["deviceIDs"]?.arrayValue?.compactMap(\.stringValue) ?? [] })
                for device in home.devices {
                    #expect(created.contains(device.id), "\(label): device \(device.id) has no journal record of its creation")
                }
                guard run.action == .recovered else { continue }
                // Resuming is safe everywhere in commission-device once the payload is given again, except where
                // the add-device request took effect unrecorded: its request ID cannot be read back from the hub.
                if run.notes.contains(where: { $0.contains("createAddDeviceRequest took effect but its result could not be read back") }) {
                    #expect(run.status == .cancelled, "\(label)")
                    unreadable.append(label)
                } else {
                    #expect(run.status == .succeeded, "\(label): \(run.status) \(run.notes)")
                }
                if run.status == .succeeded {
                    succeeded += 1
                    #expect(home.devices.contains { $0.name == "Lamp" && $0.room == "Kitchen" }, "\(label)")
                }
                let before = try scenario.bytes()
                #expect(try await scenario.recover(resume: true, inputs: Self.payload).recovered.isEmpty, "\(label)")
                #expect(try scenario.bytes().journal == before.journal, "\(label): recovering twice changed the journal")
            }
        }
        #expect(succeeded > total)
        let request = try await RecoveryTests.sequence(of: JournalEntry.Kind.outcome.rawValue, "createAddDeviceRequest")
        #expect(unreadable == ["before:\(request)"])
    }

    /// A run of a copy of the shipped workflows, interrupted after commissionDevice's outcome, whose rooms.json was
    /// edited since; returns the copy, the scenario and rooms.json as the run started with it.
    static func changedUnderTheRun() async throws -> (copy: Scratch, scenario: CrashScenario, original: String) {
        let copy = try Scratch()
        do {
            for name in try FileManager.default.contentsOfDirectory(atPath: Repository.root + "/Workflows") where name.hasSuffix(".json") {
                try FileManager.default.copyItem(atPath: Repository.root + "/Workflows/" + name, toPath: copy.file(name))
            }
            let outcome = try await RecoveryTests.sequence(of: JournalEntry.Kind.outcome.rawValue, "commissionDevice")
            let scenario = try await CrashScenario(position: .after, sequence: outcome, workflowPath: copy.file("commission-device.json"))
            let original = try String(contentsOfFile: copy.file("rooms.json"), encoding: .utf8)
            try original.replacingOccurrences(of: "\"description\": \"", with: "\"description\": \"Edited since. ")
                .write(toFile: copy.file("rooms.json"), atomically: true, encoding: .utf8)
            return (copy, scenario, original)
        } catch {
            copy.remove()
            throw error
        }
    }

    @Test("a workflow file changed since the run: recovery releases the session itself and says why")
    func changedWorkflow() async throws {
        let (copy, scenario, _) = try await Self.changedUnderTheRun()
        defer { copy.remove(); scenario.scratch.remove() }

        let run = try #require(try await scenario.recover(resume: true, inputs: Self.payload).runs.first)
        #expect(run.status == .cancelled)
        #expect(run.releasedSession)
        #expect(run.notes.contains { $0.contains("changed since the run started") }, "\(run.notes) \(run.status)")
        #expect(try scenario.savedHome()?.activeSession == nil)
    }

    @Test("with a person there (recover --resume), a workflow file changed since the run leaves the run where it stopped, holding its session, until the file is restored")
    func changedWorkflowWithAPersonThere() async throws {
        let (copy, scenario, original) = try await Self.changedUnderTheRun()
        defer { copy.remove(); scenario.scratch.remove() }

        let refused = try #require(try await scenario.recover(resume: true, inputs: Self.payload, keepsRunsItCannotResume: true).runs.first)
        #expect(refused.action == .deferred, "\(refused.notes)")
        #expect(refused.notes.last?.hasPrefix("resume refused: the workflow file ") == true, "\(refused.notes)")
        #expect(refused.notes.last?.contains("restore the file as it was when the run started") == true)
        #expect(try scenario.savedHome()?.activeSession != nil, "the commissioning was not undone")

        try original.write(toFile: copy.file("rooms.json"), atomically: true, encoding: .utf8)
        let resumed = try #require(try await scenario.recover(resume: true, inputs: Self.payload, keepsRunsItCannotResume: true).runs.first)
        #expect(resumed.status == .succeeded && resumed.resumed, "\(resumed.notes)")
        #expect(try scenario.savedHome()?.activeSession == nil)
    }

    @Test("a resume point that does not fit the workflow is refused with the state it names")
    func mismatchedResumePoint() async throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device"))
        let hub = try SimulatedHub(home: Homes.basic(), clock: VirtualClock())
        let point = ResumePoint(
            levels: [RunCheckpoint(workflowPath: ["commission-device"], state: "teleport", inputs: [:], variables: [:])],
            cancel: true)
        #expect {
            try WorkflowEngine().resume(workflow, from: point, on: hub, options: RunOptions(structureID: Homes.structureID))
        } throws: { error in
            let flowError = error as? FlowError
            return flowError?.cause == .invalidArgumentValue && flowError?.message.contains("no state \"teleport\"") == true
        }
    }
}

/// Secret inputs given again for a resume are read as their declared type, as `run --input` reads them.
@Suite("resume inputs")
struct ResumeInputTests {
    static let workflowText = """
        {
          "workflow": "pin-check",
          "version": 1,
          "inputs": { "pin": { "type": "integer", "required": true, "secret": true } },
          "start": "check",
          "states": {
            "check": { "type": "choice", "choices": [ { "if": { "greaterThan": ["${input.pin}", 0] }, "next": "done" } ], "default": "done" },
            "done": { "type": "succeed" }
          }
        }
        """

    static func plan(given pin: String) throws -> ResumePlan {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("pin-check.json")
        try workflowText.write(toFile: path, atomically: true, encoding: .utf8)
        let workflow = try WorkflowEngine().load(path: path)
        let started = RunStartedEntry(
            runID: "run-0000000000a1", workflow: workflow.name, version: workflow.version, file: path,
            contentHash: workflow.contentHash, structureID: "home", inputs: ["pin": .string(RunOptions.redacted)],
            secretsShown: false, pid: 1, format: JournalFrame.formatVersion)
        let planner = ResumePlanner(
            entries: JournalEntries([JournalEntryRecord(sequence: 1, wallTime: 0, entry: .runStarted(started))]), started: started,
            resolutions: [], options: RecoveryOptions(resume: true, inputs: ["pin": .string(pin)]))
        switch planner.plan() {
        case .success(let plan): return plan
        case .failure(let unrunnable): throw FlowError(.hubFailure, unrunnable.reason)
        }
    }

    @Test("an integer secret given as text resumes as an integer; text that is not one makes resuming unsafe")
    func typedSecretInput() throws {
        let typed = try Self.plan(given: "4021")
        #expect(typed.unsafeBecause == nil)
        #expect(typed.point.levels.first?.inputs["pin"] == .int(4021))
        let wrong = try Self.plan(given: "four")
        #expect(wrong.unsafeBecause?.contains("input \"pin\" must be an integer, got a value not shown here") == true, "\(wrong.unsafeBecause ?? "")")
        #expect(wrong.unsafeBecause?.contains("four") == false, "the secret's text is never quoted back")
        #expect(wrong.point.levels.first?.inputs["pin"] == nil)
    }
}
