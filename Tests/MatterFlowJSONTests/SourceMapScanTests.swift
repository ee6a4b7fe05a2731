import Foundation
import TestGates
import Testing

@testable import MatterFlowJSON

/// The source map's scanner reads every text json-c accepts to its end, whatever it holds.
@Suite struct SourceMapScanTests {
    /// A home file the fuzzer made (`Fuzz/run.sh home`) with object keys in single quotes, which json-c's strict mode
    /// accepts (the parser now refuses them; see `SingleQuotedKeyTests`). The scanner, reading it as plain JSON, met
    /// a byte it could not read in the middle of an object and made no progress from then on.
    static let fuzzedHome = Data(base64Encoded: "ewogICJ2ZXJzaW9uIjogMSwKICAic2ZhbHRydWN0dXJlIjogeyJpZCI6ICJvYWstbGFuZSIsICJuYW1lIjogIk9kZXZpY2UtMThiNmYzZTJhMGQ0YWsgTGFuZSJ9LAogICJodWIiOiB7Im9ubGluZSIgOnRydWUsICdyZWFjaGFibGUiOiB0cnVlbSwKICAicGVybWlzc2lvbkdyYW50ZWQiOiAibmFtZSI6ICJLaXRjaGVuIn0sIHsiaWQiOiAicm9vbS1oYWxsIiwgIm5hbWUiOiAiSGFsbCJ9XSwKICAiZGV2aWNlcyI6IFsKICAgIHsKICAbICAgImlkIjogImRldmljZS1oYWxsLWxpZ2h0IiwKICAgICAgIm5hbWUiOiAiSGFsbCBMaWdodCIsCiAgICAgICJyb29tIjogIkhhbGwiLAogICAgICAidmVuZG9ySUQiOiA2NTUyMiwKICAgICAgInByb2R1Y3RJRCI6IDQwOTcsCiAgICAgICJ2ZW5kXXJOYW1lIjogIkx1bWVuIFdvcmtzIiwKICAgICAgInByb2R1Y3ROYW1lIjogImBTbWFydCBCdWxiIEExOSIsCiAgICAgICJzb09iamVjdGZ0d2FyZVZlcnNpb24iOiAzCiAgICB9CiAgXSwKICAic2VlZCI6IDcsCiAgImFjdGl2ZVNlc3Npb24iOiB7InBoYXNlIjogInJlcXVlc3RlZCIsICJpZCc6ICJzZXNzaW9uLW91cnMiLCAidG9wb2xvZ3kiOiB7ImVjb3N5c3RlbU5hbWUiOiAiR29vZ2xlIEhvbWUiLCAiaG9tZXMiOiBbIk9hayBMYW5lIl19fQp9Cg==")!

    @Test func aTextTheScannerCannotFollowStillEndsItsScan() async {
        let text = String(decoding: Self.fuzzedHome, as: UTF8.self)
        // The scanner runs when the text has more keys than the value has members, as here. Bounded: the fault this
        // guards against never returned.
        let scanned = await bounded { JSONSourceMap(scanning: text, parsed: .object(JSONObject())).duplicateKeys.count }
        #expect(scanned != nil, "the scan did not end")
    }
}

/// JSON puts every key in double quotes; json-c's strict mode also takes single ones, which the parser refuses.
@Suite struct SingleQuotedKeyTests {
    /// The one diagnostic `text` is refused with; nil (an issue recorded) when it is accepted.
    static func refusal(_ text: String) -> Diagnostic? {
        do {
            _ = try JSONDocument.parse(text, file: "home.json")
            Issue.record("a key in single quotes was accepted")
            return nil
        } catch {
            #expect(error.diagnostics.count == 1)
            return error.diagnostics.first
        }
    }

    @Test func aKeyInSingleQuotesIsRefusedWhereItStands() {
        let refusal = Self.refusal("{\n  \"a\": 1,\n  'b': 2\n}")
        #expect(refusal?.code == DiagnosticCode.syntaxError)
        #expect(refusal?.location == SourceLocation(line: 3, column: 3))
        #expect(refusal?.message.contains("single quotes") == true)
    }

    @Test func singleQuotesInsideStringsAreText() throws {
        let document = try JSONDocument.parse(#"{"it's": "o'clock", "a\"'": 1}"#, file: "t.json")
        #expect(document.value["it's"] == "o'clock")
        #expect(document.value["a\"'"] == 1)
    }

    @Test func theFuzzedHomeIsRefusedAtItsFirstSingleQuotedKey() {
        // `'reachable": ...` on line 4.
        let refusal = Self.refusal(String(decoding: SourceMapScanTests.fuzzedHome, as: UTF8.self))
        #expect(refusal?.code == DiagnosticCode.syntaxError)
        #expect(refusal?.location == SourceLocation(line: 4, column: 27))
        #expect(refusal?.message.contains("single quotes") == true)
    }
}
