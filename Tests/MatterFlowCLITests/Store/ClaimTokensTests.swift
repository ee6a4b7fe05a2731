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
