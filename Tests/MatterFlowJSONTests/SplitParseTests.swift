import Foundation
import Testing

@testable import MatterFlowJSON

/// Large texts are parsed a member of their largest object at a time; the value, and every error, must be what
/// parsing the text whole gives.
@Suite struct SplitParseTests {
    /// A workflow-like text with `count` members in its "states" object, each built by `member`.
    static func text(_ count: Int, member: (Int) -> String = { #""s\#($0)": {"type": "assign", "set": {"x": \#($0)}, "next": "s\#($0 + 1)"}"# }) -> String {
        #"{"workflow": "w", "version": 1, "states": {"# + (0..<count).map(member).joined(separator: ",\n  ") + #"}, "start": "s0"}"#
    }

    /// The value or the error of parsing `text` both ways, which must agree; and whether the split was taken.
    static func compare(_ text: String, sourceLocation: Testing.SourceLocation = #_sourceLocation) -> Bool {
        var copy = text
        let split = copy.withUTF8 { JSONCBridge.parseSplit($0) }
        let whole = Result { () throws(JSONCBridge.SyntaxFailure) in try JSONCBridge.parseWhole(text) }
        let public_ = Result { () throws(JSONCBridge.SyntaxFailure) in try JSONCBridge.parse(text) }
        switch (whole, public_) {
        case (.success(let expected), .success(let actual)):
            #expect(actual == expected, sourceLocation: sourceLocation)
            #expect(expected.memberCountIncludingNested == actual.memberCountIncludingNested, sourceLocation: sourceLocation)
        case (.failure(let expected), .failure(let actual)):
            #expect(actual.byteOffset == expected.byteOffset && actual.reason == expected.reason, sourceLocation: sourceLocation)
        default:
            Issue.record("parse and whole parse disagree on \(text.prefix(80))", sourceLocation: sourceLocation)
        }
        if split != nil, case .success(let expected) = whole { #expect(split == expected, sourceLocation: sourceLocation) }
        if split != nil, case .failure(let failure) = whole {
            // json-c took every piece: only what it accepts and JSON does not may refuse the text, found in it whole.
            let strictness = copy.withUTF8 { JSONStrictness.firstViolation(in: $0) }
            if strictness?.byteOffset != failure.byteOffset {
                Issue.record("an invalid text was accepted in pieces", sourceLocation: sourceLocation)
            }
        }
        return split != nil
    }

    @Test func aLargeValidTextIsSplitAndGivesTheSameValue() {
        #expect(Self.compare(Self.text(1_000)))
        #expect(Self.compare(Self.text(400, member: { #""k\#($0)": [1, {"a": "}\"{"}, "\u00e9", null, true, -2.5e3]"# })))
    }

    @Test func repeatedKeysKeepTheFirstPlaceAndTheLastValue() {
        #expect(Self.compare(Self.text(600, member: { #""s\#($0 % 300)": \#($0)"# })))
    }

    @Test func smallTextsAreParsedWhole() {
        #expect(!Self.compare(Self.text(10)))
    }

    @Test("invalid large texts report what the whole parse reports", arguments: [
        #"{"a": 1 "b": 2}"#, #"{"a": 1,}"#, #"{"a" 1}"#, #"{"a": [1, 2}"#, #"{"a": tru}"#, #"{"a": "x\q"}"#, #"{"a": 01}"#,
        #"{a: 1}"#, #"{"a": 1}}"#, #"{"a": "\u12"}"#, #"{"a": 1},"#, "{\"a\": \"tab\there\"}",
    ])
    func invalidMembers(_ bad: String) {
        let text = Self.text(500).replacingOccurrences(of: #""s250": {"type": "assign", "set": {"x": 250}, "next": "s251"}"#, with: #""s250": "# + bad)
        _ = Self.compare(text)
        let broken = Self.text(500).replacingOccurrences(of: #""s250""#, with: bad)
        _ = Self.compare(broken)
    }

    @Test func invalidTextAroundTheMembersReportsWhatTheWholeParseReports() {
        for text in [Self.text(500) + "x", "[" + Self.text(500), Self.text(500).replacingOccurrences(of: #""version": 1"#, with: #""version": 1,,"#),
                     Self.text(500).replacingOccurrences(of: "},\n  \"s3\"", with: "}\n  \"s3\""), Self.text(500).replacingOccurrences(of: "\"start\"", with: "\"states\"")]
        {
            _ = Self.compare(text)
        }
    }

    @Test func nestingAsDeepAsTheWholeParseAllows() {
        for depth in [28, 29, 30, 31, 32] {
            let deep = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            let split = Self.compare(Self.text(500).replacingOccurrences(of: #"{"x": 250}"#, with: deep))
            // Up to the depth json-c takes a member at (its own limit, less the levels around the member), the
            // text is split; deeper, the whole parse answers.
            if depth <= 29 { #expect(split, "depth \(depth) was not parsed in pieces") }
        }
    }
}
