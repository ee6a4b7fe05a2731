@testable import MatterFlowJournal
import MatterFlowJSON
import Testing

/// Which loss of a hub's connection a journal's reader names as the reason its run stopped.
@Suite struct HubConnectionLossTests {
    static let loss = JournalEntryRecord(
        sequence: 7, wallTime: 0,
        entry: .event(JournalEventEntry(
            name: .warning, workflow: "w", state: "s", clockTime: 0,
            details: ["message": "the hub's connection was lost", "hubConnectionLost": true, "reason": "the hub exited with status 3"])))

    @Test("the loss after the last recovery began is the reason; one before it is not: that recovery's process stopped the run")
    func onlySinceTheLastRecovery() {
        #expect(JournalEntries([Self.loss]).hubConnectionLoss == "the hub exited with status 3")
        #expect(JournalEntries([Self.loss]).interruptionCause == "its hub's connection was lost: the hub exited with status 3")
        let recovered = JournalEntryRecord(
            sequence: 8, wallTime: 0,
            entry: .recoveryStarted(RecoveryStartedEntry(mode: .resume, pid: 1, lastSequence: 7, interruptedIn: "s")))
        #expect(JournalEntries([Self.loss, recovered]).hubConnectionLoss == nil)
        #expect(JournalEntries([Self.loss, recovered]).interruptionCause == "its process stopped")
        // What the one recovering knows replaces "its process stopped", never a loss the journal records.
        #expect(JournalEntries([Self.loss, recovered]).interruptionCause(otherwise: "its lease ran out") == "its lease ran out")
        #expect(JournalEntries([Self.loss]).interruptionCause(otherwise: "its lease ran out") == "its hub's connection was lost: the hub exited with status 3")
        // A warning of another kind is no loss.
        let other = JournalEntryRecord(
            sequence: 9, wallTime: 0,
            entry: .event(JournalEventEntry(name: .warning, workflow: "w", state: "s", clockTime: 0, details: ["message": "later"])))
        #expect(JournalEntries([other]).hubConnectionLoss == nil)
    }
}
