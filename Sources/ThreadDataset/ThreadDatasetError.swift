/// Why a Thread Operational Dataset, or one of its values, was rejected.
///
/// Every error carries a stable ``code`` to branch on, the TLV it concerns (when there is one), the byte
/// offset where the problem was found, and a ``message`` that says what was expected and what was found.
/// For hex input, offsets count characters of the text. For TLV bytes, they count bytes from the start of
/// the dataset: the TLV's type byte for a problem with the whole TLV, or the exact byte for a problem inside
/// a value (a Channel Mask entry, an invalid UTF-8 sequence in a Network Name). Errors from initializers
/// that build values directly have no offset.
///
/// Two errors are equal when their code, TLV type and offset are equal; the message is presentation.
public struct ThreadDatasetError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable error code.
    ///
    /// The set is closed for this version of the module: ``all`` lists every code.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ClosedSetCode {
        /// The code as a string, for example `"duplicateTLV"`.
        public let rawValue: String

        private init(_ rawValue: String) {
            self.rawValue = rawValue
        }

        /// Hex text contains a character that is not a hex digit.
        public static let invalidHexCharacter = Code("invalidHexCharacter")
        /// Hex text has an odd number of digits.
        public static let oddHexLength = Code("oddHexLength")
        /// The dataset is longer than 254 bytes.
        public static let datasetTooLong = Code("datasetTooLong")
        /// A TLV starts in the last byte, so its length byte is missing.
        public static let truncatedHeader = Code("truncatedHeader")
        /// A TLV uses the extended length form (length byte 0xFF), which datasets forbid.
        public static let extendedLength = Code("extendedLength")
        /// A TLV declares more value bytes than remain in the dataset.
        public static let truncatedValue = Code("truncatedValue")
        /// A TLV type appears more than once.
        public static let duplicateTLV = Code("duplicateTLV")
        /// A value has the wrong number of bytes for its type.
        public static let invalidLength = Code("invalidLength")
        /// A Channel or Wake-up Channel names a channel page other than 0.
        public static let unsupportedChannelPage = Code("unsupportedChannelPage")
        /// A Channel or Wake-up Channel is outside 11 to 26.
        public static let channelOutOfRange = Code("channelOutOfRange")
        /// A Network Name is not valid UTF-8 or contains a NUL character.
        public static let invalidNetworkName = Code("invalidNetworkName")
        /// A Channel Mask has no entries.
        public static let emptyChannelMask = Code("emptyChannelMask")
        /// A Channel Mask entry does not fit in the TLV value.
        public static let truncatedChannelMaskEntry = Code("truncatedChannelMaskEntry")
        /// A page-0 Channel Mask entry has a mask length other than 4.
        public static let invalidChannelMaskEntryLength = Code("invalidChannelMaskEntryLength")
        /// A value given to an initializer is outside the range its field can hold.
        public static let valueOutOfRange = Code("valueOutOfRange")
        /// A raw TLV uses a type number that ``OperationalDataset`` keeps in a typed field.
        public static let reservedTLVType = Code("reservedTLVType")

        /// Every code, in declaration order.
        public static let all: [Code] = [
            .invalidHexCharacter, .oddHexLength, .datasetTooLong, .truncatedHeader, .extendedLength,
            .truncatedValue, .duplicateTLV, .invalidLength, .unsupportedChannelPage, .channelOutOfRange,
            .invalidNetworkName, .emptyChannelMask, .truncatedChannelMaskEntry, .invalidChannelMaskEntryLength,
            .valueOutOfRange, .reservedTLVType,
        ]
    }

    /// What went wrong, as a stable code.
    public let code: Code
    /// The TLV the error concerns, when there is one.
    public let tlvType: DatasetTLVType?
    /// Where the problem was found: a byte offset into the TLVs, or a character offset into hex text.
    public let offset: Int?
    /// A sentence a person can act on, naming the TLV, the offset, and what was expected versus found.
    public let message: String

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: The stable code.
    ///   - tlvType: The TLV concerned, if any.
    ///   - offset: The byte or character offset, if any.
    ///   - message: The full human-readable message.
    public init(code: Code, tlvType: DatasetTLVType? = nil, offset: Int? = nil, message: String) {
        self.code = code
        self.tlvType = tlvType
        self.offset = offset
        self.message = message
    }

    /// The code followed by the message, for example `"duplicateTLV: Channel (type 0) at offset 20 ..."`.
    public var description: String {
        "\(code.rawValue): \(message)"
    }

    /// Compares code, TLV type and offset; messages are not compared.
    public static func == (lhs: ThreadDatasetError, rhs: ThreadDatasetError) -> Bool {
        lhs.code == rhs.code && lhs.tlvType == rhs.tlvType && lhs.offset == rhs.offset
    }

    /// Hashes code, TLV type and offset, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(tlvType)
        hasher.combine(offset)
    }
}

// MARK: - Factories used by the decoders

extension ThreadDatasetError {
    /// A prefix naming the TLV and where it starts: `"Channel (type 0) at offset 12"`.
    static func subject(_ type: DatasetTLVType, at offset: Int?) -> String {
        guard let offset else { return "\(type)" }
        return "\(type) at offset \(offset)"
    }

    /// A value of the wrong size.
    static func invalidLength(
        _ type: DatasetTLVType,
        at offset: Int?,
        expected: String,
        found: Int
    ) -> ThreadDatasetError {
        ThreadDatasetError(
            code: .invalidLength,
            tlvType: type,
            offset: offset,
            message: "\(subject(type, at: offset)): expected \(expected), found \(found) "
                + (found == 1 ? "byte" : "bytes")
        )
    }

    /// Throws ``invalidLength(_:at:expected:found:)`` unless a value has exactly `length` bytes.
    ///
    /// - Parameters:
    ///   - length: The length the value must have.
    ///   - value: The value bytes.
    ///   - type: The TLV, for the message.
    ///   - offset: The TLV's offset when parsing, for the message.
    ///   - expected: What the message says was expected; `"N bytes"` by default.
    static func requireLength(
        _ length: Int,
        of value: some Collection<UInt8>,
        _ type: DatasetTLVType,
        at offset: Int?,
        expected: String? = nil
    ) throws(ThreadDatasetError) {
        guard value.count == length else {
            throw invalidLength(type, at: offset, expected: expected ?? byteCount(length), found: value.count)
        }
    }

    /// A value that does not fit the field it is meant for.
    static func outOfRange(_ type: DatasetTLVType?, _ detail: String) -> ThreadDatasetError {
        let prefix = type.map { "\($0): " } ?? ""
        return ThreadDatasetError(code: .valueOutOfRange, tlvType: type, message: prefix + detail)
    }
}

/// A stable, machine-readable code from a closed set: ``ThreadDatasetError/Code`` and ``DatasetIssue/Code``
/// share their string handling through this protocol.
protocol ClosedSetCode: RawRepresentable<String>, CustomStringConvertible {
    /// Every code, in declaration order.
    static var all: [Self] { get }
}

extension ClosedSetCode {
    /// Creates a code from its string, if it is one of ``all``.
    ///
    /// - Parameter rawValue: The code string.
    public init?(rawValue: String) {
        guard let code = Self.all.first(where: { $0.rawValue == rawValue }) else { return nil }
        self = code
    }

    /// The code string.
    public var description: String { rawValue }
}

/// Formats a byte count for messages: "1 byte", "8 bytes".
func byteCount(_ count: Int) -> String {
    count == 1 ? "1 byte" : "\(count) bytes"
}
