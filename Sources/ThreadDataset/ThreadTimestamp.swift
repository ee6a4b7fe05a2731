/// A Thread timestamp, as carried by the Active and Pending Timestamp TLVs.
///
/// The 8 bytes hold 48 bits of seconds (a Unix time), then a 16-bit word of `ticks << 1 | U`: 15 bits of
/// ticks (1/32768 s) and the authoritative bit `U`. OpenThread compares timestamps by validity, then seconds,
/// then ticks, then the authoritative bit; ``<`` does the same. The all-ones value is OpenThread's "invalid"
/// timestamp.
///
/// Matter reads the same 8 bytes as one big-endian `u64` (``rawValue``): OpenThread's "seconds 1" is Matter's
/// 65536.
public struct ThreadTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The largest number of seconds: 48 bits.
    public static let maxSeconds: UInt64 = 0xFFFF_FFFF_FFFF
    /// The largest number of ticks: 15 bits.
    public static let maxTicks: UInt16 = 0x7FFF
    /// The size of the encoded timestamp.
    public static let encodedLength = 8

    /// OpenThread's invalid timestamp: every bit set.
    public static let invalid = ThreadTimestamp(rawValue: .max)

    /// Seconds, normally since the Unix epoch; at most ``maxSeconds``.
    public let seconds: UInt64
    /// Ticks of 1/32768 s; at most ``maxTicks``.
    public let ticks: UInt16
    /// The authoritative bit `U`.
    public let isAuthoritative: Bool

    /// Creates a timestamp from its parts.
    ///
    /// - Parameters:
    ///   - seconds: Seconds, at most ``maxSeconds``.
    ///   - ticks: Ticks, at most ``maxTicks``.
    ///   - isAuthoritative: The authoritative bit.
    /// - Throws: ``ThreadDatasetError`` `valueOutOfRange` when seconds or ticks do not fit.
    public init(seconds: UInt64, ticks: UInt16 = 0, isAuthoritative: Bool = false) throws(ThreadDatasetError) {
        guard seconds <= Self.maxSeconds else {
            throw ThreadDatasetError.outOfRange(
                nil,
                "timestamp seconds must fit in 48 bits (at most \(Self.maxSeconds)), found \(seconds)"
            )
        }
        guard ticks <= Self.maxTicks else {
            throw ThreadDatasetError.outOfRange(
                nil,
                "timestamp ticks must fit in 15 bits (at most \(Self.maxTicks)), found \(ticks)"
            )
        }
        self.seconds = seconds
        self.ticks = ticks
        self.isAuthoritative = isAuthoritative
    }

    /// Creates a timestamp from the 8 bytes read as one big-endian `u64`, as Matter does.
    ///
    /// - Parameter rawValue: The 64-bit value.
    public init(rawValue: UInt64) {
        seconds = rawValue >> 16
        ticks = UInt16(truncatingIfNeeded: rawValue >> 1) & Self.maxTicks
        isAuthoritative = rawValue & 1 == 1
    }

    /// The 8 bytes read as one big-endian `u64`: Matter's view of the timestamp.
    public var rawValue: UInt64 {
        seconds << 16 | UInt64(ticks) << 1 | (isAuthoritative ? 1 : 0)
    }

    /// Whether this is not OpenThread's all-ones invalid timestamp.
    public var isValid: Bool {
        rawValue != .max
    }

    /// The 8 encoded bytes.
    public var encoded: [UInt8] {
        bigEndianBytes(rawValue)
    }

    /// Decodes the value of a timestamp TLV.
    ///
    /// - Parameters:
    ///   - value: The value bytes.
    ///   - type: The TLV type, for messages.
    ///   - offset: The TLV's offset, for messages.
    static func decode(
        _ value: ArraySlice<UInt8>,
        type: DatasetTLVType,
        offset: Int
    ) throws(ThreadDatasetError) -> ThreadTimestamp {
        try ThreadDatasetError.requireLength(encodedLength, of: value, type, at: offset)
        return ThreadTimestamp(rawValue: bigEndianInteger(value))
    }

    /// Seconds alone when ticks and `U` are zero (as OpenThread prints it); otherwise all three parts.
    public var description: String {
        if ticks == 0, !isAuthoritative {
            return "\(seconds)"
        }
        return "\(seconds) (ticks \(ticks)\(isAuthoritative ? ", authoritative" : ""))"
    }

    /// OpenThread's order: an invalid timestamp is older than any valid one; then seconds, ticks and `U`.
    public static func < (lhs: ThreadTimestamp, rhs: ThreadTimestamp) -> Bool {
        if lhs.isValid != rhs.isValid {
            return !lhs.isValid
        }
        if lhs.seconds != rhs.seconds {
            return lhs.seconds < rhs.seconds
        }
        if lhs.ticks != rhs.ticks {
            return lhs.ticks < rhs.ticks
        }
        return !lhs.isAuthoritative && rhs.isAuthoritative
    }
}
