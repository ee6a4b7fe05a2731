import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// `--resume` takes secret inputs again; a value that is not the one the run started with is refused, checked
/// against the salted digest `runStarted` keeps (never the secret itself).
@Suite("resumed secrets")
struct ResumeSecretTests {
    /// The specification's example manual pairing code: a valid payload of another device.
    static let otherPayload = "34970112332"

    @Test("runStarted keeps a salted digest of each secret input keyed with the directory's key, never the value")
    func digestInRunStarted() async throws {
        let scenario = try await CrashScenario(position: .after, sequence: 10_000)
        defer { scenario.scratch.remove() }
        let journal = try scenario.journal()
        let contents = try JournalReader.read(path: journal.path(of: scenario.runID))
        let started = try #require(try contents.entries().started?.entry)
        let key = try #require(try SecretDigestKey.load(fromDirectory: journal.directory))
        let recorded = try #require(started.secretDigests)
        #expect(recorded.scheme == .keyed(keyID: key.id))
        #expect(recorded.salt.count == 32)
        #expect(Array(recorded.inputs.keys) == ["onboardingPayload"])
        // Without the key (someone who reads the journal alone), a digest cannot be made to test a value with.
        #expect(recorded.unavailability?.contains(key.id) == true)
        #expect(recorded.matches("onboardingPayload", .string(Payloads.specQR)) == false)
        #expect(recorded.withKey(SecretDigestKey.generate()).matches("onboardingPayload", .string(Payloads.specQR)) == false)
        #expect(recorded.inputs["onboardingPayload"] != SecretDigests.digest(.string(Payloads.specQR), salt: recorded.salt))
        let digests = recorded.withKey(key)
        #expect(digests.matches("onboardingPayload", .string(Payloads.specQR)) == true)
        #expect(digests.matches("onboardingPayload", .string(Self.otherPayload)) == false)
        #expect(digests.inputs["onboardingPayload"] != ContentHash.sha256(Payloads.specQR))
        #expect(started.inputs["onboardingPayload"]?.stringValue == RunOptions.redacted)
    }

    @Test("without the directory's digest key nothing is resumed with secrets, and recovery says why; with it back, it resumes")
    func keyMissingRefusesResume() async throws {
        let outcome = try await RecoveryTests.sequence(of: JournalEntry.Kind.outcome.rawValue, "commissionDevice")
        let scenario = try await CrashScenario(position: .after, sequence: outcome)
        defer { scenario.scratch.remove() }
        let keyPath = try scenario.journal().directory + "/" + SecretDigestKey.fileName
        let keyFile = try Data(contentsOf: URL(fileURLWithPath: keyPath))
        try FileManager.default.removeItem(atPath: keyPath)
        let homeBefore = try scenario.bytes().home

        let refused = try #require(try await scenario.recover(resume: true, inputs: WorkflowRecoveryTests.payload).runs.first)
        #expect(refused.action == .deferred)
        #expect(!refused.resumed)
        let reason = refused.notes.joined(separator: "; ")
        let directory = try scenario.journal().directory
        #expect(reason.contains("cannot be checked") && reason.contains("no \(SecretDigestKey.fileName) in \(directory)"), "\(reason)")
        #expect(try scenario.bytes().home == homeBefore, "the hub was touched")

        // A key file that cannot be read: the refusal says what is wrong with it, not that there is none.
        try Data("not a key".utf8).write(to: URL(fileURLWithPath: keyPath))
        let damaged = try #require(try await scenario.recover(resume: true, inputs: WorkflowRecoveryTests.payload).runs.first)
        #expect(damaged.action == .deferred)
        let damage = damaged.notes.joined(separator: "; ")
        #expect(damage.contains(keyPath) && damage.contains("not 64 hex digits"), "\(damage)")
        #expect(try scenario.bytes().home == homeBefore, "the hub was touched")

        try keyFile.write(to: URL(fileURLWithPath: keyPath))
        let resumed = try #require(try await scenario.recover(resume: true, inputs: WorkflowRecoveryTests.payload).runs.first)
        #expect(resumed.resumed)
        #expect(resumed.status == .succeeded, "\(resumed.notes)")
    }

    @Test("another payload is refused before recovery changes anything; the run's own then resumes it")
    func otherPayloadRefused() async throws {
        let outcome = try await RecoveryTests.sequence(of: JournalEntry.Kind.outcome.rawValue, "commissionDevice")
        let scenario = try await CrashScenario(position: .after, sequence: outcome)
        defer { scenario.scratch.remove() }
        let homeBefore = try scenario.bytes().home

        let refused = try #require(
            try await scenario.recover(resume: true, inputs: ["onboardingPayload": .string(Self.otherPayload)]).runs.first)
        #expect(refused.action == .deferred)
        #expect(refused.status == .needsAttention)
        #expect(!refused.resumed)
        let reason = refused.notes.joined(separator: "; ")
        #expect(reason.contains("resume refused") && reason.contains("--input onboardingPayload"), "\(reason)")
        #expect(!reason.contains(Self.otherPayload) && !reason.contains(Payloads.specQR))
        #expect(try scenario.bytes().home == homeBefore, "the hub was touched")
        let records = try JournalReader.read(path: try scenario.journal().path(of: scenario.runID)).records
        #expect(!records.contains { $0.type == JournalEntry.Kind.recoveryStarted.rawValue })
        #expect(records.last?.type == JournalEntry.Kind.recoveryDeferred.rawValue)
        let text = String(decoding: try scenario.bytes().journal, as: UTF8.self)
        #expect(!text.contains(Self.otherPayload))

        let resumed = try #require(
            try await scenario.recover(resume: true, inputs: WorkflowRecoveryTests.payload).runs.first)
        #expect(resumed.resumed)
        #expect(resumed.status == .succeeded, "\(resumed.notes)")
    }
}
