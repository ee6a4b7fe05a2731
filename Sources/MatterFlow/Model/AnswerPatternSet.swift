/// A set of Unicode scalars, as sorted, non-overlapping, non-adjacent ranges: what one step of an answer pattern
/// (a character, `.`, a class, `\d`) accepts.
struct AnswerPatternSet: Sendable, Hashable {
    /// The ranges of scalar values, sorted and merged.
    private(set) var ranges: [ClosedRange<UInt32>]

    /// The set of the given ranges, in any order, overlapping or not.
    init(_ ranges: [ClosedRange<UInt32>]) {
        var merged: [ClosedRange<UInt32>] = []
        for range in ranges.sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, UInt64(range.lowerBound) <= UInt64(last.upperBound) + 1 {
                merged[merged.count - 1] = last.lowerBound...max(last.upperBound, range.upperBound)
            } else {
                merged.append(range)
            }
        }
        self.ranges = merged
    }

    /// The set of one scalar.
    init(_ scalar: Unicode.Scalar) {
        self.ranges = [scalar.value...scalar.value]
    }

    /// Every scalar value not in this set.
    var inverted: AnswerPatternSet {
        var result: [ClosedRange<UInt32>] = []
        var next: UInt64 = 0
        for range in ranges {
            if UInt64(range.lowerBound) > next { result.append(UInt32(next)...(range.lowerBound - 1)) }
            next = UInt64(range.upperBound) + 1
        }
        if next <= UInt64(Self.largestScalar) { result.append(UInt32(next)...Self.largestScalar) }
        return AnswerPatternSet(result)
    }

    /// The union of two sets.
    func union(_ other: AnswerPatternSet) -> AnswerPatternSet {
        AnswerPatternSet(ranges + other.ranges)
    }

    /// Whether the set holds the scalar (a binary search over the ranges).
    func contains(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        var low = 0
        var high = ranges.count
        while low < high {
            let middle = (low + high) / 2
            if ranges[middle].upperBound < value {
                low = middle + 1
            } else if ranges[middle].lowerBound > value {
                high = middle
            } else {
                return true
            }
        }
        return false
    }

    /// The largest Unicode scalar value.
    static let largestScalar: UInt32 = 0x10FFFF

    /// `.`: any scalar but a line feed.
    static let anyButLineFeed = AnswerPatternSet([0...0x09, 0x0B...largestScalar])
    /// `\d`: ASCII digits.
    static let digits = AnswerPatternSet([0x30...0x39])
    /// `\w`: ASCII letters, digits and the underscore.
    static let wordCharacters = AnswerPatternSet([0x30...0x39, 0x41...0x5A, 0x5F...0x5F, 0x61...0x7A])
    /// `\s`: space, tab, line feed, vertical tab, form feed and carriage return.
    static let whitespace = AnswerPatternSet([0x09...0x0D, 0x20...0x20])
}
