@testable import MatterFlow
import MatterFlowJSON
import TestGates
import Testing

/// Redaction searches ASCII text byte by byte; what it finds must be what the general (grapheme-aware) search
/// finds: every occurrence, adjacent ones, at either end, leftmost first, in ASCII and non-ASCII text alike.
@Suite("redaction search")
struct RedactionSearchTests {
    static let secret = "MT:Y.K9042C00KA0648G00"

    @Test("every occurrence is replaced, whatever surrounds it")
    func occurrences() {
        let secrets = SecretValues()
        secrets.add(.string(Self.secret))
        let marker = RunOptions.redacted
        let cases: [(String, String)] = [
            ("\(Self.secret) at the start", "\(marker) at the start"),
            ("at the end \(Self.secret)", "at the end \(marker)"),
            ("twice \(Self.secret)\(Self.secret)!", "twice \(marker)\(marker)!"),
            ("almost MT:Y.K9042C00KA0648G0 only", "almost MT:Y.K9042C00KA0648G0 only"),
            ("CR LF \r\n\(Self.secret)\r\n", "CR LF \r\n\(marker)\r\n"),
            ("non-ASCII é \(Self.secret) ü", "non-ASCII é \(marker) ü"),
            ("JSON {\"p\":\"MT:Y.K9042C00KA0648G00\"}", "JSON {\"p\":\"\(marker)\"}"),
        ]
        for (text, expected) in cases {
            #expect(secrets.redacting(text) == expected, "\(text)")
        }
    }

    @Test("overlapping candidates are matched from the left, as the general search does")
    func overlapping() {
        let secrets = SecretValues()
        secrets.add("abab")
        #expect(secrets.redacting("xababab") == "x\(RunOptions.redacted)ab")
        #expect(secrets.redacting("xabababab") == "x\(RunOptions.redacted)\(RunOptions.redacted)")
        #expect(secrets.redacting("ababéabab") == "\(RunOptions.redacted)é\(RunOptions.redacted)")
    }

    @Test("the quick check that text holds no secret never passes over one: every spelling of a pairing code, anywhere in random text, is replaced")
    func quickCheckMissesNothing() {
        let secrets = SecretValues()
        secrets.add(.string(Self.secret))
        secrets.add(.string("ab/c\"d"))
        // The spellings redaction follows: the code, its manual code (plain, dashed, spaced), its passcode, its JSON
        // and percent escapes.
        let forms = ["MT:Y.K9042C00KA0648G00", "Y.K9042C00KA0648G00", "34970112332", "3497-011-2332", "3497 011 2332", "20202021",
            "MT%3AY.K9042C00KA0648G00", "ab\\/c\\\"d", "ab/c\\\"d"]
        var random = SeededGenerator(seed: 7)
        let alphabet = Array("MT:Y.K90423C1-/ ab\\\"%Ax")
        for round in 0..<2_000 {
            let form = forms[round % forms.count]
            let before = String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let after = String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let text = before + form + after
            #expect(!secrets.redacting(text).contains(form), "\(text)")
        }
        // Text that holds nothing is passed on as it is.
        #expect(secrets.redacting("session-b960e0946ba0 at 2026-12-06") == "session-b960e0946ba0 at 2026-12-06")
    }
}
