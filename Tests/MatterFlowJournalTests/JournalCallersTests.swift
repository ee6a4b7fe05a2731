import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import Testing

/// A journal's calls told apart by caller: a resumed run numbers its own calls after its own, not after those of
/// the elements of its concurrent map states, and each element's after that element's.
@Suite("a journal grouped by caller")
struct JournalCallersTests {
    static func intent(_ key: String, state: String = "read") -> JournalEntry {
        .intent(
            IntentEntry(
                key: key, workflow: "w", state: state, operation: "readBasicInformation", structureID: "home", attempt: 1,
                arguments: [:], effect: .read, acquiresSession: false, releasesSession: false, requires: [],
                releaseAttemptSuffices: false, idempotencyKey: nil, sessionID: nil))
    }

    @Test("the run's call count ignores its elements' keys and recovery's; each element counts its own")
    func callNumbersPerCaller() {
        let entries: [JournalEntry] = [
            Self.intent("run-1/1"), Self.intent("run-1/2"),
            Self.intent("run-1/each[0]/1"), Self.intent("run-1/each[1]/1"),
            Self.intent("run-1/each[0]/2"), Self.intent("run-1/each[0]/7"),
            Self.intent("run-1/recovery-12"),
            .checkpoint(RunCheckpoint(workflowPath: ["w"], state: "each", inputs: [:], variables: [:])),
            .checkpoint(RunCheckpoint(workflowPath: ["body"], state: "read", inputs: [:], variables: [:], element: "each[1]")),
        ]
        let records = entries.enumerated().map { JournalEntryRecord(sequence: $0.offset + 1, wallTime: 0, entry: $0.element) }
        let callers = JournalCallers(JournalEntries(records), runID: "run-1")
        #expect(callers.run.callsBefore == 2, "the run's next key is run-1/3, whatever its elements numbered")
        #expect(callers.elements["each[0]"]?.callsBefore == 7)
        #expect(callers.elements["each[1]"]?.callsBefore == 1)
        #expect(callers.run.intents.map(\.intent.key) == ["run-1/1", "run-1/2", "run-1/recovery-12"])
        #expect(callers.run.checkpoints.map(\.state) == ["each"])
        #expect(callers.run.lastCheckpoint == 8)
        #expect(callers.elements["each[1]"]?.checkpoints.map(\.state) == ["read"])
        #expect(callers.elements["each[1]"]?.lastCheckpoint == 9)
    }
}
