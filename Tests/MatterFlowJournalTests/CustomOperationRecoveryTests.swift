import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// A catalog's own operations: their intents keep every fact recovery reasons with, and recovery judges them by
/// those facts rather than by the standard operations' names.
@Suite("custom operations across recovery")
struct CustomOperationRecoveryTests {
    static let runID = "run-0000000c0570"

    /// A session-scoped write the hub recognises by its `tagID` when repeated.
    static let tagSession = OperationDescriptor(
        name: "tagSession", summary: "tags the open session", arguments: [.init("tagID", .string, required: true, "the tag")],
        result: .object([]), errors: [], defaultTimeoutSeconds: 5, effect: .nonIdempotentWrite,
        requires: [OrderRequirement(.session, ["prepareCommissioning"])], idempotencyKey: "tagID"
    ) { _, _, _ in ["tagged": true] }

    /// A release of the service's own: it releases the session through the hub's cancel.
    static let abandonSession = OperationDescriptor(
        name: "abandonSession", summary: "gives the session up", arguments: [], result: .object([]), errors: [],
        defaultTimeoutSeconds: 5, effect: .idempotentWrite, releasesSession: true, releaseAttemptSuffices: true
    ) { hub, structure, _ in ["released": .bool(try await hub.cancelCommissioning(structure: structure))] }

    static let engine = WorkflowEngine(
        catalog: OperationCatalog(
            OperationCatalog.standard.operations + [tagSession, abandonSession], events: OperationCatalog.standard.events))

    /// The workflow; with `repeatSafe`, its tag state declares that a repeat of its call is recognised by `tagID`.
    static func workflowText(repeatSafe: Bool) -> String {
        workflowTemplate.replacingOccurrences(
            of: "REPEAT", with: repeatSafe ? #""repeatSafety": { "idempotencyKey": "tagID" },"# : "")
    }

    static let workflowTemplate = """
        {
          "workflow": "tag-and-abandon", "version": 1, "start": "prepare", "onCancel": "releaseIfOpened",
          "states": {
            "prepare": { "type": "action", "operation": "prepareCommissioning", "result": "session", "next": "tag",
                         "onError": [{ "errors": ["*"], "next": "failed" }] },
            "tag": { "type": "action", "operation": "tagSession", "arguments": { "tagID": "tag-${vars.session.sessionID}" }, REPEAT
                     "next": "abandon", "onError": [{ "errors": ["*"], "next": "release" }] },
            "abandon": { "type": "action", "operation": "abandonSession", "next": "done",
                         "onError": [{ "errors": ["*"], "next": "failed" }] },
            "done": { "type": "succeed" },
            "failed": { "type": "fail", "error": "${error}" },
            "releaseIfOpened": { "type": "choice", "choices": [{ "if": { "exists": "${vars.session}" }, "next": "release" }],
                                 "default": "cancelled" },
            "release": { "type": "action", "operation": "cancelCommissioning", "next": "cancelled",
                         "onError": [{ "errors": ["*"], "next": "cancelled" }] },
            "cancelled": { "type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "cancelled" }
          }
        }
        """

    /// A run of the workflow whose process died just before the outcome of `operation` was written (the hub
    /// had done the call): the journal and the saved home as the crash left them.
    struct Interrupted {
        let scratch: Scratch
        var journal: RunJournal { get throws { try RunJournal(directory: scratch.file("journal")) } }
        var stateDirectory: String { scratch.file("state") }

        init(before operation: String, repeatSafe: Bool = false) async throws {
            let complete = try await Self.run(crashingBefore: nil, repeatSafe: repeatSafe)
            defer { complete.remove() }
            let records = try JournalReader.read(path: complete.file("journal/\(CustomOperationRecoveryTests.runID).journal")).records
            let intent = try #require(records.first { $0.type == "intent" && $0.string("operation") == operation })
            let outcome = try #require(records.first { $0.type == "outcome" && $0.key == intent.key }).sequence
            scratch = try await Self.run(crashingBefore: outcome, repeatSafe: repeatSafe)
        }

        /// Runs the workflow journaled in a new scratch directory; with `sequence`, keeps the journal and the saved
        /// home as they were just before that record was written.
        private static func run(crashingBefore sequence: Int?, repeatSafe: Bool) async throws -> Scratch {
            let scratch = try Scratch()
            let path = scratch.file("tag-and-abandon.json")
            try CustomOperationRecoveryTests.workflowText(repeatSafe: repeatSafe).write(toFile: path, atomically: true, encoding: .utf8)
            let workflow = try CustomOperationRecoveryTests.engine.load(path: path)
            let homePath = scratch.file("state/" + HomeStateStore.fileName)
            let saved = scratch.file("home-at-crash.json")
            let hook: JournalTestHook = { boundary in
                if boundary.position == .before, boundary.sequence == sequence {
                    try? FileManager.default.copyItem(atPath: homePath, toPath: saved)
                }
                return .proceed
            }
            let clock = VirtualClock()
            let store = try HomeStateStore(directory: scratch.file("state"), startingFrom: Homes.basic())
            let hub = try SimulatedHub(stateStore: store, clock: clock)
            let journal = try RunJournal(directory: scratch.file("journal"))
            let hold = ClockHold(clock)
            let handle = try journal.start(
                workflow, on: hub, options: RunOptions(structureID: Homes.structureID, clock: clock, runID: CustomOperationRecoveryTests.runID),
                engine: CustomOperationRecoveryTests.engine, testHook: hook)
            let result = await handle.result
            hold.release()
            #expect(result.outcome == .succeeded, "\(result.error.map { "\($0)" } ?? "")")
            guard let sequence else { return scratch }
            try cut(journal.path(of: CustomOperationRecoveryTests.runID), after: sequence - 1)
            try FileManager.default.removeItem(atPath: homePath)
            try FileManager.default.copyItem(atPath: saved, toPath: homePath)
            return scratch
        }

        func recover(resume: Bool = false) async throws -> RunRecovery {
            let clock = VirtualClock()
            let hub = try SimulatedHub(stateStore: try HomeStateStore(directory: stateDirectory, startingFrom: Homes.basic()), clock: clock)
            let options = RecoveryOptions(resume: resume, engine: CustomOperationRecoveryTests.engine, clock: clock)
            return try #require(await journal.recover(on: hub, options: options).runs.first)
        }

        func entries() throws -> JournalEntries {
            try JournalReader.read(path: try journal.path(of: CustomOperationRecoveryTests.runID)).entries()
        }
    }

    @Test("an in-doubt call of a custom operation keeps its order rules and idempotency key through recovery")
    func customIntentKeepsItsFacts() async throws {
        let interrupted = try await Interrupted(before: "tagSession")
        defer { interrupted.scratch.remove() }
        let run = try await interrupted.recover()
        #expect(run.status == .cancelled, "\(run.notes)")

        let entries = try interrupted.entries()
        let sessionID = try #require(entries.outcomes.first { $0.operation == "prepareCommissioning" }?.value?["sessionID"]?.stringValue)
        let tag = try #require(entries.intents.first { $0.intent.operation == "tagSession" }?.intent)
        #expect(tag.requires == [OrderRequirement(.session, ["prepareCommissioning"])])
        #expect(tag.usesSession)
        #expect(tag.releaseAttemptSuffices == false)
        #expect(tag.idempotencyKey == IntentEntry.IdempotencyKey(argument: "tagID", value: .string("tag-\(sessionID)")))
        #expect(tag.sessionID == sessionID, "the intent says which session the call was made in")
        let resolution = try #require(entries.resolutions.first { $0.resolution.key == tag.key })
        #expect(resolution.resolution.verdict == .unknown)
        #expect(resolution.state == "tag" && resolution.workflow == "tag-and-abandon")

        // The workflow's cancel path released the session, inside it.
        let recovery = try #require(entries.firstIndex { if case .recoveryStarted = $0.entry { true } else { false } })
        let release = try #require(entries[recovery...].compactMap { record -> IntentEntry? in
            if case .intent(let intent) = record.entry, intent.operation == "cancelCommissioning" { return intent }
            return nil
        }.first)
        #expect(release.sessionID == sessionID && release.releasesSession && release.releaseAttemptSuffices == true)
        #expect(try HomeStateStore.loadSaved(directory: interrupted.stateDirectory)?.activeSession == nil)
    }

    @Test("an in-doubt release by a custom operation is judged by what its intent recorded: applied once the session is gone")
    func customReleaseApplied() async throws {
        let interrupted = try await Interrupted(before: "abandonSession")
        defer { interrupted.scratch.remove() }
        #expect(try HomeStateStore.loadSaved(directory: interrupted.stateDirectory)?.activeSession == nil, "the hub had released it")
        let run = try await interrupted.recover(resume: true)
        let resolution = try #require(run.resolutions.first { $0.operation == "abandonSession" })
        #expect(resolution.verdict == .applied, "\(resolution.evidence)")
        #expect(!run.notes.contains { $0.contains("no longer active") }, "the run released its session itself: \(run.notes)")
        #expect(run.notes.contains { $0.contains("abandonSession took effect but its result could not be read back") }, "\(run.notes)")
        #expect(run.status == .cancelled)
        #expect(try HomeStateStore.loadSaved(directory: interrupted.stateDirectory)?.activeSession == nil)
    }

    @Test("resume makes an in-doubt call again only when its state declares repeatSafety, with the key the hub saw")
    func repeatSafeResume() async throws {
        let unsafe = try await Interrupted(before: "tagSession")
        defer { unsafe.scratch.remove() }
        let refused = try await unsafe.recover(resume: true)
        #expect(!refused.resumed && refused.status == .cancelled)
        #expect(refused.notes.contains { $0.contains("whether tagSession took effect cannot be told from the hub") }, "\(refused.notes)")

        let safe = try await Interrupted(before: "tagSession", repeatSafe: true)
        defer { safe.scratch.remove() }
        let run = try await safe.recover(resume: true)
        #expect(run.resumed, "\(run.notes)")
        #expect(run.status == .succeeded, "\(run.notes)")
        #expect(run.notes.contains { $0.contains("declares repeatSafety") }, "\(run.notes)")
        let tags = try safe.entries().intents.map(\.intent).filter { $0.operation == "tagSession" }
        #expect(tags.count == 2)
        #expect(tags.first?.idempotencyKey != nil && tags.first?.idempotencyKey == tags.last?.idempotencyKey, "the repeat carries the key the hub saw")
        #expect(try HomeStateStore.loadSaved(directory: safe.stateDirectory)?.activeSession == nil)
    }

    @Test("the repeat of an in-doubt call is refused when its idempotency key is not the value the hub saw")
    func repeatWithAnotherKeyRefused() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let workflow = try WorkflowEngine().load(path: Repository.workflow("prepare"))
        let inDoubt = IntentEntry(
            key: "run-1/2", workflow: "w", state: "tag", operation: "tagSession", structureID: Homes.structureID, attempt: 1,
            arguments: ["tagID": "tag-a"], effect: .nonIdempotentWrite, acquiresSession: false, releasesSession: false,
            requires: Self.tagSession.requires, releaseAttemptSuffices: false,
            idempotencyKey: .init(argument: "tagID", value: "tag-a"), sessionID: nil)
        let hub = try SimulatedHub(home: Homes.basic(), clock: VirtualClock())
        func call(_ tag: String, number: Int) -> PreparedCall {
            PreparedCall(
                workflowPath: ["w"], state: "tag", attempt: 1, operation: Self.tagSession, shownArguments: ["tagID": .string(tag)],
                context: HubCallContext(runID: "run-1", idempotencyKey: "run-1/\(number)"))
        }
        for (tag, refused) in [("tag-b", true), ("tag-a", false)] {
            let recorder = JournalRecorder(
                writer: try JournalWriter(creating: scratch.file("\(tag).journal"), hook: nil), runID: "run-1", workflow: workflow,
                structureID: Homes.structureID, showSecrets: false, hub: hub, repeating: inDoubt)
            switch await recorder.callStarting(call(tag, number: 3)) {
            case .failure(let error)?:
                #expect(refused, "\(error)")
                #expect(error.cause == .invalidArgumentValue)
                #expect(error.message.contains("run-1/2"), "\(error)")
            case .success?, nil:
                #expect(!refused, "a repeat with tagID \(tag) was made")
            }
            // Only the first call is the repeat: a later call with another tag is made.
            #expect(await recorder.callStarting(call("tag-c", number: 4)) == nil)
        }
    }
}
