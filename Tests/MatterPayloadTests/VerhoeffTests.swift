import MatterPayload
import TestGates
import Testing

@Suite("Verhoeff check digits")
struct VerhoeffTests {
    /// Valid strings from the OpenThread checksum unit test, plus the Matter example manual codes.
    static let validStrings = [
        "307318421", "487300178", "123455672", "0", "15", "999999994", "000000001", "100000000", "2363",
        "111111111", "34970112332", "749701123365521327694",
    ]

    @Test("known-good strings verify", arguments: validStrings)
    func knownGoodStringsVerify(_ code: String) throws {
        #expect(Verhoeff.isValid(code))
        try Verhoeff.validate(code)
        let body = String(code.dropLast())
        #expect(try Verhoeff.checkDigit(for: body) == code.last)
        #expect(try Verhoeff.appendingCheckDigit(to: body) == code)
    }

    @Test("decrementing the check digit breaks every known-good string", arguments: validStrings)
    func decrementedCheckDigitFails(_ code: String) throws {
        let last = try #require(code.last?.wholeNumberValue)
        let broken = String(code.dropLast()) + String((last + 9) % 10)
        #expect(!Verhoeff.isValid(broken))
        let error = try #require(throws: VerhoeffError.self) { try Verhoeff.validate(broken) }
        #expect(error.code == .checkDigitMismatch)
        #expect(error.expected == code.last)
        #expect(error.position == code.count - 1)
        #expect(error.message.contains("check digit"))
    }

    @Test("the check digit for 12345678 is 4, so the ot-br example 123456789 is invalid")
    func otbrExample() throws {
        #expect(try Verhoeff.checkDigit(for: "12345678") == "4")
        #expect(!Verhoeff.isValid("123456789"))
        #expect(!Verhoeff.isValid("111111112"))
    }

    @Test("non-digits are reported with their index", arguments: [
        ("307 318421", 3), ("307318421 ", 9), (" 307318421", 0), ("ABCDE", 0), ("12٣4", 2),
    ])
    func nonDigitsAreRejected(_ text: String, _ index: Int) throws {
        #expect(!Verhoeff.isValid(text))
        let error = try #require(throws: VerhoeffError.self) { try Verhoeff.validate(text) }
        #expect(error.code == .nonDigit)
        #expect(error.position == index)
        #expect(throws: VerhoeffError.self) { try Verhoeff.checkDigit(for: text) }
    }

    @Test("an empty string has nothing to check, and check digit 0")
    func emptyString() throws {
        let error = try #require(throws: VerhoeffError.self) { try Verhoeff.validate("") }
        #expect(error.code == .empty)
        #expect(!Verhoeff.isValid(""))
        #expect(try Verhoeff.checkDigit(for: "") == "0")
    }

    @Test("digit values outside 0...9 give no check digit instead of trapping")
    func outOfRangeDigitValues() {
        #expect(Verhoeff.checkDigit(forDigitValues: [1, 2, 10]) == nil)
        #expect(Verhoeff.checkDigit(forDigitValues: [-1]) == nil)
        #expect(Verhoeff.checkDigit(forDigitValues: [3, 4, 9, 7, 0, 1, 1, 2, 3, 3]) == 2)
    }

    @Test("every single-digit error and adjacent transposition is caught (seeded)")
    func detectsSingleErrorsAndTranspositions() throws {
        var generator = SeededGenerator(seed: 0x5EED_0001)
        for _ in 0..<300 {
            let length = Int.random(in: 1...30, using: &generator)
            let body = String((0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
            let code = try Verhoeff.appendingCheckDigit(to: body)
            #expect(Verhoeff.isValid(code))
            var digits = Array(code)
            let index = Int.random(in: 0..<digits.count, using: &generator)
            let original = try #require(digits[index].wholeNumberValue)
            let replacement = (original + Int.random(in: 1...9, using: &generator)) % 10
            digits[index] = Character(String(replacement))
            #expect(!Verhoeff.isValid(String(digits)), "substitution at \(index) in \(code)")

            var swapped = Array(code)
            let left = Int.random(in: 0..<max(1, swapped.count - 1), using: &generator)
            if left + 1 < swapped.count, swapped[left] != swapped[left + 1] {
                swapped.swapAt(left, left + 1)
                #expect(!Verhoeff.isValid(String(swapped)), "transposition at \(left) in \(code)")
            }
        }
    }
}
