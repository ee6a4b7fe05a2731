/// The characters of an input text, addressed by 0-based character offset (the positions that errors report).
///
/// Parsing looks at every character of a code several times, and splitting a `String` into `Character`s
/// (grapheme breaking) costs more than all the decoding after it. Real codes are plain ASCII, where every UTF-8
/// byte is exactly one `Character`, so such text is kept as its bytes and a `Character` is only built when an
/// error message needs one. Any other text (a non-ASCII character, or a CR-LF pair, which Swift counts as one
/// `Character`) is split into `Character`s as before, so offsets and results are the same either way.
struct PayloadText {
    private enum Storage {
        /// ASCII text without a CR-LF pair: one byte per character.
        case ascii([UInt8])
        /// Any other text.
        case characters([Character])
    }

    private let storage: Storage
    /// The number of characters.
    let count: Int

    init(_ text: some StringProtocol) {
        let bytes = Array(text.utf8)
        if Self.isOneByteCharacterText(bytes) {
            storage = .ascii(bytes)
            count = bytes.count
            return
        }
        // Full-width forms, as a Japanese or Chinese input method types digits ("３４９７"), read as the ASCII they
        // stand for, one character for one: a code typed so is the same code.
        let characters = Array(text).map(Self.halfWidth)
        if characters.allSatisfy({ $0.isASCII && $0 != "\r\n" }) {
            storage = .ascii(characters.map { $0.asciiValue ?? 0 })
        } else {
            storage = .characters(characters)
        }
        count = characters.count
    }

    /// A full-width ASCII form (U+FF01 to U+FF5E) or the ideographic space as its ASCII character; others as they are.
    static func halfWidth(_ character: Character) -> Character {
        guard character.unicodeScalars.count == 1, let scalar = character.unicodeScalars.first else { return character }
        switch scalar.value {
        case 0xFF01...0xFF5E: return Character(Unicode.Scalar(UInt8(scalar.value - 0xFEE0)))
        case 0x3000: return " "
        default: return character
        }
    }

    /// Whether every byte is ASCII and no CR is followed by LF, so that bytes and characters coincide.
    private static func isOneByteCharacterText(_ bytes: [UInt8]) -> Bool {
        var previous: UInt8 = 0
        for byte in bytes {
            if byte >= 0x80 || (previous == 0x0D && byte == 0x0A) { return false }
            previous = byte
        }
        return true
    }

    /// The character at `offset`.
    subscript(offset: Int) -> Character {
        switch storage {
        case .ascii(let bytes): Character(Unicode.Scalar(bytes[offset]))
        case .characters(let characters): characters[offset]
        }
    }

    /// The ASCII code of the character at `offset`, or `nil` when it is not a single ASCII scalar.
    ///
    /// Unlike `Character.asciiValue`, a CR-LF pair is `nil` here, not LF.
    func ascii(at offset: Int) -> UInt8? {
        switch storage {
        case .ascii(let bytes):
            return bytes[offset]
        case .characters(let characters):
            let character = characters[offset]
            return character.unicodeScalars.count == 1 ? character.asciiValue : nil
        }
    }

    /// The value of the ASCII decimal digit at `offset`, or `nil` for any other character.
    func digitValue(at offset: Int) -> Int? {
        guard let ascii = ascii(at: offset), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(ascii) else {
            return nil
        }
        return Int(ascii - UInt8(ascii: "0"))
    }

    /// Whether the character at `offset` is white space (`Character.isWhitespace`).
    func isWhitespace(at offset: Int) -> Bool {
        switch storage {
        case .ascii(let bytes):
            // The ASCII characters with the Unicode White_Space property: tab, LF, VT, FF, CR and space.
            let byte = bytes[offset]
            return byte == 0x20 || (0x09...0x0D).contains(byte)
        case .characters(let characters):
            return characters[offset].isWhitespace
        }
    }
}
