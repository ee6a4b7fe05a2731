import MatterFlowJSON
import Testing

@Suite("did-you-mean suggestions")
struct SpellingSuggestionTests {
    @Test("two letters swapped are one typo: the word meant wins over one that needs two edits")
    func swappedLetters() {
        #expect(SpellingSuggestion.closest(to: "rnu", among: ["runs", "run"]) == "run")
        #expect(SpellingSuggestion.closest(to: "stroe", among: ["store", "stop"]) == "store")
        #expect(SpellingSuggestion.closest(to: "nxet", among: ["next", "onError"]) == "next")
    }

    @Test("candidates equally near are all offered, in the order given")
    func ties() {
        #expect(SpellingSuggestion.closestAll(to: "runz", among: ["run", "runs", "recover"]) == ["run", "runs"])
        #expect(SpellingSuggestion.closestAll(to: "frobnicate", among: ["run", "runs"]).isEmpty)
        // A word cut short of one candidate alone is taken for it; of two, for neither.
        #expect(SpellingSuggestion.closestAll(to: "failedPrecon", among: ["failedPrecondition", "timeout"]) == ["failedPrecondition"])
        #expect(SpellingSuggestion.closestAll(to: "commission", among: ["commissionDevice", "commissionBridge"]).isEmpty)
    }
}
