import TestGates
import Testing

@testable import MatterFlowJSON

/// What json-c's strict mode accepts that JSON does not is refused, where it stands; JSON itself is still read.
@Suite struct StrictJSONTests {
    /// The one diagnostic `text` is refused with; nil (an issue recorded) when it is accepted.
    static func refusal(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Diagnostic? {
        do {
            _ = try JSONDocument.parse(text, file: "w.json")
            Issue.record("accepted: \(text.prefix(60))", sourceLocation: sourceLocation)
            return nil
        } catch {
            #expect(error.diagnostics.count == 1, sourceLocation: sourceLocation)
            #expect(error.diagnostics.first?.code == DiagnosticCode.syntaxError, sourceLocation: sourceLocation)
            return error.diagnostics.first
        }
    }

    @Test("the mistakes of hand-written JSON say what to write instead: a trailing comma, a comment, a bare key, a leading zero")
    func handWrittenMistakes() {
        let cases: [(String, String, Int)] = [
            (#"{"a": 1,}"#, "remove the comma before this }", 9),
            ("[1, 2,\n]", "remove the comma before this ]", 1),
            ("{\"a\": 1 // note\n}", "JSON has no comments; remove it", 9),
            ("{\"a\": 1 /* note */}", "JSON has no comments; remove it", 9),
            (#"{a: 1}"#, #"a key needs double quotes around it ("name": ...)"#, 2),
            (#"{"a": 01}"#, "JSON numbers have no leading zero", 9),
            // What a paste from a document or chat brings.
            ("{\u{201C}a\u{201D}: 1}", "“ is a typographic quote, where JSON needs a plain double quote", 2),
            ("{\"a\":\u{00A0}1}", "a no-break space (U+00A0), which JSON does not take as white space", 6),
            ("{\"a\": 'b'}", "JSON strings and keys take double quotes (\"), not single ones (')", 7),
            // Where a file is empty, cut short, or lacks a comma, the message says so and where.
            ("", "the file is empty (or only white space)", 1),
            ("{\n  \"a\": 1,\n  \"b\": [1, 2\n", "the text ends before the array opened at 3:8 is closed; add ]", 13),
            ("{\n  \"a\": {\"c\": \"}\"\n", "the text ends before the object opened at 2:8 is closed; add }", 17),
            ("{\n  \"a\": \"x\"\n  \"b\": 2\n}", "a comma is missing after the value that ends at 2:10; add one there", 3),
            ("[1, 2 3]", "a comma is missing after the value that ends at 1:5", 7),
            ("{\"a\": [1, 2}", "this } meets the array opened at 1:7, which ] closes; close it first", 12),
            ("[{\"a\": 1]", "this ] meets the object opened at 1:2, which } closes; close it first", 9),
        ]
        for (text, advice, column) in cases {
            let refused = Self.refusal(text)
            #expect(refused?.message.contains(advice) == true, "\(text): \(String(describing: refused))")
            #expect(refused?.location?.column == column, "\(text): \(String(describing: refused?.location))")
        }
        // Text that is not empty but starts with no JSON value is not called empty.
        for text in ["}", "   <html>", "#comment\n{}"] {
            #expect(Self.refusal(text)?.message.contains("empty") == false, "\(text)")
        }
        // Anything else keeps the general advice: a bare word in an array is no key, digits after a point no number.
        #expect(Self.refusal(#"{"a" 1}"#)?.message.hasSuffix("fix the syntax at this position") == true)
        #expect(Self.refusal(#"{"errors": ["hubFailure", timeout]}"#)?.message.contains("double quotes") == false)
        #expect(Self.refusal(#"{"version": 1.02.1}"#)?.message.contains("leading zero") == false)
    }

    @Test("a value 32 levels deep is read; one 33 levels deep is refused, saying so, where it begins")
    func nestingDepth() throws {
        /// An object holding arrays inside each other, the number 1 at level `level`.
        func nested(_ level: Int) -> String {
            "{\"a\": " + String(repeating: "[", count: level - 2) + "1" + String(repeating: "]", count: level - 2) + "}"
        }
        _ = try JSONDocument.parse(nested(32), file: "w.json")
        _ = try JSONDocument.parse("{\"a\": " + String(repeating: "[", count: 31) + String(repeating: "]", count: 31) + "}", file: "w.json")
        let deep = Self.refusal(nested(33))
        #expect(deep?.message.contains("a value nested more than 32 levels deep") == true, "\(String(describing: deep))")
        #expect(deep?.message.contains("flatten the value") == true)
        #expect(deep?.location == SourceLocation(line: 1, column: 38), "\(String(describing: deep?.location))")
    }

    @Test func rawControlCharactersInStringsAreRefusedWithTheEscapeToWrite() {
        let tab = Self.refusal("{\n  \"description\": \"two\tcolumns\"\n}")
        #expect(tab?.location == SourceLocation(line: 2, column: 22))
        #expect(tab?.message.contains("a tab; write it as \\t") == true)

        let lineBreak = Self.refusal("{\"a\": \"first\nsecond\"}")
        #expect(lineBreak?.location == SourceLocation(line: 1, column: 13))
        #expect(lineBreak?.message.contains("write it as \\n") == true)

        let other = Self.refusal("{\"a\": [\"ok\", \"bell\u{07}\"]}")
        #expect(other?.message.contains("U+0007; write it as \\u0007") == true)
        #expect(Self.refusal("{\"k\u{1F}\": 1}")?.message.contains("U+001F") == true)
    }

    @Test func numbersJSONDoesNotAllowAreRefused() {
        let leadingZero = Self.refusal(#"{"a": 1, "b": -01}"#)
        #expect(leadingZero?.location == SourceLocation(line: 1, column: 15))
        #expect(leadingZero?.message.contains("leading zero") == true)
        let bareFraction = Self.refusal(#"{"retry": {"backoff": 2.}}"#)
        #expect(bareFraction?.location == SourceLocation(line: 1, column: 23))
        #expect(bareFraction?.message.contains("no digit after its decimal point") == true)
        #expect(Self.refusal(#"[1.e5]"#)?.message.contains("decimal point") == true)
        let bareInteger = Self.refusal(#"{"x": -.5}"#)
        #expect(bareInteger?.location == SourceLocation(line: 1, column: 7))
        #expect(bareInteger?.message.contains("no digit before its decimal point") == true)
    }

    @Test func theLiteralNullIsAWholeTextAndWhitespaceIsNot() throws {
        #expect(try JSONDocument.parse("null", file: "w.json").value == .null)
        #expect(try JSONDocument.parse(" null\n", file: "w.json").value == .null)
        #expect(Self.refusal(" \n\t")?.message.contains("end of data") == true)
        #expect(Self.refusal("nul")?.code == DiagnosticCode.syntaxError)
    }

    @Test func aKeyThatJSONCWouldCutShortIsRefused() {
        // json-c keeps keys as C strings: these two would both become "a", one value silently lost.
        let refusal = Self.refusal(#"{"a\u0000b": 1, "a\u0000c": 2}"#)
        #expect(refusal?.location == SourceLocation(line: 1, column: 2))
        #expect(refusal?.message.contains("\\u0000") == true)
    }

    @Test("an escaped surrogate without its other half is refused where it stands; a whole pair is read; a peer's message may hold one")
    func loneSurrogates() throws {
        let high = Self.refusal("{\n  \"name\": \"lone \\ud800 x\"\n}")
        #expect(high?.location == SourceLocation(line: 2, column: 17))
        #expect(high?.message.contains("the escape \\ud800 is a high surrogate not followed by a low one") == true, "\(String(describing: high))")
        #expect(Self.refusal(#"["\udc00"]"#)?.message.contains("a low surrogate without a high one before it") == true)
        #expect(Self.refusal(#"["\udca1\ud83d"]"#)?.location == SourceLocation(line: 1, column: 3), "a pair in the wrong order")
        #expect(Self.refusal(#"{"\ud800": 1}"#) != nil, "in a key too")
        #expect(try JSONDocument.parse(#"["\ud83d\udca1", "\\ud800"]"#, file: "w.json").value == ["💡", "\\ud800"])
        #expect(try JSONDocument.parse(#"["a\ud800b"]"#, file: "hub", refusingLoneSurrogates: false).value == ["a\u{FFFD}b"])
        // What a peer's message held, found without parsing it again: a surrogate's escape in either case is looked
        // at, a pair and every other escape pass.
        for lone in [#"["a\ud800b"]"#, #"{"\uDBFF": 1}"#, #"["\udc00"]"#, #"["\uD83D\u00e9"]"#] {
            #expect(JSONDocument.holdsLoneSurrogate(lone), "\(lone)")
        }
        for whole in [#"["\ud83d\udca1"]"#, #"["\\ud800"]"#, #"["\u00e9 \u7fff"]"#, #"["x"]"#, "[]"] {
            #expect(!JSONDocument.holdsLoneSurrogate(whole), "\(whole)")
        }
    }

    @Test func everyJSONFormIsStillRead() throws {
        let text = #"{"n": [0, -0, 0.5, -0.5e+07, 10, 1e05, 1E-05, 2.50E3], "s": "tab\tnul\u0000 quote' \\u0000", "a\\u0000": 1}"#
        let value = try JSONDocument.parse(text, file: "w.json").value
        #expect(value["n"]?.arrayValue?.count == 8)
        #expect(value["n"]?.arrayValue?[6] == .double(1e-5))
        #expect(value["s"] == .string("tab\tnul\u{0} quote' \\u0000"))
        #expect(value["a\\u0000"] == 1)
    }

    @Test func aLargeTextReadInPiecesIsCheckedWhole() {
        // Past `JSONCBridge.splitMembers`, json-c reads the text a member at a time; the check still covers it.
        let text = SplitParseTests.text(400, member: { $0 == 321 ? "\"s321\": \"a\tb\"" : #""s\#($0)": \#($0)"# })
        var copy = text
        #expect(copy.withUTF8 { JSONCBridge.parseSplit($0) } != nil, "json-c should take this text in pieces")
        let refusal = Self.refusal(text)
        #expect(refusal?.message.contains("a tab") == true)
        let offset = text.utf8.firstIndex(of: 0x09).map { text.utf8.distance(from: text.utf8.startIndex, to: $0) }
        #expect(refusal?.location == offset.map { SourceLocation.of(byteOffset: $0, in: text.utf8) })
    }

    @Test func theCheckReadsAnyBytesToTheirEnd() {
        // The check runs on texts json-c accepted, but must never trap on what it is given: seeded random bytes
        // drawn from JSON's punctuation, digits and controls.
        var generator = SeededGenerator(seed: 0x5EED)
        let alphabet = Array(#"{}[]:,"\'-.0123456789eEu+ "#.utf8) + [0x00, 0x09, 0x0A, 0x1F]
        for length in 0..<400 {
            let bytes = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            let failure = bytes.withUnsafeBufferPointer { JSONStrictness.firstViolation(in: $0) }
            if let failure { #expect((0..<max(length, 1)).contains(failure.byteOffset)) }
        }
    }
}
