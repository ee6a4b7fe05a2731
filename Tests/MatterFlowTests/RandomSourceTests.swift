import MatterFlow
import Testing

@Suite struct RandomSourceTests {
    private static let hex = Set("0123456789abcdef")

    @Test("the system's hex digits: as many as asked, lowercase hex, every digit of a word its own", arguments: [0, 1, 15, 16, 17, 32, 33])
    func systemDigits(count: Int) {
        let digits = SystemRandomSource().hexDigits(count)
        #expect(digits.count == count)
        #expect(digits.allSatisfy(Self.hex.contains))
    }

    @Test("the system's digits vary within a word and over all sixteen values")
    func systemDigitsVary() {
        let source = SystemRandomSource()
        var seen = Set<Character>()
        for _ in 0..<200 {
            let digits = source.hexDigits(32)
            seen.formUnion(digits)
            // Sixteen equal digits in a row would mean one nibble of a word repeated (chance 16^-15 otherwise).
            #expect(Set(digits.prefix(16)).count > 1)
            #expect(Set(digits.suffix(16)).count > 1)
        }
        #expect(seen == Self.hex)
    }

    @Test("a seeded source draws one word per digit, so its digits (run IDs, salts) stay what they were")
    func seededDigitsAreOneWordEach() {
        let digits = SeededRandomSource(seed: 7).hexDigits(20)
        let words = SeededRandomSource(seed: 7)
        let expected = String((0..<20).map { _ in Array("0123456789abcdef")[Int(words.uniform(below: 16))] })
        #expect(digits == expected)
        #expect(SeededRandomSource(seed: 7).hexDigits(20) == digits)
    }
}
