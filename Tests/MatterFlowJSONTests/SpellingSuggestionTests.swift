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

    @Test("a short word is not taken for one that differs in every character: that is another word, not a typo")
    func everyCharacterDiffers() {
        #expect(SpellingSuggestion.closest(to: "c", among: ["a", "b"]) == nil)
        #expect(SpellingSuggestion.closest(to: "on", among: ["no", "off"]) == "no", "two letters swapped are one typo")
        #expect(SpellingSuggestion.closest(to: "xy", among: ["a"]) == nil)
        #expect(SpellingSuggestion.hint(for: "c", among: ["a", "b"]) == "")
        // One character in place is enough to be a typo.
        #expect(SpellingSuggestion.closest(to: "ab", among: ["ac", "zz"]) == "ac")
        #expect(SpellingSuggestion.closest(to: "A", among: ["a", "b"]) == "a", "case alone is a typo")
    }

    @Test("candidates equally near are all offered, in the order given")
    func ties() {
        #expect(SpellingSuggestion.closestAll(to: "runz", among: ["run", "runs", "recover"]) == ["run", "runs"])
        #expect(SpellingSuggestion.closestAll(to: "frobnicate", among: ["run", "runs"]).isEmpty)
        // A word cut short of one candidate alone is taken for it; of two, for neither.
        #expect(SpellingSuggestion.closestAll(to: "failedPrecon", among: ["failedPrecondition", "timeout"]) == ["failedPrecondition"])
        #expect(SpellingSuggestion.closestAll(to: "commission", among: ["commissionDevice", "commissionBridge"]).isEmpty)
    }

    @Test("a hint is a question in parentheses, so that no message follows its question mark with a semicolon")
    func hintIsParenthesized() {
        #expect(SpellingSuggestion.hint(for: "sesion", among: ["session", "state"]) == #" (did you mean "session"?)"#)
        #expect(SpellingSuggestion.hint(for: "frobnicate", among: ["session"]) == "")
        let synonyms = SpellingSynonyms([
            (["Task"], .init(["action"], note: "an action state calls one hub operation", noteWithTarget: true)),
            (["End"], .init([], note: "point \"next\" at a succeed state")),
        ])
        #expect(
            SpellingSuggestion.hint(for: "Task", among: ["action", "wait"], synonyms: synonyms)
                == #" (did you mean "action"? An action state calls one hub operation)"#)
        #expect(SpellingSuggestion.hint(for: "End", among: ["next"], synonyms: synonyms) == #"; point "next" at a succeed state"#)
        // As a message goes on after it.
        let message = "reads variable \"sesion\", which no state binds" + SpellingSuggestion.hint(for: "sesion", among: ["session"]) + "; bind it"
        #expect(!message.contains("?;"), "\(message)")
    }
}
