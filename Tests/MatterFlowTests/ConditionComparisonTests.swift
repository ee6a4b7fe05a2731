import MatterFlowJSON
import Testing

@testable import MatterFlow

/// What `equals` and the order comparisons of a condition decide, as docs/workflow-language.md §10 states it.
@Suite struct ConditionComparisonTests {
    @Test("numbers compare by value at any depth; objects member by member in any order")
    func equality() {
        #expect(Scope.equal(1, 1.0))
        #expect(Scope.equal([1], [1.0]))
        #expect(Scope.equal(["a": 1, "b": 2], ["b": 2, "a": 1.0]))
        #expect(!Scope.equal(["a": 1], ["a": 1, "b": 2]))
        #expect(!Scope.equal(1, "1"))
        #expect(!Scope.equal(.null, false))
    }

    @Test("integers compare exactly, beyond what a 64-bit float tells apart")
    func exactIntegers() {
        let big = JSONValue.int(9_007_199_254_740_993)
        #expect(!Scope.equal(big, .int(9_007_199_254_740_992)))
        #expect(!Scope.equal(big, .double(9_007_199_254_740_992)))
        #expect(Scope.compare(.greaterThan, big, .double(9_007_199_254_740_992)))
        #expect(Scope.compare(.lessThan, .int(Int.max), .double(0x1p63)))
        #expect(Scope.compare(.greaterThan, .int(Int.min), .double(-0x1p64)))
        #expect(Scope.compare(.lessThan, .int(3), .double(3.5)))
        #expect(Scope.compare(.greaterThan, .double(3.5), .int(3)))
        #expect(Scope.compare(.lessThanOrEqual, .int(-4), .double(-3.5)))
        #expect(!Scope.compare(.lessThan, .int(-3), .double(-3.5)))
        #expect(Scope.equal(.int(Int.min), .double(-0x1p63)))
    }

    @Test("order comparisons of anything but two numbers or two strings are false")
    func orderOfMixedTypes() {
        #expect(!Scope.compare(.lessThan, 1, "2"))
        #expect(!Scope.compare(.greaterThanOrEqual, .null, .null))
        #expect(Scope.compare(.lessThan, "a", "b"))
    }
}
