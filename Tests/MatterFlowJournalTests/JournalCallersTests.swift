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

    @Test("after a recovery, an entry of another state than the run stood in ends the re-entry: a map entered afresh forgets its earlier elements")
    func reentryEndsAtAnotherState() {
        func checkpoint(_ path: [String], _ state: String, element: String? = nil, map: MapCheckpoint? = nil) -> JournalEntry {
            .checkpoint(RunCheckpoint(workflowPath: path, state: state, inputs: [:], variables: [:], map: map, element: element))
        }
        let elementOfFirstAttempt = checkpoint(["body"], "read", element: "poll/readAll[1]")
        let beforeRecovery: [JournalEntry] = [
            checkpoint(["outer"], "poll"), checkpoint(["outer", "all"], "readAll"), elementOfFirstAttempt,
            // The outer state's retry, after the map failed.
            checkpoint(["outer"], "poll"),
            .recoveryStarted(RecoveryStartedEntry(mode: .resume, pid: 1, lastSequence: 4, interruptedIn: "poll")),
            // The resumed run enters the state it stood in again ...
            checkpoint(["outer"], "poll"),
        ]
        // ... and its retried attempt, with no record between, enters the body's map afresh.
        let fresh = beforeRecovery + [checkpoint(["outer", "all"], "readAll")]
        func callers(_ entries: [JournalEntry]) -> JournalCallers {
            JournalCallers(JournalEntries(entries.enumerated().map { JournalEntryRecord(sequence: $0.offset + 1, wallTime: 0, entry: $0.element) }), runID: "run-1")
        }
        #expect(callers(beforeRecovery).elements["poll/readAll[1]"]?.checkpoints.count == 1, "re-entering the state it stood in keeps them")
        #expect(callers(fresh).elements["poll/readAll[1]"]?.checkpoints.isEmpty == true, "the attempt-1 element's checkpoints are not the new map's")
        // A run that stood inside the map re-enters it, keeping its elements.
        let inside: [JournalEntry] = [
            checkpoint(["outer"], "poll"), checkpoint(["outer", "all"], "readAll"), elementOfFirstAttempt,
            .recoveryStarted(RecoveryStartedEntry(mode: .resume, pid: 1, lastSequence: 3, interruptedIn: "poll/readAll")),
            checkpoint(["outer"], "poll"), checkpoint(["outer", "all"], "readAll"),
        ]
        #expect(callers(inside).elements["poll/readAll[1]"]?.checkpoints.count == 1)
        // A damaged checkpoint with no workflow path is no re-entry, and nothing traps.
        #expect(callers(beforeRecovery + [checkpoint([], "readAll")]).run.checkpoints.count == 1)
    }
}
