@testable import MatterFlowStore
import Testing

/// The delays a worker leaves between handing a run back (its records unreadable) and claiming it again.
@Suite("hand-back backoff")
struct HandBackBackoffTests {
    @Test("each hand-back of a run doubles its delay up to the longest; reading its records starts over; runs count apart")
    func delaysGrow() {
        var backoff = HandBackBackoff()
        let delays = (0..<8).map { _ in backoff.handedBack("run-a") }
        #expect(delays == [0.25, 0.5, 1, 2, 4, 8, 8, 8])
        #expect(backoff.handedBack("run-b") == 0.25)
        backoff.readRecords(of: "run-a")
        #expect(backoff.handedBack("run-a") == 0.25)
        #expect(backoff.handedBack("run-b") == 0.5)
        #expect(HandBackBackoff.delay(afterHandBacks: 10_000) == HandBackBackoff.longestDelay)
    }
}
