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

    /// The base-38 text for `bytes`.
    public static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 5)
        var start = 0
        while start < bytes.count {
            let count = min(3, bytes.count - start)
            var value = 0
            for offset in 0..<count {
                value |= Int(bytes[start + offset]) << (8 * offset)
            }
            // 1, 2 or 3 bytes take 2, 4 or 5 digits.
            let digitCount = count == 3 ? 5 : count * 2
            for _ in 0..<digitCount {
                output.append(symbol(value % 38))
                value /= 38
            }
            start += count
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The ASCII code of the symbol for digit value `value` (0...37), as in `alphabet`.
    private static func symbol(_ value: Int) -> UInt8 {
        switch value {
        case 0..<10: UInt8(ascii: "0") + UInt8(value)
        case 10..<36: UInt8(ascii: "A") + UInt8(value - 10)
        case 36: UInt8(ascii: "-")
        default: UInt8(ascii: ".")
        }
    }

    /// The bytes that `text` encodes.
    ///
    /// - Throws: ``PayloadError`` with code `invalidBase38Character` and the offset of the first character outside
    ///   the alphabet, `invalidBase38Length` when the length is not 5k, 5k+2 or 5k+4, or `base38ChunkOverflow` with
    ///   the offset of a group whose value does not fit its bytes.
    public static func decode(_ text: some StringProtocol) throws(PayloadError) -> [UInt8] {
        let characters = PayloadText(text)
        return try decode(characters, 0..<characters.count)
    }

    /// Decodes the characters of `text` in `range`; positions in errors are offsets into `text`.
    ///
    /// Messages never show the characters or decoded values: in a QR code they hold passcode bits.
    static func decode(_ text: PayloadText, _ range: Range<Int>) throws(PayloadError) -> [UInt8] {
        // Every character is checked before the length, so a bad character is reported first.
        for index in range where digitValue(text, index) == nil {
            let character = text[index]
            // Base-38 has no lowercase letters: such a letter is most often a code retyped or passed through
            // something that lowercased it, and the letter meant is its capital.
            let capitals = character.isASCII && character.isLowercase
                ? ": the letters of a QR code are all capitals, so copy the code in capitals, as printed" : ""
            throw PayloadError(
                code: .invalidBase38Character,
                message: "\(characterKind(character)) at \(characterPlace(index)) is not in the base-38 alphabet "
                    + "0-9, A-Z, '-', '.'\(capitals)",
                position: index)
        }
        let remainder = range.count % 5
        guard remainder != 1, remainder != 3 else {
            throw PayloadError(
                code: .invalidBase38Length,
                message: "\(range.count) base-38 characters starting at \(characterPlace(range.lowerBound)) cannot encode "
                    + "whole bytes (the length must be a multiple of 5, plus 0, 2 or 4)",
                position: range.lowerBound, found: String(range.count))
        }

        var bytes: [UInt8] = []
        bytes.reserveCapacity(range.count / 5 * 3 + 2)
        var start = range.lowerBound
        while start < range.upperBound {
            let digitCount = min(5, range.upperBound - start)
            let byteCount = digitCount == 5 ? 3 : digitCount / 2
            var value = 0
            for index in stride(from: start + digitCount - 1, through: start, by: -1) {
                // Every character was checked above.
                value = value * 38 + (digitValue(text, index) ?? 0)
            }
            guard value < 1 << (8 * byteCount) else {
                throw PayloadError(
                    code: .base38ChunkOverflow,
                    message: "the \(digitCount) base-38 characters at \(characterPlace(start)) encode a number too large "
                        + "for \(byteCount) byte\(byteCount == 1 ? "" : "s")",
                    position: start)
            }
            for offset in 0..<byteCount {
                bytes.append(UInt8(truncatingIfNeeded: value >> (8 * offset)))
            }
            start += digitCount
        }
        return bytes
    }

    /// The digit value of the character at `index` of `text`, or `nil` if it is not in the alphabet.
    private static func digitValue(_ text: PayloadText, _ index: Int) -> Int? {
        guard let ascii = text.ascii(at: index) else { return nil }
        // The order of `alphabet`: digits, capital letters, '-', '.'.
        switch ascii {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return Int(ascii - UInt8(ascii: "0"))
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return 10 + Int(ascii - UInt8(ascii: "A"))
        case UInt8(ascii: "-"): return 36
        case UInt8(ascii: "."): return 37
        default: return nil
        }
    }
}

/// Where the character at 0-based offset `offset` is, for a person: `character 4` for offset 3. Messages count
/// characters from 1, as `matterflow dataset` does; ``PayloadError/position`` stays the 0-based offset.
func characterPlace(_ offset: Int) -> String {
    "character \(offset + 1)"
}

/// What kind of character `character` is, for a message that must not show it: a payload's characters encode
/// the setup passcode, so errors name the kind and the position, never the character.
func characterKind(_ character: Character) -> String {
    guard let ascii = character.asciiValue, character.unicodeScalars.count == 1 else {
        return character == "\r\n" ? "a line break" : "a non-ASCII character"
    }
    switch ascii {
    case UInt8(ascii: " "): return "a space"
    case UInt8(ascii: "\t"): return "a tab"
    case UInt8(ascii: "\n"), UInt8(ascii: "\r"): return "a line break"
    case 0..<0x20, 0x7F: return "a control character"
    case UInt8(ascii: "a")...UInt8(ascii: "z"): return "a lowercase letter"
    case UInt8(ascii: "A")...UInt8(ascii: "Z"): return "an uppercase letter"
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return "a digit"
    default: return "a punctuation mark or symbol"
    }
}
