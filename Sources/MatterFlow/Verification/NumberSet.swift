/// A set of small non-negative numbers, as bits: the operations of the session proofs (``OperationSet``, numbered
/// by ``SessionGraph/number(of:)``) and the possible errors of the error analyses (``ErrorSet``, numbered by
/// ``PossibleErrorTable/number(of:)``).
///
/// The session facts of every configuration the session proofs walk hold two of these, and the error flow unions
/// them along every edge: copying, comparing and hashing them are the analyses' commonest work. For the first 64
/// numbers each takes one word, with no allocation. More (a catalog with many operations or errors in use) take an
/// array.
struct NumberSet: Hashable, Sequence {
    private var low: UInt64 = 0
    /// Words for the numbers from 64 on; no trailing zero word, so that equal sets are equal values.
    private var high: [UInt64] = []

    init() {}

    /// A set of the numbers given.
    init(_ numbers: some Sequence<Int>) {
        for number in numbers { insert(number) }
    }

    var isEmpty: Bool { low == 0 && high.isEmpty }

    /// How many numbers the set holds.
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

    mutating func remove(_ number: Int) {
        if number < 64 {
            low &= ~(1 << UInt64(number))
            return
        }
        let word = number / 64 - 1
        guard word < high.count else { return }
        high[word] &= ~(1 << UInt64(number % 64))
        trim()
    }

    mutating func formUnion(_ other: NumberSet) {
        low |= other.low
        guard !other.high.isEmpty else { return }
        if high.count < other.high.count { high.append(contentsOf: repeatElement(0, count: other.high.count - high.count)) }
        for word in other.high.indices { high[word] |= other.high[word] }
    }

    func union(_ other: NumberSet) -> NumberSet {
        var union = self
        union.formUnion(other)
        return union
    }

    func intersection(_ other: NumberSet) -> NumberSet {
        var common = NumberSet()
        common.low = low & other.low
        if !high.isEmpty, !other.high.isEmpty {
            common.high = zip(high, other.high).map { $0 & $1 }
            common.trim()
        }
        return common
    }

    /// The numbers of this set that `other` does not hold.
    func subtracting(_ other: NumberSet) -> NumberSet {
        var rest = self
        rest.low &= ~other.low
        if !rest.high.isEmpty, !other.high.isEmpty {
            for word in 0..<Swift.min(rest.high.count, other.high.count) { rest.high[word] &= ~other.high[word] }
            rest.trim()
        }
        return rest
    }

    func isSubset(of other: NumberSet) -> Bool {
        guard low & ~other.low == 0, high.count <= other.high.count else { return false }
        return high.indices.allSatisfy { high[$0] & ~other.high[$0] == 0 }
    }

    /// Whether the sets have a number in common.
    func intersects(_ other: NumberSet) -> Bool {
        if low & other.low != 0 { return true }
        return zip(high, other.high).contains { $0 & $1 != 0 }
    }

    /// Drops trailing zero words, so that equal sets are equal values.
    private mutating func trim() {
        while high.last == 0 { high.removeLast() }
    }

    /// The numbers in increasing order.
    func makeIterator() -> Iterator {
        Iterator(set: self)
    }

    /// Walks the set bits, lowest first.
    struct Iterator: IteratorProtocol {
        let set: NumberSet
        /// The word being walked (0: `low`, then `high[word - 1]`), with the bits not yet returned.
        var word = 0
        var bits: UInt64

        init(set: NumberSet) {
            self.set = set
            bits = set.low
        }

        mutating func next() -> Int? {
            while bits == 0 {
                word += 1
                guard word <= set.high.count else { return nil }
                bits = set.high[word - 1]
            }
            let bit = bits.trailingZeroBitCount
            bits &= bits &- 1
            return word * 64 + bit
        }
    }
}

/// Operations by the number ``SessionGraph/number(of:)`` gives their names.
typealias OperationSet = NumberSet
