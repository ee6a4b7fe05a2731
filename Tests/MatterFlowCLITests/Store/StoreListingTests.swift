@testable import MatterFlowCLI
import MatterFlowJSON
import Testing

/// What the `runs` table's NOTES column makes of a run's error.
@Suite struct StoreListingTests {
    @Test("a long error message is cut between words, with an ellipsis, never past 100 characters; a short one is whole")
    func errorNotesAreCutBetweenWords() {
        let message = "the hub refused the commissioning of the device because the onboarding payload's discriminator did not match any device that answered"
        let note = StoreListing.errorNote(["cause": "hubFailure", "message": .string(message)])
        let cut = try? #require(note?.dropFirst("hubFailure: ".count))
        #expect(cut.map { $0.count <= 100 && $0.hasSuffix(" …") } == true, "\(String(describing: note))")
        #expect(cut.map { message.hasPrefix($0.dropLast(2)) && message.dropFirst($0.count - 2).first == " " } == true, "cut at a space: \(String(describing: note))")
        #expect(StoreListing.errorNote(["cause": "deviceUnreachable", "message": "no answer"]) == "deviceUnreachable: no answer")
        // A word longer than a third of the room is cut inside it rather than leaving the note near empty.
        let word = String(repeating: "x", count: 150)
        #expect(StoreListing.shortened("a " + word, to: 100) == "a " + String(repeating: "x", count: 97) + "…")
    }
}
