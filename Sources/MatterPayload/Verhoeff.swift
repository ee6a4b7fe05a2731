/// The Verhoeff check-digit scheme over decimal digits, as used by Matter manual pairing codes and Thread ePSKc keys.
///
/// The scheme works in the dihedral group D5. Digit *i* from the right (the check digit is position 0) is first
/// moved by the base permutation `(1 5 7 6 2 8 3 0 9 4)` applied *i* times, then combined with the running value by the
/// group operation. The check digit is the group inverse of the result, so that a full string combines to 0.
///
/// The permutation rows are derived from the base permutation rather than typed in, and the group operation is
/// computed, not tabled: both are easy to get wrong by hand.
///
/// ```swift
/// let digit = try Verhoeff.checkDigit(for: "3497011233")   // "2"
/// Verhoeff.isValid("34970112332")                           // true
/// ```
public enum Verhoeff {
    /// The base permutation: where each digit moves at position 1.
    private static let basePermutation: [Int] = [1, 5, 7, 6, 2, 8, 3, 0, 9, 4]

    /// `permutations[k][d]` is the base permutation applied `k` times to `d`, for `k` in 0..<8 (the order of the
    /// base permutation is 8, so position *i* uses row `i % 8`).
    private static let permutations: [[Int]] = {
        var rows: [[Int]] = [Array(0...9)]
        while rows.count < 8 {
            let previous = rows[rows.count - 1]
            rows.append(previous.map { basePermutation[$0] })
        }
        return rows
    }()

    /// The group operation of D5 on the labels 0…9: 0–4 are rotations, 5–9 reflections.
    private static func multiply(_ a: Int, _ b: Int) -> Int {
        switch (a < 5, b < 5) {
        case (true, true): return (a + b) % 5
        case (true, false): return 5 + (a + (b - 5)) % 5
        case (false, true): return 5 + ((a - 5) - b + 5) % 5
        case (false, false): return ((a - 5) - (b - 5) + 5) % 5
        }
    }

    /// The group inverse: rotations 1…4 invert to 5 − r; 0 and the reflections are their own inverses.
    private static func inverse(_ a: Int) -> Int {
        (1...4).contains(a) ? 5 - a : a
    }

    /// The check digit (0…9) for digit values given most significant first, or `nil` if a value is outside 0…9.
    ///
    /// An empty sequence has check digit 0.
    public static func checkDigit(forDigitValues values: [Int]) -> Int? {
        var accumulator = 0
        for (offset, value) in values.reversed().enumerated() {
            guard (0...9).contains(value) else { return nil }
            let moved = permutations[(offset + 1) % 8][value]
            accumulator = multiply(accumulator, moved)
        }
        return inverse(accumulator)
    }

    /// The check digit for a string of decimal digits.
    ///
    /// - Throws: ``VerhoeffError`` with code `nonDigit` and the offset of the first character that is not `0`…`9`.
    public static func checkDigit(for digits: some StringProtocol) throws(VerhoeffError) -> Character {
        let values = try digitValues(of: digits)
        // Every value came from an ASCII digit, so the computation cannot fail.
        let check = checkDigit(forDigitValues: values) ?? 0
        return Character(String(check))
    }

    /// `digits` followed by its check digit.
    ///
    /// - Throws: ``VerhoeffError`` when `digits` contains anything but `0`…`9`.
    public static func appendingCheckDigit(to digits: some StringProtocol) throws(VerhoeffError) -> String {
        let check = try checkDigit(for: digits)
        return String(digits) + String(check)
    }

    /// Checks that the last character of `code` is the Verhoeff check digit of the characters before it.
    ///
    /// - Throws: ``VerhoeffError`` with code `empty` for an empty string, `nonDigit` for a character that is not a
    ///   decimal digit, or `checkDigitMismatch` carrying the expected digit and the offset of the check digit.
    public static func validate(_ code: some StringProtocol) throws(VerhoeffError) {
        let values = try digitValues(of: code)
        guard let last = values.last else {
            throw VerhoeffError(code: .empty, message: "there are no digits to check", position: nil)
        }
        let expected = checkDigit(forDigitValues: Array(values.dropLast())) ?? 0
        guard expected == last else {
            let position = values.count - 1
            throw VerhoeffError(
                code: .checkDigitMismatch,
                message: "check digit at index \(position) is \(last) but the Verhoeff check digit is \(expected)",
                position: position, expected: Character(String(expected)), found: Character(String(last)))
        }
    }

    /// Whether `code` is a non-empty string of decimal digits whose last digit is the Verhoeff check digit.
    public static func isValid(_ code: some StringProtocol) -> Bool {
        do {
            try validate(code)
            return true
        } catch {
            return false
        }
    }

    /// The values of the characters of `text`, which must all be ASCII digits.
    private static func digitValues(of text: some StringProtocol) throws(VerhoeffError) -> [Int] {
        var values: [Int] = []
        values.reserveCapacity(text.count)
        for (offset, character) in text.enumerated() {
            guard let value = asciiDigitValue(character) else {
                throw VerhoeffError(
                    code: .nonDigit, message: "character at index \(offset) is not a decimal digit",
                    position: offset)
            }
            values.append(value)
        }
        return values
    }
}

/// The value of an ASCII decimal digit character, or `nil` for any other character.
func asciiDigitValue(_ character: Character) -> Int? {
    guard character.unicodeScalars.count == 1, let ascii = character.asciiValue, (48...57).contains(ascii) else {
        return nil
    }
    return Int(ascii - 48)
}
