import MatterFlow
@testable import MatterFlowJournal
import MatterFlowJSON
import Testing

/// Recovery works out how long a run's innermost state had waited over the run's lives (for a question, an event
/// or a delay), for the resumed run to wait only what is left.
@Suite struct WaitedTests {
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
        #expect(ResumePlanner.waited(in: records, at: Self.level, now: 250) == .seconds(150))
    }

    @Test("an event wait and a delay count from their first start at the journal's end too", arguments: [
        JournalEventEntry.Name.waitStarted, .delayStarted,
    ])
    mutating func eventsAndDelays(_ started: JournalEventEntry.Name) {
        let records = [
            record(Self.event(.stateEntered), at: 100), record(Self.event(started), at: 100),
            record(Self.recovery, at: 130), record(Self.event(.stateEntered), at: 130), record(Self.event(started), at: 131),
        ]
        #expect(ResumePlanner.waited(in: records, at: Self.level, now: 190) == .seconds(90))
        let received = records + [record(Self.event(.eventReceived), at: 140)]
        #expect(ResumePlanner.waited(in: received, at: Self.level, now: 190) == nil, "the wait had ended")
    }

    @Test("a retry's delay counts from its own retryScheduled, across hand-backs, never from an earlier retry's")
    mutating func retryDelays() {
        let checkpoint = JournalEntry.checkpoint(Self.level)
        // Two attempts that failed before reaching the hub: nothing between their retries but the checkpoints.
        let records = [
            record(Self.event(.stateEntered), at: 100), record(checkpoint, at: 100),
            record(Self.event(.retryScheduled), at: 100), record(checkpoint, at: 100),
            record(Self.event(.retryScheduled), at: 101), record(checkpoint, at: 101),
            record(Self.event(.retryScheduled), at: 103), record(checkpoint, at: 103),
        ]
        #expect(ResumePlanner.waited(in: records, at: Self.level, now: 104) == .seconds(1))
        // A resumed run reports the rest of the delay as delayStarted: the count still starts at the retry.
        let handedBack = records + [
            record(Self.recovery, at: 105), record(Self.event(.stateEntered), at: 105), record(checkpoint, at: 105),
            record(Self.event(.delayStarted), at: 105),
        ]
        #expect(ResumePlanner.waited(in: handedBack, at: Self.level, now: 106) == .seconds(3))
    }

    @Test("nothing when the journal does not end waiting in that state")
    mutating func notWaiting() {
        let answered = [record(Self.event(.questionAsked), at: 100), record(Self.event(.answered), at: 120)]
        #expect(ResumePlanner.waited(in: answered, at: Self.level, now: 250) == nil)
        let elsewhere = [record(Self.event(.questionAsked, state: "room"), at: 100)]
        #expect(ResumePlanner.waited(in: elsewhere, at: Self.level, now: 250) == nil, "another state's question")
        let otherLevel = [record(Self.event(.waitStarted, workflow: "door"), at: 100)]
        #expect(ResumePlanner.waited(in: otherLevel, at: Self.level, now: 250) == nil, "another level's")
        let earlierAnswered = [
            record(Self.event(.questionAsked), at: 10), record(Self.event(.answered), at: 20),
            record(Self.event(.transitionTaken, state: nil), at: 20), record(Self.event(.questionAsked), at: 200),
        ]
        #expect(ResumePlanner.waited(in: earlierAnswered, at: Self.level, now: 250) == .seconds(50), "only the last asking's run of records")
        let anotherStateBefore = [record(Self.event(.delayStarted, state: "pause"), at: 10), record(Self.event(.waitStarted), at: 200)]
        #expect(ResumePlanner.waited(in: anotherStateBefore, at: Self.level, now: 250) == .seconds(50), "not another state's wait before it")
    }
}
