import MatterFlow
@testable import MatterFlowStore
import Testing

@Suite("claim tokens")
struct ClaimTokensTests {
    @Test("every claim gets a new token; those of claims that threw are named by the next claims until one is answered, the newest 64 at most")
    func unansweredClaims() {
        var tokens = ClaimTokens(random: SeededRandomSource(seed: 3))
        let first = tokens.next()
        let second = tokens.next()
        #expect(first != second)
        #expect(first.hasPrefix("claim-") && first.count == 22)

        tokens.unanswered(first)
        tokens.unanswered(second)
        #expect(tokens.unanswered == [first, second])
        tokens.answered()
        #expect(tokens.unanswered.isEmpty)

        let thrown = (0..<70).map { _ in tokens.next() }
        for token in thrown { tokens.unanswered(token) }
        #expect(tokens.unanswered == Array(thrown.suffix(ClaimTokens.limit)))
    }
}

@Suite("the committer's retries")
struct CommitterRetryTests {
    @Test("a running worker's records wait out a store outage of minutes; a stopping worker's drain stays bounded")
    func retryLimits() {
        #expect(GroupCommitter.retryLimit(stopping: false) == .seconds(600))
        #expect(GroupCommitter.retryLimit(stopping: true) == GroupCommitter.reconnectLimit)
        #expect(GroupCommitter.reconnectLimit == .seconds(30))
    }
}
