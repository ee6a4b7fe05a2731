import MatterFlow
import MatterFlowJSON
import Testing

/// The text answer's `pattern`: the subset's meaning, whole-answer matching, linear time on the patterns that make
/// backtracking engines run for ever, and every construct outside the subset refused at its position.
@Suite struct AnswerPatternTests {
    struct Case: CustomStringConvertible, Sendable {
        var pattern: String
        var matching: [String]
        var notMatching: [String]
        var description: String { pattern }
    }

    static let semantics: [Case] = [
        Case(pattern: "abc", matching: ["abc"], notMatching: ["ab", "abcd", "xabc", "ABC", ""]),
        Case(pattern: "", matching: [""], notMatching: ["a"]),
        Case(pattern: "^[0-9]+$", matching: ["0", "0123456789"], notMatching: ["", "12a", "a12", "1 2"]),
        Case(pattern: "a.c", matching: ["abc", "a-c", "a c", "aéc"], notMatching: ["ac", "a\nc", "abbc"]),
        Case(pattern: "[a-z0-9_]{3,8}", matching: ["abc", "a_1b_2c3"], notMatching: ["ab", "abcdefghi", "ABC", "ab-c"]),
        Case(pattern: "[^0-9 ]+", matching: ["abc", "A-B"], notMatching: ["a1", "a b", ""]),
        Case(pattern: "[-a]+", matching: ["-a-", "a"], notMatching: ["b"]),
        Case(pattern: "[a-]+", matching: ["a-"], notMatching: ["b"]),
        Case(pattern: #"[\]\\\-]+"#, matching: [#"]\-"#], notMatching: ["a"]),
        Case(pattern: #"\d{3}-\d{4}"#, matching: ["555-1234"], notMatching: ["5551234", "55-1234", "٣٣٣-1234"]),
        Case(pattern: #"\w+"#, matching: ["Kitchen_2"], notMatching: ["Küche", "a b"]),
        Case(pattern: #"\s*x\s*"#, matching: ["x", " \t x\n"], notMatching: [" y "]),
        Case(pattern: #"\D\W\S"#, matching: ["a-b"], notMatching: ["1-b", "aab", "a- "]),
        Case(pattern: #"[\d\s]+"#, matching: ["1 2\t3"], notMatching: ["1a"]),
        Case(pattern: #"\.\*\(\)\[\{\}\|\?\+\^\$\\"#, matching: [#".*()[{}|?+^$\"#], notMatching: ["a"]),
        Case(pattern: #"a\tb\nc"#, matching: ["a\tb\nc"], notMatching: ["atbnc"]),
        Case(pattern: "(ab)+", matching: ["ab", "ababab"], notMatching: ["", "aba"]),
        Case(pattern: "(?:ab|cd)*e", matching: ["e", "abcde", "cdcdabe"], notMatching: ["abc", "abde"]),
        Case(pattern: "Kitchen|Living Room|Office", matching: ["Kitchen", "Living Room", "Office"], notMatching: ["Kitchen|Office", "Living"]),
        Case(pattern: "colou?r", matching: ["color", "colour"], notMatching: ["colouur"]),
        Case(pattern: "a{3}", matching: ["aaa"], notMatching: ["aa", "aaaa"]),
        Case(pattern: "a{2,}", matching: ["aa", "aaaaaaa"], notMatching: ["a"]),
        Case(pattern: "a{0,2}", matching: ["", "a", "aa"], notMatching: ["aaa"]),
        Case(pattern: "(a|)+b", matching: ["b", "aab"], notMatching: ["a"]),
        Case(pattern: "()*x", matching: ["x"], notMatching: ["xx"]),
        Case(pattern: "a|", matching: ["a", ""], notMatching: ["b"]),
        Case(pattern: "x]}", matching: ["x]}"], notMatching: ["x"]),
        Case(pattern: "[é-ü]", matching: ["ö"], notMatching: ["e", "z"]),
        Case(pattern: "^$", matching: [""], notMatching: ["$"]),
        Case(pattern: #"a\$"#, matching: ["a$"], notMatching: ["a"]),
    ]

    @Test(arguments: semantics) func aPatternMatchesTheWholeAnswer(_ row: Case) throws {
        let pattern = try AnswerPattern(row.pattern)
        for text in row.matching {
            #expect(pattern.matches(text), "\(row.pattern) matches \(text.debugDescription)")
        }
        for text in row.notMatching {
            #expect(!pattern.matches(text), "\(row.pattern) does not match \(text.debugDescription)")
        }
    }

    /// Patterns that backtracking engines take exponential time on: each finishes with the right answer.
    @Test func catastrophicPatternsFinishWithTheRightAnswer() throws {
        let long = String(repeating: "a", count: 4096)
        #expect(!(try AnswerPattern("(a+)+$")).matches(long + "!"))
        #expect(try AnswerPattern("(a+)+$").matches(long))
        #expect(!(try AnswerPattern("(a|aa)*b")).matches(long))
        #expect(try AnswerPattern("(a|aa)*b").matches(long + "b"))
        #expect(!(try AnswerPattern("(.*a){20}")).matches(String(repeating: "a", count: 19) + String(repeating: "b", count: 4000)))
        #expect(try AnswerPattern("(.*a){20}").matches(String(repeating: "ba", count: 2000)))
        #expect(!(try AnswerPattern("(a*)*(b*)*(a*)*c")).matches(String(repeating: "ab", count: 2048)))
        #expect(!(try AnswerPattern(#"(\w+\s?)+$"#)).matches(String(repeating: "word ", count: 800) + "!"))
    }

    struct Refusal: CustomStringConvertible, Sendable {
        var pattern: String
        var position: Int
        /// Words the message must hold: the construct's name and what to write instead.
        var says: [String]
        var description: String { pattern }
    }

    static let refusals: [Refusal] = [
        Refusal(pattern: #"(a)\1"#, position: 4, says: ["backreference", "write the group's pattern again"]),
        Refusal(pattern: #"(?<n>a)\k<n>"#, position: 1, says: ["named groups", "(?:...)"]),
        Refusal(pattern: "a(?=b)b", position: 2, says: ["lookahead", "alternatives"]),
        Refusal(pattern: "a(?!b)c", position: 2, says: ["lookahead"]),
        Refusal(pattern: "(?<=a)b", position: 1, says: ["lookbehind"]),
        Refusal(pattern: "(?<!a)b", position: 1, says: ["lookbehind"]),
        Refusal(pattern: "a*?", position: 3, says: ["lazy", "(*?)", "write *"]),
        Refusal(pattern: "a{2,3}?", position: 7, says: ["lazy", "write {2,3}"]),
        Refusal(pattern: "a++", position: 3, says: ["possessive", "write +"]),
        Refusal(pattern: #"\p{L}+"#, position: 1, says: ["Unicode properties", "[A-Za-z]"]),
        Refusal(pattern: #"x\P{Lu}"#, position: 2, says: ["Unicode properties"]),
        Refusal(pattern: "(?i)kitchen", position: 1, says: ["inline options", "[Aa]"]),
        Refusal(pattern: "(?>a+)b", position: 1, says: ["atomic"]),
        Refusal(pattern: "[[:alpha:]]", position: 2, says: ["POSIX class", "[A-Za-z]"]),
        Refusal(pattern: "[a-z&&[^x]]", position: 5, says: ["intersection"]),
        Refusal(pattern: #"\bword\b"#, position: 1, says: ["word boundaries"]),
        Refusal(pattern: #"\Aa\z"#, position: 1, says: ["anchor", "leave it out"]),
        Refusal(pattern: #"\x41"#, position: 1, says: ["character codes", "write the character itself"]),
        Refusal(pattern: "a^b", position: 2, says: ["^", "\\^"]),
        Refusal(pattern: "a$b", position: 2, says: ["$", "\\$"]),
        Refusal(pattern: "*a", position: 1, says: ["repeats nothing", "\\*"]),
        Refusal(pattern: "a**", position: 3, says: ["cannot follow"]),
        Refusal(pattern: "a{,3}", position: 2, says: ["{0,n}"]),
        Refusal(pattern: "a{x}", position: 2, says: ["\\{"]),
        Refusal(pattern: "a{3,2}", position: 2, says: ["out of order", "{2,3}"]),
        Refusal(pattern: "a{1001}", position: 2, says: ["at most 1000"]),
        Refusal(pattern: "a{1,99999999999999999999}", position: 2, says: ["at most 1000"]),
        Refusal(pattern: "(a{1000}){1000}", position: 1, says: ["more than 10000 steps", "smaller counts"]),
        Refusal(pattern: "[z-a]", position: 2, says: ["out of order", "a-z"]),
        Refusal(pattern: "[]", position: 2, says: ["empty", "\\]"]),
        Refusal(pattern: "[abc", position: 1, says: ["never closed", "\\["]),
        Refusal(pattern: "(abc", position: 1, says: ["never closed", "\\("]),
        Refusal(pattern: "abc)", position: 4, says: ["closes no group", "\\)"]),
        Refusal(pattern: "abc\\", position: 4, says: ["lone \\"]),
        Refusal(pattern: #"[\d-z]"#, position: 2, says: ["range cannot start"]),
        Refusal(pattern: #"\q"#, position: 1, says: ["\\q"]),
        Refusal(pattern: String(repeating: "(", count: 40) + "a" + String(repeating: ")", count: 40), position: 33,
                says: ["nested more than 32 deep"]),
        Refusal(pattern: String(repeating: "a", count: 1025), position: 1025, says: ["longer than 1024"]),
    ]

    @Test(arguments: refusals) func aConstructOutsideTheSubsetIsRefusedWhereItIs(_ row: Refusal) {
        do {
            _ = try AnswerPattern(row.pattern)
            Issue.record("\(row.pattern) is refused")
        } catch {
            #expect(error.position == row.position, "\(row.pattern): \(error)")
            for words in row.says {
                #expect(error.message.contains(words), "\(row.pattern): \(error.message) names \(words)")
            }
        }
    }

    /// Tens of thousands of `(` neither overflow the stack nor pass.
    @Test func deeplyNestedGroupsAreRefusedWithoutExhaustingTheStack() {
        #expect(throws: AnswerPatternError.self) { try AnswerPattern(String(repeating: "(", count: 100_000)) }
        #expect(throws: AnswerPatternError.self) { try AnswerPattern(String(repeating: "[", count: 100_000)) }
    }

    /// The loader reports a refused pattern at its JSON pointer, with the construct and its position, and an answer
    /// off a good pattern is refused at the caller.
    @Test func theLoaderLocatesARefusedPatternAndTheRunChecksAnswersAgainstIt() async throws {
        func workflow(_ pattern: String) -> String {
            #"""
            {"workflow": "w", "version": 1, "start": "code", "states": {
              "code": {"type": "ask", "prompt": "Code?", "answer": {"text": {"maxLength": 4096, "pattern": \#(JSONWriter.compact(.string(pattern)))}},
                       "result": "code", "timeoutSeconds": 60, "next": "done", "onTimeout": "done"},
              "done": {"type": "succeed", "output": "${vars.code}"}
            }}
            """#
        }
        let refused = diagnose(workflow("(a+)\\1"))
        let finding = try #require(refused.first { $0.pointer == "/states/code/answer/text/pattern" })
        #expect(finding.code == "invalidValue")
        #expect(finding.severity == .error)
        #expect(finding.message.contains("at character 5") && finding.message.contains("backreferences"))

        let handle = try WorkflowEngine().start(
            try loadWorkflow(workflow("(a|aa)*b")), on: ScriptedHub(), options: RunOptions(structureID: "s", clock: ManualClock()))
        for await event in handle.events {
            guard case .questionAsked = event.kind else { continue }
            do {
                try handle.answer(.text(String(repeating: "a", count: 4000)), to: "code")
                Issue.record("an answer off the pattern is refused")
            } catch {
                #expect(error.code == .invalidAnswer && error.message.contains("(a|aa)*b"))
            }
            try handle.answer(.text("aab"), to: "code")
        }
        #expect(await handle.result.output == .string("aab"))
    }
}
