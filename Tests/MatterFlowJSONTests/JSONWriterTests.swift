import MatterFlowJSON
import Testing

/// The texts ``JSONWriter`` writes. Journal files, run-store batches, `--json` output and expected-output files
/// depend on them byte for byte: a record written by one release must read back, and compare, the same in the next.
@Suite struct JSONWriterTests {
    private static let record: JSONValue = [
        "seq": 3, "type": "checkpoint", "vars": ["note": "a\"b", "list": [1, 2.25, nil, true, ["x": []]]], "empty": [:],
    ]

    @Test("compact text: members in order, no spaces")
    func compact() {
        #expect(
            JSONWriter.compact(Self.record)
                == #"{"seq":3,"type":"checkpoint","vars":{"note":"a\"b","list":[1,2.25,null,true,{"x":[]}]},"empty":{}}"#)
    }

    @Test("pretty text: two spaces a level, empty containers on one line")
    func pretty() {
        let expected = """
            {
              "seq": 3,
              "type": "checkpoint",
              "vars": {
                "note": "a\\"b",
                "list": [
                  1,
                  2.25,
                  null,
                  true,
                  {
                    "x": []
                  }
                ]
              },
              "empty": {}
            }
            """
        #expect(JSONWriter.pretty(Self.record) == expected)
    }

    @Test(arguments: [
        (JSONValue.null, "null"), (.bool(true), "true"), (.bool(false), "false"), (.int(0), "0"), (.int(-42), "-42"),
        (.int(Int.max), "9223372036854775807"), (.int(Int.min), "-9223372036854775808"),
        (.double(-3), "-3"), (.double(-0.0), "0"), (.double(0.5), "0.5"), (.double(1e14), "100000000000000"),
        (.double(1e15), "1000000000000000.0"), (.double(1e300), "1e+300"), (.double(-2.5e-8), "-2.5e-08"),
        (.double(.nan), "null"), (.double(-.infinity), "null"),
        (.string(""), #""""#), (.string("quote \" backslash \\ slash /"), #""quote \" backslash \\ slash /""#),
        (.string("\n\r\t\u{08}\u{0C}\u{0}\u{1}\u{1F}\u{7F}"), "\"\\n\\r\\t\\b\\f\\u0000\\u0001\\u001f\u{7F}\""),
        (.string("ünïcode 日本 🙂 é\u{301}"), "\"ünïcode 日本 🙂 é\u{301}\""), (.array([]), "[]"), (.object([:]), "{}"),
    ])
    func scalars(_ value: JSONValue, _ text: String) {
        #expect(JSONWriter.compact(value) == text)
        #expect(JSONWriter.pretty(value) == text)
        var quoted = "<"
        if case .string(let string) = value {
            JSONWriter.writeString(string, into: &quoted)
            #expect(quoted == "<" + text)
        }
    }

    @Test("the bytes appended are the compact text's, after what the buffer holds")
    func appendsCompactBytes() {
        var buffer = Array("[".utf8)
        JSONWriter.appendCompact(Self.record, to: &buffer)
        buffer.append(UInt8(ascii: ","))
        JSONWriter.appendCompact("b", to: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "[" + JSONWriter.compact(Self.record) + #","b""#)
    }

    @Test("a listing written in pieces is the pretty text of the whole array, each piece ending between elements")
    func prettyArrayInPieces() {
        let elements: [JSONValue] = (0..<40).map { ["run": .string("r-\($0)"), "nested": Self.record, "note": "Küche \u{1F4A1}"] }
        for arrayElements in [[], [Self.record], elements] {
            for pieceBytes in [1, 100, 1 << 16] {
                var pieces: [String] = []
                var writer = PrettyArrayWriter(pieceBytes: pieceBytes) { pieces.append($0) }
                for element in arrayElements { writer.append(element) }
                writer.finish()
                #expect(pieces.joined() == JSONWriter.pretty(.array(arrayElements)))
                #expect(pieces.count <= arrayElements.count + 1)
                if pieceBytes == 1 { #expect(pieces.count == arrayElements.count + 1, "one piece per element, then the end") }
            }
        }
    }
}

@Suite("Shell words in suggested commands")
struct ShellWordTests {
    @Test("a plain word stays as it is; one a shell would split or expand is single-quoted, its quotes kept")
    func quoting() {
        #expect(ShellWord.quoted("/tmp/journal-1/x.json") == "/tmp/journal-1/x.json")
        #expect(ShellWord.quoted("/tmp/my journal") == "'/tmp/my journal'")
        #expect(ShellWord.quoted("it's") == #"'it'\''s'"#)
        #expect(ShellWord.quoted("$HOME") == "'$HOME'")
        #expect(ShellWord.quoted("") == "''")
        #expect(ShellWord.quoted("Küche") == "'Küche'")
    }
}
