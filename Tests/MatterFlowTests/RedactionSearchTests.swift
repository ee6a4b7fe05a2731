@testable import MatterFlow
import MatterFlowJSON
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
}
