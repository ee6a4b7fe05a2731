import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// Typed journal entries: every kind survives the file, and a record whose members do not decode is reported
/// where it is, never read with a default.
@Suite("journal entries")
struct JournalEntryCodecTests {
    static let error = FlowError(code: .failedPrecondition, cause: .noActiveSession, message: "no session", state: "commission")

    /// One entry of every kind (every record type and every journaled event), with optional members both set and
    /// left out.
    static let everyKind: [JournalEntry] = {
        var entries: [JournalEntry] = [
            .runStarted(
                RunStartedEntry(
                    runID: "run-1", workflow: "commission-device", version: 3, file: "/w/commission-device.json",
                    contentHash: "ab12", structureID: "home", inputs: ["onboardingPayload": .string(RunOptions.redacted)],
                    secretsShown: false, pid: 4242, format: JournalFrame.formatVersion,
                    secretDigests: SecretDigests(salt: "00ff", inputs: ["onboardingPayload": "digest"]))),
            .runStarted(
                RunStartedEntry(
                    runID: "run-2", workflow: "rooms", version: 1, file: "/w/rooms.json", contentHash: "cd34", structureID: "home",
                    inputs: [:], secretsShown: true, pid: 1, format: JournalFrame.formatVersion, secretDigests: nil)),
            .checkpoint(
                RunCheckpoint(
                    workflowPath: ["commission-device", "commission"], state: "commission", inputs: ["a": 1],
                    variables: ["session": ["sessionID": "s-1"]], error: error, cancelledIn: "configure", shielded: true)),
            .checkpoint(RunCheckpoint(workflowPath: ["prepare"], state: "prepare", inputs: [:], variables: [:])),
            .intent(
                IntentEntry(
                    key: "run-1/3", workflow: "commission-device/commission", state: "commission", operation: "tagDevice",
                    structureID: "home", attempt: 2, arguments: ["tagID": "t-9"], effect: .nonIdempotentWrite,
                    acquiresSession: false, releasesSession: false,
                    requires: [OrderRequirement(.session, ["commissionDevice", "configureDevice"]), OrderRequirement(.supportCheck, ["readBorderRouter"])],
                    releaseAttemptSuffices: false, idempotencyKey: .init(argument: "tagID", value: "t-9"), sessionID: "s-1")),
            .intent(
                IntentEntry(
                    key: "run-1/1", workflow: "prepare", state: "prepare", operation: "somethingUnknown", structureID: "home",
                    attempt: 1, arguments: [:], effect: nil, acquiresSession: true, releasesSession: false, requires: nil,
                    releaseAttemptSuffices: nil, idempotencyKey: nil, sessionID: nil)),
            .intent(
                IntentEntry(
                    key: "run-1/2", workflow: "update-firmware", state: "startUpdate", operation: "readBatteryLevel", structureID: "home",
                    attempt: 1, arguments: ["deviceID": "d-1"], effect: .read, acquiresSession: false, releasesSession: false, requires: [],
                    releaseAttemptSuffices: false, idempotencyKey: nil, sessionID: nil, guardName: "deviceCharged")),
            .outcome(
                OutcomeEntry(
                    key: "run-1/3", workflow: "commission-device", state: "commission", operation: "commissionDevice",
                    attempt: 1, durationSeconds: 1.25, result: .success(["commissioningID": "c-1"]), devices: ["device-1"])),
            .outcome(
                OutcomeEntry(
                    key: "run-1/4", workflow: "recovery", state: "release", operation: "cancelCommissioning", attempt: 1,
                    durationSeconds: nil, result: .failure(error), devices: nil)),
            .lateResult(LateResultEntry(key: "run-1/5", operation: "prepareCommissioning", result: ["sessionID": "s-2"], devices: nil)),
            .lateResult(LateResultEntry(key: "run-1/6", operation: "commissionDevice", result: [:], devices: ["device-2"])),
            .runFinished(RunFinishedEntry(outcome: .failed, error: error, output: nil, recovered: false, holdsSession: false)),
            .runFinished(RunFinishedEntry(outcome: .succeeded, error: nil, output: nil, recovered: false, holdsSession: true)),
            .runFinished(RunFinishedEntry(outcome: .succeeded, error: nil, output: ["deviceIDs": ["device-1"]], recovered: true, holdsSession: nil)),
            .recoveryStarted(RecoveryStartedEntry(mode: .resume, pid: 77, lastSequence: 12, interruptedIn: "commission/commission")),
            .recoveryStarted(RecoveryStartedEntry(mode: .cancel, pid: 78, lastSequence: 0, interruptedIn: nil)),
            .tornTailDiscarded(JournalContents.TornTail(offset: 512, length: 17, reason: "the record's checksum does not match its payload")),
            .resolution(
                ResolutionEntry(
                    resolution: Resolution(
                        key: "run-1/3", operation: "commissionDevice", verdict: .applied, evidence: "session s-1 is commissioned",
                        devices: ["device-1"], result: ["commissioningID": "c-1"]),
                    workflow: "commission-device/commission", state: "commission")),
            .resolution(
                ResolutionEntry(
                    resolution: Resolution(key: "run-1/7", operation: "tagDevice", verdict: .unknown, evidence: "cannot tell", devices: [], result: nil),
                    workflow: "w", state: "s")),
            .recoveryDeferred(reason: "the hub could not be read"),
            .recoveryFinished(RecoveryFinishedEntry(outcome: .cancelled, resumed: false, releasedSession: true, resolutions: 2)),
        ]
        for name in JournalEventEntry.Name.allCases {
            let state: String? = name == .transitionTaken ? nil : "configure"
            let details: JSONObject = name == .transitionTaken ? ["from": "a", "to": "b", "edge": "next"] : ["guard": "permission", "passed": true]
            entries.append(.event(JournalEventEntry(name: name, workflow: "commission-device", state: state, clockTime: 2.5, details: details)))
        }
        entries.append(
            .runStarted(
                RunStartedEntry(
                    runID: "run-3", workflow: "commission-device", version: 3, file: "/w/commission-device.json",
                    contentHash: "ab12", structureID: "home", inputs: ["onboardingPayload": .string(RunOptions.redacted)],
                    secretsShown: false, pid: 4242, format: JournalFrame.formatVersion,
                    secretDigests: SecretDigests(salt: "00ff", scheme: .keyed(keyID: "0123456789abcdef"), inputs: ["onboardingPayload": "digest"]))))
        entries.append(
            .checkpoint(
                RunCheckpoint(
                    workflowPath: ["commission-device"], state: "prepare", inputs: [:], variables: [:],
                    retry: StepRetries(attempt: 4, used: [2, 0, 1], delaySeconds: 2.5))))
        entries.append(
            .checkpoint(
                RunCheckpoint(
                    workflowPath: ["commission-device"], state: "prepare", inputs: [:], variables: [:],
                    retry: StepRetries(attempt: 2, used: [1]))))
        return entries
    }()

    /// A journal file holding `payloads`, framed and checksummed as the writer frames them.
    static func journal(_ payloads: [JSONObject], in scratch: Scratch) throws -> String {
        let path = scratch.file("run-x.journal")
        var bytes = Array(JournalFrame.header.utf8)
        for payload in payloads { bytes += JournalFrame.encode(payload) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("every kind of entry reads back from the file exactly as it was written")
    func roundTrip() throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        let path = scratch.file("run-1.journal")
        let writer = try JournalWriter(creating: path, hook: nil)
        for entry in Self.everyKind { try writer.append(entry) }
        writer.close()

        let entries = try JournalReader.read(path: path).entries()
        #expect(entries.map(\.entry) == Self.everyKind)
        #expect(entries.map(\.sequence) == Array(1...Self.everyKind.count))
        let types = Set(entries.map(\.entry.type))
        #expect(types == Set(JournalEntry.Kind.allCases.map(\.rawValue) + JournalEventEntry.Name.allCases.map(\.rawValue)))
    }

    @Test("the members the format documents stay where older journals have them")
    func formatMembers() throws {
        let intent = JournalEntryCodec.fields(of: Self.everyKind[4])
        #expect(intent["key"] == "run-1/3" && intent["effect"] == "nonIdempotentWrite" && intent["arguments"]?["tagID"] == "t-9")
        #expect(intent["requires"] == [["scope": "session", "anyOf": ["commissionDevice", "configureDevice"]], ["scope": "supportCheck", "anyOf": ["readBorderRouter"]]])
        #expect(intent["idempotencyKey"] == ["argument": "tagID", "value": "t-9"])
        #expect(intent["releaseAttemptSuffices"] == false)
        let unknown = JournalEntryCodec.fields(of: Self.everyKind[5])
        #expect(unknown["effect"] == "unknown")
        #expect(unknown["requires"] == nil && unknown["idempotencyKey"] == nil, "facts the catalog did not give are not invented")
        #expect(unknown["guard"] == nil, "a state's own call names no guard")
        let guardRead = JournalEntryCodec.fields(of: Self.everyKind[6])
        #expect(guardRead["guard"] == "deviceCharged" && guardRead["operation"] == "readBatteryLevel")
        let failed = JournalEntryCodec.fields(of: Self.everyKind[8])
        #expect(failed["succeeded"] == false && failed["error"]?["code"] == "failedPrecondition" && failed["result"] == nil)
    }

    /// A run's intent record as a running MatterFlow writes it.
    static let intentPayload: JSONObject = [
        "seq": 2, "type": "intent", "wallTime": 1_796_004_580.5, "key": "run-x/1", "workflow": "prepare", "state": "prepare",
        "operation": "prepareCommissioning", "structureID": "home", "attempt": 1, "arguments": [:],
        "effect": "nonIdempotentWrite", "acquiresSession": true, "releasesSession": false,
    ]
    static let startPayload: JSONObject = [
        "seq": 1, "type": "runStarted", "wallTime": 1_796_004_580.25, "runID": "run-x", "workflow": "prepare", "version": 1,
        "file": "/nowhere/prepare.json", "contentHash": "00", "structureID": "home", "inputs": [:], "secretsShown": false,
        "pid": 1, "format": 1,
    ]

    @Test(
        "a record with a missing or mistyped member is a located error naming file, record, offset and member",
        arguments: [
            ("key", JSONValue?.none, "must be a string; it is missing"),
            ("attempt", .some("two"), "must be an integer 1 or more; got string"),
            ("attempt", .some(0), "must be an integer 1 or more; it is out of range"),
            ("acquiresSession", .some(.null), "must be a boolean; got null"),
            ("effect", .some("sometimes"), "must be one of read, idempotentWrite, nonIdempotentWrite; got \"sometimes\""),
            ("requires", .some([["scope": "later", "anyOf": []]]), "\"requires[0].scope\" must be one of session, supportCheck"),
            ("idempotencyKey", .some(["value": "k"]), "\"idempotencyKey.argument\" must be a string; it is missing"),
        ])
    func malformed(member: String, value: JSONValue?, problem: String) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var intent = Self.intentPayload
        intent = JSONObject(intent.members.filter { $0.key != member })
        if let value { intent[member] = value }
        let path = try Self.journal([Self.startPayload, intent], in: scratch)
        let contents = try JournalReader.read(path: path)
        #expect(contents.records.count == 2 && contents.problems.isEmpty, "the frames themselves are intact")
        let offset = try #require(contents.records.last?.offset)
        do {
            _ = try contents.entries()
            Issue.record("a record with \(member) = \(value.map { JSONWriter.compact($0) } ?? "missing") decoded")
        } catch {
            #expect(error.code == .malformedRecord)
            #expect(error.message.hasPrefix("\(path): record 2 at byte \(offset) (type \"intent\"): member "), "\(error.message)")
            #expect(error.message.contains(problem), "\(error.message)")
            #expect(error.message.contains("matterflow history"), "it says what to do: \(error.message)")
        }
    }

    @Test(
        "a checkpoint's retries are read strictly: counts that no step could have made are a located error",
        arguments: [
            JSONValue.string("twice"), ["attempt": 1, "used": []], ["attempt": 3, "used": [1]], ["attempt": 2, "used": [-1, 2]],
            ["attempt": 102, "used": [101]], ["attempt": 2, "used": ["1"]], ["attempt": 2, "used": [1], "more": true],
            ["attempt": 2, "used": [1], "delaySeconds": -1], ["attempt": 2, "used": [1], "delaySeconds": "5"],
            ["attempt": 2, "used": [1], "delaySeconds": 86_401], ["attempt": 2, "used": [1], "delaySeconds": 5, "more": 1],
        ])
    func malformedRetries(retry: JSONValue) throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var checkpoint = JournalEntryCodec.fields(of: .checkpoint(RunCheckpoint(workflowPath: ["prepare"], state: "prepare", inputs: [:], variables: [:])))
        checkpoint["seq"] = 2
        checkpoint["type"] = "checkpoint"
        checkpoint["wallTime"] = 1_796_004_580.5
        checkpoint["retry"] = retry
        let path = try Self.journal([Self.startPayload, checkpoint], in: scratch)
        do {
            _ = try JournalReader.read(path: path).entries()
            Issue.record("a checkpoint with retry \(JSONWriter.compact(retry)) decoded")
        } catch {
            #expect(error.code == .malformedRecord)
            #expect(error.message.contains("(type \"checkpoint\"): member \"retry\" must be an object with \"attempt\""), "\(error.message)")
        }
        checkpoint["retry"] = ["attempt": 3, "used": [0, 2], "delaySeconds": 4]
        let valid = try Self.journal([Self.startPayload, checkpoint], in: scratch)
        guard case .checkpoint(let read)? = try JournalReader.read(path: valid).entries().last?.entry else {
            Issue.record("the checkpoint did not read back")
            return
        }
        #expect(read.retry == StepRetries(attempt: 3, used: [0, 2], delaySeconds: 4))
    }

    @Test("a malformed record makes the run unreadable to runs and recover, which leave its file as it is")
    func malformedRun() async throws {
        let scratch = try Scratch()
        defer { scratch.remove() }
        var intent = Self.intentPayload
        intent["structureID"] = 7
        let path = try Self.journal([Self.startPayload, intent], in: scratch)
        let before = try JournalFile.readAll(path)
        let journal = try RunJournal(existingDirectory: scratch.path)

        let listed = try #require(try journal.runs().first)
        #expect(listed.status == .unreadable)
        #expect(listed.notes.contains { $0.contains("record 2") && $0.contains("\"structureID\" must be a string") }, "\(listed.notes)")

        let hub = try SimulatedHub(home: Homes.basic(), clock: VirtualClock())
        let report = await journal.recover(on: hub, options: RecoveryOptions(clock: VirtualClock()))
        let run = try #require(report.runs.first)
        #expect(run.action == .unreadable)
        #expect(report.needsAttention)
        #expect(run.notes.contains { $0.contains("\"structureID\" must be a string") }, "\(run.notes)")
        #expect(try JournalFile.readAll(path) == before, "recovery wrote to a journal it could not read")
    }

    @Test("removing any member of any record of a real run never traps: it decodes, or the error names that member")
    func everyMemberRemoved() async throws {
        let (_, records) = try await JournalFormatTests.sampleJournal()
        let scratch = try Scratch()
        defer { scratch.remove() }
        for record in records {
            for member in record.payload.members {
                let damaged = JournalRecord(payload: JSONObject(record.payload.members.filter { $0.key != member.key }), offset: record.offset)
                do {
                    _ = try JournalEntryCodec.decode(damaged, path: "p")
                } catch {
                    #expect(error.message.contains("member \"\(member.key)\""), "\(record.type) without \(member.key): \(error.message)")
                }
            }
        }
    }
}
