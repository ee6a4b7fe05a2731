import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// A journal whose `runStarted` record is damaged while later records survive: the run did start, and may hold
/// a session, so it is never "not started, nothing to do".
@Suite("damaged first record")
struct DamagedStartTests {
    /// Changes one byte inside the payload of the journal's first record, so that its checksum fails.
    static func damageFirstRecord(_ path: String) throws {
        var bytes = try JournalFile.readAll(path)
        let contents = try JournalReader.decode(bytes, path: path)
        let first = try #require(contents.records.first)
        // The payload starts after "<length> <crc32> " (18 bytes); change a byte well inside it.
        let index = first.offset + 18 + 10
        bytes[index] = bytes[index] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("it needs attention, and recovery releases the session the hub shows is the run's")
    func damagedStartWithSession() async throws {
        let outcome = try await RecoveryTests.sequence(of: JournalEntry.Kind.outcome.rawValue, "commissionDevice")
        let scenario = try await CrashScenario(position: .after, sequence: outcome)
        defer { scenario.scratch.remove() }
        let path = try scenario.journal().path(of: scenario.runID)
        try Self.damageFirstRecord(path)
        #expect(try JournalReader.read(path: path).hasStart == false)
        let pending = try #require(try scenario.savedHome()?.activeSession?.deviceIDs.first)

        let listed = try #require(try scenario.journal().runs().first)
        #expect(listed.status == .needsAttention)
        #expect(listed.notes.contains { $0.contains("runStarted record is damaged") }, "\(listed.notes)")

        let run = try #require(try await scenario.recover().runs.first)
        #expect(run.action == .deferred)
        #expect(run.status == .needsAttention)
        #expect(run.releasedSession)
        #expect(run.notes.contains { $0.contains("runStarted) is damaged") && $0.contains("released it") }, "\(run.notes)")
        let home = try #require(try scenario.savedHome())
        #expect(home.activeSession == nil)
        #expect(!home.devices.map(\.id).contains(pending))

        let records = try JournalReader.read(path: path).records
        #expect(records.last?.type == JournalEntry.Kind.recoveryDeferred.rawValue)
        #expect(records.contains { $0.type == JournalEntry.Kind.outcome.rawValue && $0.string("operation") == "cancelCommissioning" })
        #expect(try scenario.journal().runs().first?.status == .needsAttention)
    }

    @Test("another client's session is left alone, and the reason says the hub holds none of the run's")
    func damagedStartForeignSession() async throws {
        let (scenario, foreign) = try await SessionOwnershipTests.handedOver()
        defer { scenario.scratch.remove() }
        try Self.damageFirstRecord(try scenario.journal().path(of: scenario.runID))
        let run = try #require(try await scenario.recover().runs.first)
        #expect(run.status == .needsAttention)
        #expect(!run.releasedSession)
        #expect(run.notes.contains { $0.contains("holds no session of this run") }, "\(run.notes)")
        #expect(try scenario.savedHome()?.activeSession?.sessionID == foreign)
    }

    @Test("a journal with no complete record at all is still a run that never started")
    func tornFirstRecordIsNotStarted() async throws {
        let scenario = try await CrashScenario(position: .after, sequence: 1)
        defer { scenario.scratch.remove() }
        let path = try scenario.journal().path(of: scenario.runID)
        try cut(path, after: 0, appending: Array("000001be 7cf1".utf8))
        let run = try #require(try await scenario.recover().runs.first)
        #expect(run.action == .notStarted)
        #expect(try scenario.journal().runs().first?.status == .notStarted)
    }
}
