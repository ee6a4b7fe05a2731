@testable import MatterFlowStore
import Testing

/// The delays a run stays unclaimed after a worker handed it back (its records unreadable), by its claim count.
@Suite("hand-back backoff")
struct HandBackBackoffTests {
    @Test("each further claim of a run doubles its delay, up to the longest")
    func delaysGrow() {
        #expect((2...9).map(HandBackBackoff.delay(afterClaims:)) == [0.25, 0.5, 1, 2, 4, 8, 8, 8])
        // A first claim never reads records; were it to, it waits the first delay.
        #expect(HandBackBackoff.delay(afterClaims: 1) == HandBackBackoff.firstDelay)
        #expect(HandBackBackoff.delay(afterClaims: 10_000) == HandBackBackoff.longestDelay)
        #expect((1...8).map(HandBackBackoff.delay(afterFailures:)) == [0.25, 0.5, 1, 2, 4, 8, 8, 8])
    }
}
