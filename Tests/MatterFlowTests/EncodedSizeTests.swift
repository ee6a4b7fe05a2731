import MatterFlowJSON
import Testing

@testable import MatterFlow

/// The size bound on built values measures them as JSON writes them: escapes, keys and numbers counted as written.
@Suite struct EncodedSizeTests {
    @Test("a value without floats is measured at exactly its compact JSON's length; a float at no less than its own")
    func measuredAsWritten() {
        let values: [JSONValue] = [
            .int(Int.min), .int(Int.max), .int(0), .int(-7), .int(1_000_000),
            .string("plain"), .string("quote \" backslash \\ newline \n tab \t bell \u{7} é"),
            .array([.int(Int.min), .null, .bool(true), .bool(false), .string("\u{1}\u{1f}")]),
            .object(JSONObject([.init(key: "k\u{1}\"ey", value: .int(-42)), .init(key: "ü", value: .array([]))])),
        ]
        for value in values {
            #expect(Scope.encodedSize(of: value, within: .max) == JSONWriter.compact(value).utf8.count, "\(JSONWriter.compact(value))")
        }
        for number in [0.1, -1.7976931348623157e308, Double.leastNonzeroMagnitude, 123456.789] {
            let size = Scope.encodedSize(of: .double(number), within: .max) ?? 0
            #expect(size >= JSONWriter.compact(.double(number)).utf8.count, "\(number)")
        }
        // The walk stops at the budget.
        #expect(Scope.encodedSize(of: .array(Array(repeating: .int(Int.min), count: 10)), within: 100) == nil)
    }
}
