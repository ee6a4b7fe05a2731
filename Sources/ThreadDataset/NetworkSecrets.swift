/// The text that stands in for a secret in every description and summary.
let redactedText = "[redacted]"

/// The Network Key TLV: the 16-byte key that secures all traffic of a Thread network. A secret.
///
/// Its `description`, `debugDescription` and mirror never show the key, so string interpolation, `print` and
/// `dump` cannot leak it; read ``revealedBytes`` or ``revealedHex`` deliberately when the key is needed.
public struct NetworkKey: Hashable, Sendable, FixedLengthValue, CustomStringConvertible,
    CustomDebugStringConvertible, CustomReflectable
{
    /// The length in bytes.
    public static let byteLength = 16
    static let tlvType = DatasetTLVType.networkKey

    /// The key bytes. Handle with care: this is the network's secret.
    public let revealedBytes: [UInt8]

    init(checkedBytes: [UInt8]) {
        revealedBytes = checkedBytes
    }

    /// Creates a key from 16 bytes.
    ///
    /// - Parameter bytes: Exactly 16 bytes.
    /// - Throws: ``ThreadDatasetError`` `invalidLength`.
    public init(bytes: [UInt8]) throws(ThreadDatasetError) {
        self = try Self.make(bytes, offset: nil)
    }

    /// Creates a key from 32 hex digits.
    ///
    /// - Parameter hex: 32 hex digits.
    /// - Throws: ``ThreadDatasetError`` for bad hex or a wrong length.
    public init(hex: String) throws(ThreadDatasetError) {
        self = try Self.make(hex: hex)
    }

    /// The key as lowercase hex. Handle with care: this is the network's secret.
    public var revealedHex: String {
        Hex.encode(revealedBytes)
    }

    /// Always `"[redacted]"`.
    public var description: String { redactedText }
    /// Always `"[redacted]"`.
    public var debugDescription: String { redactedText }
    /// A mirror without the key bytes.
    public var customMirror: Mirror { Mirror(self, children: ["value": redactedText]) }
}

/// The PSKc TLV: the 16-byte pre-shared key for commissioners, derived from the commissioning passphrase.
/// A secret.
///
/// Its `description`, `debugDescription` and mirror never show the key; read ``revealedBytes`` or
/// ``revealedHex`` deliberately when it is needed.
public struct PSKc: Hashable, Sendable, FixedLengthValue, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The length in bytes.
    public static let byteLength = 16
    static let tlvType = DatasetTLVType.pskc

    /// The PSKc bytes. Handle with care: anyone holding them can commission onto the network.
    public let revealedBytes: [UInt8]

    init(checkedBytes: [UInt8]) {
        revealedBytes = checkedBytes
    }

    /// Creates a PSKc from 16 bytes.
    ///
    /// - Parameter bytes: Exactly 16 bytes.
    /// - Throws: ``ThreadDatasetError`` `invalidLength`.
    public init(bytes: [UInt8]) throws(ThreadDatasetError) {
        self = try Self.make(bytes, offset: nil)
    }

    /// Creates a PSKc from 32 hex digits.
    ///
    /// - Parameter hex: 32 hex digits.
    /// - Throws: ``ThreadDatasetError`` for bad hex or a wrong length.
    public init(hex: String) throws(ThreadDatasetError) {
        self = try Self.make(hex: hex)
    }

    /// The PSKc as lowercase hex. Handle with care: anyone holding it can commission onto the network.
    public var revealedHex: String {
        Hex.encode(revealedBytes)
    }

    /// Always `"[redacted]"`.
    public var description: String { redactedText }
    /// Always `"[redacted]"`.
    public var debugDescription: String { redactedText }
    /// A mirror without the PSKc bytes.
    public var customMirror: Mirror { Mirror(self, children: ["value": redactedText]) }
}
