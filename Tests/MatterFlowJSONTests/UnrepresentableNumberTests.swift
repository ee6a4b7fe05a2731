import MatterFlowJSON
import Testing

/// Numbers json-c reads but no Swift number holds as written: NaN, Infinity, numbers beyond ±1.8e308 (read as
/// infinite) and integers beyond 64 bits (clamped). Each is a located `numberOutOfRange` error, never a value.
@Suite struct UnrepresentableNumberTests {
    private func findings(_ text: String) -> [Diagnostic] {
        do {
            _ = try JSONDocument.parse(text, file: "numbers.json")
            return []
        } catch {
            return error.diagnostics
        }
    }

    @Test(arguments: [
        ("NaN", "NaN is not a number JSON allows"),
        ("Infinity", "Infinity is not a number JSON allows"),
        ("-Infinity", "-Infinity is not a number JSON allows"),
        ("1e999", "1e999 is beyond the largest number"),
        ("1e-400", "1e-400 is closer to 0 than the smallest number"),
        ("-2.5e-999", "-2.5e-999 is closer to 0 than the smallest number"),
        ("-1e999", "-1e999 is beyond the largest number"),
        ("9223372036854775808", "9223372036854775808 is outside the range of a 64-bit integer"),
        ("-9223372036854775809", "-9223372036854775809 is outside the range of a 64-bit integer"),
        ("18446744073709551616", "18446744073709551616 is outside the range of a 64-bit integer"),
    ])
    func isReportedWhereItStands(literal: String, message: String) throws {
        let found = findings("{\n  \"a\": [1,\n    \(literal)]\n}")
        let finding = try #require(found.first)
        #expect(found.count == 1)
        #expect(finding.code == DiagnosticCode.numberOutOfRange)
        #expect(finding.pointer == "/a/1")
        #expect(finding.location == SourceLocation(line: 3, column: 5))
        #expect(finding.message.hasPrefix(message), "\(finding.message)")
    }

    @Test func aFourHundredDigitIntegerIsShortenedInTheMessage() throws {
        let digits = String(repeating: "7", count: 400)
        let finding = try #require(findings(#"{"timeoutSeconds": \#(digits)}"#).first)
        #expect(finding.pointer == "/timeoutSeconds")
        #expect(finding.message.hasPrefix("77777777777777777777… (400 characters) is outside the range of a 64-bit integer"))
        #expect(finding.description.hasPrefix("numbers.json:1:20: error[numberOutOfRange]: /timeoutSeconds: "))
    }

    @Test func everyOneIsReportedNotOnlyTheFirst() {
        let found = findings(#"{"a": NaN, "b": {"c": [1e400, 5]}, "d": 99999999999999999999}"#)
        #expect(found.map(\.pointer) == ["/a", "/b/c/0", "/d"])
    }

    @Test func theLimitsThemselvesAndZeroAreAccepted() throws {
        let document = try JSONDocument.parse(
            #"{"max": 9223372036854775807, "min": -9223372036854775808, "huge": 1.7976931348623157e308, "tiny": 5e-324, "zero": 0.0, "zeros": -0e-400}"#,
            file: "numbers.json")
        #expect(document.value["max"] == .int(Int.max))
        #expect(document.value["min"] == .int(Int.min))
        #expect(document.value["huge"] == .double(.greatestFiniteMagnitude))
        #expect(document.value["tiny"] == .double(.leastNonzeroMagnitude))
        #expect(document.value["zero"] == .double(0) && document.value["zeros"] == .double(0))
    }

    @Test func aLargeTextParsedAMemberAtATimeIsCheckedToo() {
        // Enough members for the split parse (JSONMemberSplit), with one clamped integer among them.
        var members = (0..<600).map { "\"m\($0)\": \($0)" }
        members[300] = "\"m300\": 123456789012345678901234567890"
        let found = findings("{\"big\": {" + members.joined(separator: ", ") + "}}")
        #expect(found.map(\.pointer) == ["/big/m300"])
    }
}

/// Range checks and their messages.
@Suite struct NumberRangeTests {
    @Test func theMessageNamesTheValueAndTheRange() {
        let seconds = NumberRange(0.001...86_400, unit: "seconds")
        #expect(seconds.problem(with: 1e18) == "1e+18 is outside 0.001...86400 (seconds); use a value in that range")
        #expect(seconds.problem(with: .nan) == "nan is outside 0.001...86400 (seconds); use a value in that range")
        #expect(seconds.problem(with: 0) != nil)
        #expect(seconds.problem(with: 86_400) == nil)
        let retries = NumberRange(integers: 0...100, unit: "retries")
        #expect(retries.problem(with: 2.5) == "2.5 is not a whole number; write one in 0...100 (retries)")
        #expect(retries.problem(with: Int.max) == "9223372036854775807 is outside 0...100 (retries); use a value in that range")
        #expect(retries.problem(with: 100) == nil)
    }

    @Test func anObjectReaderReportsTheFieldAndRange() throws {
        let document = try JSONDocument.parse(#"{"n": 1e300, "m": 7.5, "k": 3}"#, file: "r.json")
        let collector = DiagnosticCollector(document: document)
        let reader = try #require(collector.object(document.value, at: "", what: "test"))
        let range = NumberRange(integers: 0...10)
        #expect(reader.int("n", in: range) == nil)
        #expect(reader.int("m", in: range) == nil)
        #expect(reader.int("k", in: range) == 3)
        #expect(collector.diagnostics.map(\.code) == [DiagnosticCode.numberOutOfRange, DiagnosticCode.wrongType])
        #expect(collector.diagnostics.map(\.pointer) == ["/n", "/m"])
        #expect(collector.diagnostics.first?.description == "r.json:1:7: error[numberOutOfRange]: /n: 1e+300 is outside 0...10; use a value in that range")
    }
}
