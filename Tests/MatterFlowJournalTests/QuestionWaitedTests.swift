import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import Testing

/// Recovery works out how long a run's question has waited over its lives, for the resumed run to ask it again for
/// what is left of its timeout.
@Suite struct QuestionWaitedTests {
    static let level = RunCheckpoint(workflowPath: ["door", "ask"], state: "name", inputs: [:], variables: [:])
    var sequence = 0

    mutating func record(_ entry: JournalEntry, at wallTime: Double) -> JournalEntryRecord {
        sequence += 1
        return JournalEntryRecord(sequence: sequence, wallTime: wallTime, entry: entry)
    }

    static func event(_ name: JournalEventEntry.Name, state: String? = "name", workflow: String = "door/ask") -> JournalEntry {
        .event(JournalEventEntry(name: name, workflow: workflow, state: state, clockTime: 0, details: [:]))
    }

    static let recovery = JournalEntry.recoveryStarted(RecoveryStartedEntry(mode: .resume, pid: 1, lastSequence: 1, interruptedIn: nil))

    @Test("from the first asking at the journal's end, across hand-backs, to now")
    mutating func acrossHandBacks() {
        let records = [
            record(Self.event(.stateEntered), at: 100), record(Self.event(.questionAsked), at: 100),
            record(Self.recovery, at: 160), record(Self.event(.stateEntered), at: 160), record(Self.event(.questionAsked), at: 160),
            record(Self.event(.answerRejected), at: 170),
            record(Self.recovery, at: 220), record(Self.event(.questionAsked), at: 221),
        ]
        #expect(ResumePlanner.questionWaited(in: records, at: Self.level, now: 250) == .seconds(150))
    }

    @Test("nothing when the journal does not end waiting for that question")
    mutating func notWaiting() {
        let answered = [record(Self.event(.questionAsked), at: 100), record(Self.event(.answered), at: 120)]
        #expect(ResumePlanner.questionWaited(in: answered, at: Self.level, now: 250) == nil)
        let elsewhere = [record(Self.event(.questionAsked, state: "room"), at: 100)]
        #expect(ResumePlanner.questionWaited(in: elsewhere, at: Self.level, now: 250) == nil, "another state's question")
        let otherLevel = [record(Self.event(.questionAsked, workflow: "door"), at: 100)]
        #expect(ResumePlanner.questionWaited(in: otherLevel, at: Self.level, now: 250) == nil, "another level's")
        let earlierAnswered = [
            record(Self.event(.questionAsked), at: 10), record(Self.event(.answered), at: 20),
            record(Self.event(.transitionTaken, state: nil), at: 20), record(Self.event(.questionAsked), at: 200),
        ]
        #expect(ResumePlanner.questionWaited(in: earlierAnswered, at: Self.level, now: 250) == .seconds(50), "only the last asking's run of records")
    }
}
