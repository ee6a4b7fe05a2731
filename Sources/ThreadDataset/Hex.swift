/// Hex text to bytes and back, without Foundation: for datasets, and for the other bytes MatterFlow writes as hex
/// (the hub protocol's datasets, the secret digest key).
///
/// Decoding accepts upper- and lower-case digits and ignores ASCII white space before and after the digits
/// (as pasted from a terminal), but nothing inside them. Encoding always produces lower case.
public enum Hex {
    /// The lowercase digits, indexed by nibble.
    private static let digits: [Character] = Array("0123456789abcdef")

    /// Encodes bytes as lowercase hex with two digits per byte.
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        var text = ""
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return text
    }

    /// Formats a value in lowercase hex with at least `width` digits, like C's `%0*x`.
    static func padded(_ value: some BinaryInteger, width: Int) -> String {
        let plain = String(value, radix: 16)
        guard plain.count < width else { return plain }
        return String(repeating: "0", count: width - plain.count) + plain
    }

    /// Decodes hex text into bytes.
    ///
    /// - Parameters:
    ///   - text: The hex text.
    ///   - maxBytes: The largest number of bytes accepted, or `nil` for no limit.
    /// - Returns: The decoded bytes.
    /// - Throws: ``ThreadDatasetError`` with code `invalidHexCharacter` (offset = character index in `text`),
    ///   `oddHexLength`, or `datasetTooLong` when more than `maxBytes` bytes would result.
    public static func decode(_ text: String, maxBytes: Int? = nil) throws(ThreadDatasetError) -> [UInt8] {
        let scalars = Array(text.unicodeScalars)
        var start = 0
        var end = scalars.count
        while start < end, isSpace(scalars[start]) { start += 1 }
        while end > start, isSpace(scalars[end - 1]) { end -= 1 }

        var nibbles: [UInt8] = []
        nibbles.reserveCapacity(end - start)
        for index in start..<end {
            guard let nibble = nibbleValue(scalars[index]) else {
                // A prefix other tools print (`0x`, chip-tool's `hex:`) is named as such: its letters are no hex digits.
                let text = String(String.UnicodeScalarView(scalars[start..<end]))
                if index <= start + 1, let prefix = ["0x", "0X", "hex:"].first(where: { text.hasPrefix($0) }) {
                    throw ThreadDatasetError(
                        code: .invalidHexCharacter,
                        offset: index,
                        message: "the hex text starts with \"\(prefix)\", which is not a hex digit; remove it: write the dataset as pairs of digits 0-9 and a-f only"
                    )
                }
                throw ThreadDatasetError(
                    code: .invalidHexCharacter,
                    offset: index,
                    message: "character \(index + 1) of the hex text is \(describe(scalars[index])), not a hex digit; "
                        + "write the dataset as pairs of digits 0-9 and a-f with nothing between them"
                )
            }
            nibbles.append(nibble)
        }
        guard nibbles.count.isMultiple(of: 2) else {
            throw ThreadDatasetError(
                code: .oddHexLength,
                offset: end,
                message: "expected an even number of hex digits (two per byte), found \(nibbles.count); "
                    + "a digit is missing or extra"
            )
        }
        let byteTotal = nibbles.count / 2
        if let maxBytes, byteTotal > maxBytes {
            throw ThreadDatasetError.tooLong(byteTotal, limit: maxBytes)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(byteTotal)
        var index = 0
        while index < nibbles.count {
            bytes.append(nibbles[index] << 4 | nibbles[index + 1])
            index += 2
        }
        return bytes
    }

    /// Whether `text` holds only what ``decode(_:maxBytes:)`` reads: ASCII hex digits and the spaces around them. A
    /// quick test before decoding text that is most often no hex at all.
    public static func holdsOnlyHexCharacters(_ text: String) -> Bool {
        text.unicodeScalars.allSatisfy { nibbleValue($0) != nil || isSpace($0) }
    }

    private static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r"
    }

    private static func nibbleValue(_ scalar: Unicode.Scalar) -> UInt8? {
        switch scalar.value {
        case 0x30...0x39: UInt8(scalar.value - 0x30)
        case 0x41...0x46: UInt8(scalar.value - 0x41 + 10)
        case 0x61...0x66: UInt8(scalar.value - 0x61 + 10)
        default: nil
        }
    }

    /// Describes a character for a message: printable ASCII in quotes, anything else by code point.
    private static func describe(_ scalar: Unicode.Scalar) -> String {
        if scalar.value >= 0x21, scalar.value < 0x7F {
            return "'\(Character(scalar))'"
        }
        return "U+" + padded(scalar.value, width: 4).uppercased()
    }
}

extension ThreadDatasetError {
    /// A dataset longer than the limit.
    static func tooLong(_ length: Int, limit: Int) -> ThreadDatasetError {
        ThreadDatasetError(
            code: .datasetTooLong,
            offset: limit,
            message: "the dataset is \(byteCount(length)) long; a Thread Operational Dataset holds at most "
                + "\(limit) bytes (expected at most \(limit), found \(length))"
        )
    }
}
