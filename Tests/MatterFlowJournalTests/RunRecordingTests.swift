import Foundation
import MatterFlow
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
}
