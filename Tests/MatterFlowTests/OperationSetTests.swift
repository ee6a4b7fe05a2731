import Testing

@testable import MatterFlow

/// The session proofs keep the operations a session has done as bits: a load whose tree calls more than 64
/// distinct operations (a large custom catalog) spills into further words, and the facts must compare, narrow and
/// combine there exactly as sets of names would.
@Suite struct OperationSetTests {
    static func set(_ numbers: [Int]) -> OperationSet {
        var set = OperationSet()
        for number in numbers { set.insert(number) }
        return set
    }

    @Test("numbers past the first word are held, counted and found", arguments: [[0, 63], [64], [3, 70, 200], [127, 128, 129]])
    func holdsEveryNumber(numbers: [Int]) {
        let set = Self.set(numbers)
        #expect(set.count == numbers.count)
        #expect(!set.isEmpty)
        for number in 0..<260 {
            #expect(set.contains(number) == numbers.contains(number), "number \(number)")
        }
    }

    @Test func narrowingAwayTheHighWordsLeavesAnEqualSet() {
        // A caller's facts narrowed to what a child can tell apart must equal the child's own entry facts, or the
        // child would be explored again as a different instance.
        let caller = Self.set([2, 5, 130])
        let requirements = Self.set([2, 5, 64])
        let narrowed = caller.intersection(requirements)
        #expect(narrowed == Self.set([2, 5]))
        #expect(narrowed.hashValue == Self.set([2, 5]).hashValue)
        #expect(caller.intersection(Self.set([130])) == Self.set([130]))
    }

    @Test func subsetsUnionsAndOverlapsAcrossWords() {
        let small = Self.set([1, 100])
        let large = Self.set([1, 64, 100, 300])
        #expect(small.isSubset(of: large))
        #expect(!large.isSubset(of: small))
        #expect(!Self.set([300]).isSubset(of: Self.set([1])))
        #expect(OperationSet().isSubset(of: small))
        #expect(small.union(Self.set([300])) == Self.set([1, 100, 300]))
        #expect(small.intersects(Self.set([100])))
        #expect(!small.intersects(Self.set([2, 64, 300])))
    }

    @Test func removingAndSubtractingAcrossWordsLeaveEqualSets() {
        // Error sets shrink as routes take errors, and variable facts forget what a cancel leaves unknown: a set
        // that lost its high numbers must equal (and hash as) one that never had them, or the walk would explore
        // the same configuration twice and the error flow would never settle.
        var set = Self.set([3, 64, 200])
        set.remove(200)
        set.remove(64)
        #expect(set == Self.set([3]))
        #expect(set.hashValue == Self.set([3]).hashValue)
        set.remove(500)
        #expect(set == Self.set([3]))
        let errors = Self.set([0, 7, 70, 140])
        #expect(errors.subtracting(Self.set([70, 140])) == Self.set([0, 7]))
        #expect(errors.subtracting(Self.set([7, 140, 400])) == Self.set([0, 70]))
        #expect(errors.subtracting(OperationSet()) == errors)
    }

    @Test("iterating gives every number once, in order", arguments: [[], [0], [5, 63, 64, 65], [1, 130, 259]])
    func iteratesInOrder(numbers: [Int]) {
        // Findings list the errors of a set by iterating it.
        #expect(Array(Self.set(numbers)) == numbers)
    }
}
