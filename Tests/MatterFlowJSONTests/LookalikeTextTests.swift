import Testing

@testable import MatterFlowJSON

/// Text that looks the same and is not: keys spelled with other bytes for the same characters, names holding a
/// character that looks like another or like nothing, and escapes JSON does not have.
@Suite struct LookalikeTextTests {
    @Test("two keys of one object that are the same characters in other bytes (é composed, then decomposed) are a repeated key, named with both spellings' code points")
    func equivalentKeysRepeat() throws {
        let text = "{\"states\": {\"caf\u{E9}\": 1,\n \"cafe\u{301}\": 2}}"
        let document = try JSONDocument.parse(text, file: "w.json")
        let findings = document.duplicateKeyDiagnostics()
        #expect(findings.count == 1, "\(findings)")
        let finding = try #require(findings.first)
        #expect(finding.code == DiagnosticCode.duplicateKey)
        #expect(finding.location == SourceLocation(line: 2, column: 2), "\(finding)")
        #expect(finding.message.contains("(first at 1:13), spelled with other bytes for the same characters (U+00E9 there, U+0301 here"), "\(finding.message)")
        // One member, as for a key repeated byte for byte: the last value.
        #expect(document.value["states"]?.objectValue?.count == 1)
        #expect(document.value["states"]?["caf\u{E9}"] == .int(2))
        // Composed, decomposed, composed: one member, and the message does not promise which value.
        let three = try JSONDocument.parse("{\"caf\u{E9}\": 1, \"cafe\u{301}\": 2, \"caf\u{E9}\": 3}", file: "w.json").duplicateKeyDiagnostics()
        #expect(three.count == 2, "\(three)")
        #expect(three.allSatisfy { $0.message.hasSuffix("only one of the values would be used") || $0.message.hasSuffix("only the last would be used") }, "\(three)")
        #expect(three.contains { $0.message.contains("spelled with other bytes") }, "\(three)")
        // Keys the same byte for byte are reported as before, without spellings.
        let repeated = try JSONDocument.parse("{\"a\": 1, \"a\": 2}", file: "w.json").duplicateKeyDiagnostics()
        #expect(repeated.first?.message == #"key "a" appears again (first at 1:2); remove one of them, only the last would be used"#)
    }

    @Test("a suggestion for a name that differs from it only in characters hard to see names them by code point and Unicode name")
    func hintsNameUnseenCharacters() {
        #expect(
            SpellingSuggestion.hint(for: "c\u{43E}mplete", among: ["complete", "configure"])
                == #" (did you mean "complete"? The name given holds U+043E CYRILLIC SMALL LETTER O, which "complete" does not)"#)
        #expect(
            SpellingSuggestion.hint(for: "rooms", among: ["rooms\u{200B}"])
                == " (did you mean \"rooms\u{200B}\"? \"rooms\u{200B}\" holds U+200B ZERO WIDTH SPACE, which the name given does not)")
        // A plain typo gets the plain question.
        #expect(SpellingSuggestion.hint(for: "complte", among: ["complete"]) == #" (did you mean "complete"?)"#)
    }

    @Test("an escape JSON does not have is named, with the escapes it has")
    func unknownEscapes() throws {
        for (text, advice, column) in [
            (#"{"a": "x\xy"}"#, #"\x is no JSON escape: JSON has \" \\ \/ \b \f \n \r \t and \uXXXX; write a backslash itself as \\"#, 10),
            (#"{"a": "C:\\dir\q"}"#, #"\q is no JSON escape"#, 16),
            (#"{"a": "x\u12G4"}"#, #"\u takes four hexadecimal digits (\u00e9 for é)"#, 13),
            ("{\"a\": \"x\\\u{E9}\"}", "\\\u{E9} (a backslash before U+00E9 LATIN SMALL LETTER E WITH ACUTE) is no JSON escape", 10),
            (#"{"a": "x\ y"}"#, "a backslash before a space is no JSON escape", 10),
        ] {
            let refusal = StrictJSONTests.refusal(text)
            #expect(refusal?.message.contains(advice) == true, "\(text): \(refusal?.message ?? "")")
            #expect(refusal?.location?.column == column, "\(text): \(String(describing: refusal?.location))")
        }
    }
}
