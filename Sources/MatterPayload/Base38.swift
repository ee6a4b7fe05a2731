/// The base-38 text encoding used by Matter QR codes.
///
/// The alphabet is `0-9`, `A-Z`, `-` and `.` (38 symbols, all in the QR alphanumeric set). Bytes are taken in groups
/// of three, read as a little-endian number and written as five digits, least significant digit first. A final
/// group of two bytes becomes four digits and a final single byte two digits, so valid text lengths are 5k, 5k+2 and
/// 5k+4.
///
/// ```swift
/// Base38.encode([10, 10, 10])      // "-N.B0"
/// try Base38.decode("-N.B0")       // [10, 10, 10]
/// ```
public enum Base38 {
    /// The 38 symbols, in digit-value order.
    public static let alphabet: [Character] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-.")

    /// Digit value by ASCII code, -1 for characters outside the alphabet.
    private static let valueByASCII: [Int] = {
        var table = [Int](repeating: -1, count: 128)
        for (value, symbol) in alphabet.enumerated() {
            if let ascii = symbol.asciiValue { table[Int(ascii)] = value }
        }
        return table
    }()

    /// How many base-38 digits encode a group of 1, 2 or 3 bytes (index = byte count).
    private static let digitsPerByteCount = [0, 2, 4, 5]

    /// The base-38 text for `bytes`.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output = ""
        output.reserveCapacity((bytes.count + 2) / 3 * 5)
        var start = 0
        while start < bytes.count {
            let count = min(3, bytes.count - start)
            var value = 0
            for offset in 0..<count {
                value |= Int(bytes[start + offset]) << (8 * offset)
            }
            for _ in 0..<digitsPerByteCount[count] {
                output.append(alphabet[value % 38])
                value /= 38
            }
            start += count
        }
        return output
    }

    /// The bytes that `text` encodes.
    ///
    /// - Throws: ``PayloadError`` with code `invalidBase38Character` and the offset of the first character outside
    ///   the alphabet, `invalidBase38Length` when the length is not 5k, 5k+2 or 5k+4, or `base38ChunkOverflow` with
    ///   the offset of a group whose value does not fit its bytes.
    public static func decode(_ text: some StringProtocol) throws(PayloadError) -> [UInt8] {
        try decode(Array(text)[...], positionOffset: 0)
    }

    /// Decodes `characters`, reporting positions as `positionOffset` plus the offset within `characters`.
    ///
    /// Messages never show decoded values: in a QR code they hold passcode bits.
    static func decode(_ characters: ArraySlice<Character>, positionOffset: Int) throws(PayloadError) -> [UInt8] {
        var digits: [Int] = []
        digits.reserveCapacity(characters.count)
        for (offset, character) in characters.enumerated() {
            guard let value = digitValue(character) else {
                let position = positionOffset + offset
                throw PayloadError(
                    code: .invalidBase38Character,
                    message: "character \(quoted(character)) at index \(position) is not in the base-38 alphabet "
                        + "0-9, A-Z, '-', '.'",
                    position: position, found: String(character))
            }
            digits.append(value)
        }
        let remainder = digits.count % 5
        guard remainder != 1, remainder != 3 else {
            throw PayloadError(
                code: .invalidBase38Length,
                message: "\(digits.count) base-38 characters starting at index \(positionOffset) cannot encode whole "
                    + "bytes (the length must be a multiple of 5, plus 0, 2 or 4)",
                position: positionOffset, found: String(digits.count))
        }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 5 * 3 + 2)
        var start = 0
        while start < digits.count {
            let digitCount = min(5, digits.count - start)
            let byteCount = digitCount == 5 ? 3 : digitCount / 2
            var value = 0
            for offset in stride(from: digitCount - 1, through: 0, by: -1) {
                value = value * 38 + digits[start + offset]
            }
            guard value < 1 << (8 * byteCount) else {
                let position = positionOffset + start
                throw PayloadError(
                    code: .base38ChunkOverflow,
                    message: "the \(digitCount) base-38 characters at index \(position) encode a number too large "
                        + "for \(byteCount) byte\(byteCount == 1 ? "" : "s")",
                    position: position)
            }
            for offset in 0..<byteCount {
                bytes.append(UInt8(truncatingIfNeeded: value >> (8 * offset)))
            }
            start += digitCount
        }
        return bytes
    }

    /// The digit value of `character`, or `nil` if it is not in the alphabet.
    static func digitValue(_ character: Character) -> Int? {
        guard character.unicodeScalars.count == 1, let ascii = character.asciiValue else { return nil }
        let value = valueByASCII[Int(ascii)]
        return value >= 0 ? value : nil
    }
}

/// A character shown in a message: printable ASCII as `'c'`, anything else as its scalar codes (`U+0009`).
func quoted(_ character: Character) -> String {
    if let ascii = character.asciiValue, character.unicodeScalars.count == 1, (33...126).contains(ascii) {
        return "'\(character)'"
    }
    let codes = character.unicodeScalars.map { scalar -> String in
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }
    return codes.joined(separator: " ")
}
