/// One base-format TLV as it appears in a dataset: a type byte and its value bytes.
///
/// ``OperationalDataset`` keeps TLVs of types it does not decode (see ``DatasetTLVType/isDatasetType``) as
/// values of this type, byte-exact and in their original order, so that encoding a parsed dataset gives
/// back the same bytes.
public struct DatasetTLV: Hashable, Sendable, CustomStringConvertible {
    /// The largest value that fits in a dataset: 254 bytes minus the two header bytes.
    public static let maxValueLength = OperationalDataset.maxLength - 2

    /// The TLV type.
    public let type: DatasetTLVType
    /// The value bytes, without the header.
    public let value: [UInt8]

    /// Creates a TLV.
    ///
    /// - Parameters:
    ///   - type: The type byte.
    ///   - value: The value bytes; at most ``maxValueLength`` of them.
    /// - Throws: ``ThreadDatasetError`` `invalidLength` when the value cannot fit in a dataset.
    public init(type: DatasetTLVType, value: [UInt8]) throws(ThreadDatasetError) {
        guard value.count <= Self.maxValueLength else {
            throw ThreadDatasetError.invalidLength(
                type,
                at: nil,
                expected: "at most \(Self.maxValueLength) bytes so that the TLV fits in a dataset",
                found: value.count
            )
        }
        self.type = type
        self.value = value
    }

    /// Creates a TLV whose value length the caller has already checked.
    init(checkedType type: DatasetTLVType, value: [UInt8]) {
        self.type = type
        self.value = value
    }

    /// The number of bytes the TLV takes when encoded: two header bytes plus the value.
    public var encodedLength: Int {
        2 + value.count
    }

    /// The encoded TLV: type, length, value.
    public var encoded: [UInt8] {
        var bytes: [UInt8] = []
        append(to: &bytes)
        return bytes
    }

    /// The value as lowercase hex.
    public var valueHex: String {
        Hex.encode(value)
    }

    /// The type and the value in hex; the value of a secret type (Network Key, PSKc) is shown as
    /// `[redacted]`. Read ``value`` or ``valueHex`` to see it.
    public var description: String {
        "\(type): " + (type.isSecret ? redactedText : valueHex)
    }

    /// Appends the encoded TLV to a buffer.
    func append(to bytes: inout [UInt8]) {
        bytes.append(type.rawValue)
        // The initializers keep `value.count` at or below 252, so the length byte never overflows.
        bytes.append(UInt8(truncatingIfNeeded: value.count))
        bytes.append(contentsOf: value)
    }
}
