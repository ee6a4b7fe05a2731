import MatterFlowJSON
@testable import MatterFlowCLI
import MatterFlowJournal
import Testing

/// `history` and `watch` say when a run's records were written, also when the clock that stamped them stepped back
/// or a stamp is damaged.
@Suite struct HistoryTextTests {
    static func record(_ sequence: Int, at wallTime: Double) -> JournalRecord {
        JournalRecord(payload: ["seq": .int(sequence), "type": "checkpoint", "wallTime": .double(wallTime), "clockTime": 0], offset: 0)
    }

    @Test("offsets are signed: a record stamped before the first (the clock stepped back) is negative, not +0.000s")
    func signedOffsets() {
        #expect(WatchCommand.offset(1.2345) == "+1.234s" || WatchCommand.offset(1.2345) == "+1.235s")
        #expect(WatchCommand.offset(0) == "+0.000s" && WatchCommand.offset(-0.0001) == "+0.000s")
        #expect(WatchCommand.offset(-3598) == "-3598.000s")
        #expect(WatchCommand.offset(.nan) == "+?s" && WatchCommand.offset(1e300) == "+?s" && WatchCommand.offset(-.infinity) == "+?s")
    }

    @Test("a record stamped an hour before the one it follows is dated, as one after a long pause is")
    func stepBackIsDated() {
        let start = 1_796_472_000.0
        let lines = HistoryText.lines([Self.record(1, at: start), Self.record(2, at: start + 5), Self.record(3, at: start - 3593)])
        #expect(lines.count == 4, "\(lines)")
        #expect(lines[2].hasPrefix("#2  +5.000s  checkpoint"), "\(lines)")
        #expect(lines[3].hasPrefix("#3  -3593.000s (2026-12-05 11:00:07 UTC)  checkpoint"), "\(lines)")
    }
}
