/// The Network Name TLV: 1 to 16 bytes of UTF-8 without NUL characters.
///
/// The limit counts **bytes**, not characters: `"~🐣🐥🐤~"` is 5 characters and 14 bytes. OpenThread accepts an
/// empty name for backwards compatibility, but Matter requires 1 to 16 bytes, and so does this module.
public struct NetworkName: Hashable, Sendable, CustomStringConvertible {
    /// The longest name in bytes.
    public static let maxByteCount = 16

    /// The name.
    public let value: String

    /// Creates a name.
    ///
    /// - Parameter value: The name; 1 to 16 bytes when encoded as UTF-8, without NUL characters.
    /// - Throws: ``ThreadDatasetError`` `invalidLength` or `invalidNetworkName`.
    public init(_ value: String) throws(ThreadDatasetError) {
        let bytes = Array(value.utf8)
        try Self.check(bytes[...], offset: nil)
        self.value = value
    }

    /// The UTF-8 bytes as they are encoded in the TLV.
    public var utf8Bytes: [UInt8] {
        Array(value.utf8)
    }

    /// The name itself.
    public var description: String {
        value
    }

    /// The name for a one-line listing: control characters (C0 including line breaks, DEL, C1) written as `\u`
    /// escapes (`\u001b`), so a name from a dataset cannot drive the terminal or fake a line of the listing.
    public var displayText: String {
        guard value.unicodeScalars.contains(where: Self.isControl) else { return value }
        var text = ""
        for scalar in value.unicodeScalars {
            if Self.isControl(scalar) {
                let hex = String(scalar.value, radix: 16)
                text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Compares the encoded bytes. Swift strings compare by canonical equivalence, so `"é"` and `"e\u{301}"`
    /// are equal strings, but they are different network names on the wire.
    public static func == (lhs: NetworkName, rhs: NetworkName) -> Bool {
        lhs.value.utf8.elementsEqual(rhs.value.utf8)
    }

    /// Hashes the encoded bytes, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        for byte in value.utf8 {
            hasher.combine(byte)
        }
    }

    /// Decodes the value of a Network Name TLV.
    ///
    /// - Parameters:
    ///   - value: The value bytes.
    ///   - offset: The TLV's offset, for messages.
    static func decode(_ value: ArraySlice<UInt8>, offset: Int) throws(ThreadDatasetError) -> NetworkName {
        try check(value, offset: offset)
        // `check` proved the bytes are valid UTF-8, so decoding is lossless and re-encodes to the same bytes.
        return NetworkName(checked: String(decoding: value, as: UTF8.self))
    }

    private init(checked value: String) {
        self.value = value
    }

    /// Checks length, UTF-8 validity and the absence of NUL.
    ///
    /// - Parameters:
    ///   - bytes: The encoded name.
    ///   - offset: The TLV's offset in the dataset, or `nil` when the name was not parsed from TLVs.
    private static func check(_ bytes: ArraySlice<UInt8>, offset: Int?) throws(ThreadDatasetError) {
        // Formatted only for a message.
        var subject: String { ThreadDatasetError.subject(.networkName, at: offset) }
        guard (1...maxByteCount).contains(bytes.count) else {
            throw ThreadDatasetError.invalidLength(
                .networkName,
                at: offset,
                expected: "1 to \(maxByteCount) bytes of UTF-8",
                found: bytes.count
            )
        }
        // Positions in messages are absolute byte offsets when parsing, and positions in the name otherwise.
        let base = offset.map { $0 + 2 } ?? 0
        /// An `invalidNetworkName` error about the byte at `index`; `problem` words it, given "offset N".
        func invalidName(at index: Int, _ problem: (_ place: String) -> String) -> ThreadDatasetError {
            let position = base + (index - bytes.startIndex)
            return ThreadDatasetError(
                code: .invalidNetworkName,
                tlvType: .networkName,
                offset: offset.map { _ in position },
                message: "\(subject): " + problem("\(offset == nil ? "position" : "offset") \(position)")
            )
        }
        if let bad = firstInvalidUTF8Index(bytes) {
            // No byte of the value is shown: a name read out of step with the framing holds bytes of the TLVs after
            // it, the Network Key's among them.
            throw invalidName(at: bad) { place in "expected valid UTF-8, found an invalid sequence at \(place)" }
        }
        if let nul = bytes.firstIndex(of: 0) {
            throw invalidName(at: nul) { place in "expected no NUL characters, found one at \(place)" }
        }
    }
}

/// Returns the index of the first byte that starts an invalid UTF-8 sequence (RFC 3629: no overlong forms, no
/// surrogates, nothing above U+10FFFF, no truncated sequences), or `nil` when all of `bytes` is valid.
func firstInvalidUTF8Index(_ bytes: ArraySlice<UInt8>) -> Int? {
    var index = bytes.startIndex
    while index < bytes.endIndex {
        let lead = bytes[index]
        // The allowed range of the second byte, and how many continuation bytes follow the lead byte.
        let secondRange: ClosedRange<UInt8>
        let continuationCount: Int
        switch lead {
        case 0x00...0x7F:
            index += 1
            continue
        case 0xC2...0xDF: (secondRange, continuationCount) = (0x80...0xBF, 1)
        case 0xE0: (secondRange, continuationCount) = (0xA0...0xBF, 2)
        case 0xE1...0xEC, 0xEE...0xEF: (secondRange, continuationCount) = (0x80...0xBF, 2)
        case 0xED: (secondRange, continuationCount) = (0x80...0x9F, 2)
        case 0xF0: (secondRange, continuationCount) = (0x90...0xBF, 3)
        case 0xF1...0xF3: (secondRange, continuationCount) = (0x80...0xBF, 3)
        case 0xF4: (secondRange, continuationCount) = (0x80...0x8F, 3)
        default:
            return index
        }
        guard bytes.endIndex - index > continuationCount else { return index }
        guard secondRange.contains(bytes[index + 1]) else { return index }
        for next in stride(from: index + 2, through: index + continuationCount, by: 1)
        where !(0x80...0xBF).contains(bytes[next]) {
            return index
        }
        index += continuationCount + 1
    }
    return nil
}
