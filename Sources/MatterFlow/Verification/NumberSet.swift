/// A set of operations, each by the number ``SessionGraph/number(of:)`` gives its name, as bits.
///
/// The session facts of every configuration the session proofs walk hold two of these, and copying, comparing and
/// hashing them are the walk's commonest work: for the first 64 numbers each takes one word, with no allocation.
/// More (a catalog with many operations in use) take an array.
struct OperationSet: Hashable {
    private var low: UInt64 = 0
    /// Words for the numbers from 64 on; no trailing zero word, so that equal sets are equal values.
    private var high: [UInt64] = []

    init() {}

    var isEmpty: Bool { low == 0 && high.isEmpty }

    /// How many operations the set holds.
    var count: Int { high.reduce(low.nonzeroBitCount) { $0 + $1.nonzeroBitCount } }

    func contains(_ number: Int) -> Bool {
        if number < 64 { return low & (1 << UInt64(number)) != 0 }
        let word = number / 64 - 1
        return word < high.count && high[word] & (1 << UInt64(number % 64)) != 0
    }

    mutating func insert(_ number: Int) {
        if number < 64 {
            low |= 1 << UInt64(number)
            return
        }
        let word = number / 64 - 1
        if word >= high.count { high.append(contentsOf: repeatElement(0, count: word + 1 - high.count)) }
        high[word] |= 1 << UInt64(number % 64)
    }

    mutating func formUnion(_ other: OperationSet) {
        low |= other.low
        if high.count < other.high.count { high.append(contentsOf: repeatElement(0, count: other.high.count - high.count)) }
        for word in other.high.indices { high[word] |= other.high[word] }
    }

    func union(_ other: OperationSet) -> OperationSet {
        var union = self
        union.formUnion(other)
        return union
    }

    func intersection(_ other: OperationSet) -> OperationSet {
        var common = OperationSet()
        common.low = low & other.low
        if !high.isEmpty, !other.high.isEmpty {
            common.high = zip(high, other.high).map { $0 & $1 }
            while common.high.last == 0 { common.high.removeLast() }
        }
        return common
    }

    func isSubset(of other: OperationSet) -> Bool {
        guard low & ~other.low == 0, high.count <= other.high.count else { return false }
        return high.indices.allSatisfy { high[$0] & ~other.high[$0] == 0 }
    }

    /// Whether the sets have an operation in common.
    func intersects(_ other: OperationSet) -> Bool {
        if low & other.low != 0 { return true }
        return zip(high, other.high).contains { $0 & $1 != 0 }
    }
}
