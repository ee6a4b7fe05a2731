import Foundation
import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// A run that dies while it is already being cancelled, or whose recovery dies, still ends `cancelled`.
@Suite("cancel-path status")
struct CancelPathStatusTests {
    static let cancelAt = "commission-device/commission:commission"

    /// Checks that the run recovered to `cancelled` (never `failed` with code `cancelled`) with nothing held.
    static func expectCancelled(_ scenario: CrashScenario, _ label: String) throws {
        let contents = try JournalReader.read(path: try scenario.journal().path(of: scenario.runID))
        let finished = try #require(contents.records.last { $0.type == JournalEntry.Kind.runFinished.rawValue }, "\(label)")
        #expect(finished.string("outcome") == "cancelled", "\(label): \(finished.payload)")
        #expect(finished.payload["error"]?["code"]?.stringValue == "cancelled", "\(label)")
        #expect(try scenario.journal().runs().first?.status == .cancelled, "\(label)")
        #expect(try scenario.savedHome()?.activeSession == nil, "\(label): a session was left active")
    }

    @Test("a run killed anywhere on its cancel path is recovered as cancelled")
    func killedOnCancelPath() async throws {
        let full = try await CrashScenario(position: .after, sequence: 10_000, cancelOnEntering: Self.cancelAt)
        let records = try JournalReader.read(path: try full.journal().path(of: full.runID)).records
        full.scratch.remove()
        let cancelled = try #require(records.first { $0.type == "cancelRequested" }, "the run was never cancelled")
        #expect(records.last { $0.type == JournalEntry.Kind.runFinished.rawValue }?.string("outcome") == "cancelled")
        // Every boundary from the cancel request up to (not including) the run's own terminal record.
        let last = try #require(records.last { $0.type == JournalEntry.Kind.runFinished.rawValue }).sequence - 1
        #expect(last > cancelled.sequence + 3)
        for sequence in cancelled.sequence...last {
            let scenario = try await CrashScenario(position: .after, sequence: sequence, cancelOnEntering: Self.cancelAt)
            defer { scenario.scratch.remove() }
            let run = try #require(try await scenario.recover().runs.first)
            #expect(run.status == .cancelled, "after:\(sequence): \(run.status) \(run.notes)")
            try Self.expectCancelled(scenario, "after:\(sequence)")
        }
    }

    @Test("a recovery killed anywhere on the cancel path it runs is finished by the next one as cancelled")
    func recoveryKilledMidway() async throws {
        let outcome = try await RecoveryTests.sequence(of: JournalEntry.Kind.outcome.rawValue, "commissionDevice")
        let probe = try await CrashScenario(position: .after, sequence: outcome)
        let before = try JournalReader.read(path: try probe.journal().path(of: probe.runID)).records.count
        _ = try await probe.recover()
        let records = try JournalReader.read(path: try probe.journal().path(of: probe.runID)).records
        probe.scratch.remove()
        let finished = try #require(records.last { $0.type == JournalEntry.Kind.runFinished.rawValue }).sequence
        // Recovery's records before its terminal ones: recoveryStarted, the cancel path's events, calls and checkpoints.
        for sequence in (before + 1)..<finished {
            let scenario = try await CrashScenario(position: .after, sequence: outcome)
            defer { scenario.scratch.remove() }
            let homePath = scenario.stateDirectory + "/" + HomeStateStore.fileName
            let saved = scenario.scratch.file("home-at-recovery-crash.json")
            let hook: JournalTestHook = { boundary in
                if boundary.position == .after, boundary.sequence == sequence {
                    try? FileManager.default.removeItem(atPath: saved)
                    try? FileManager.default.copyItem(atPath: homePath, toPath: saved)
                }
                return .proceed
            }
            _ = try await scenario.recover(testHook: hook)
            // As if the recovering process had died right after writing record `sequence`.
            try cut(try scenario.journal().path(of: scenario.runID), after: sequence)
            try FileManager.default.removeItem(atPath: homePath)
            try FileManager.default.copyItem(atPath: saved, toPath: homePath)

            let run = try #require(try await scenario.recover().runs.first)
            #expect(run.action == .recovered, "recovery killed after:\(sequence): \(run.action) \(run.notes)")
            try Self.expectCancelled(scenario, "recovery killed after:\(sequence)")
        }
    }
}
