/// The text that stands in for a secret in every description and summary.
let redactedText = "[redacted]"

/// A fixed-length dataset value that is a secret: ``NetworkKey`` and ``PSKc``.
///
/// Its `description`, `debugDescription` and mirror never show the bytes, so string interpolation, `print` and
/// `dump` cannot leak them; read ``revealedBytes`` or ``revealedHex`` deliberately when the secret is needed.
public protocol DatasetSecret: FixedLengthValue, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The secret bytes. Handle with care.
    var revealedBytes: [UInt8] { get }
}

extension DatasetSecret {
    /// The secret as lowercase hex. Handle with care.
    public var revealedHex: String {
        Hex.encode(revealedBytes)
    }

    /// Always `"[redacted]"`.
    public var description: String { redactedText }
    /// Always `"[redacted]"`.
    public var debugDescription: String { redactedText }
    /// A mirror without the secret bytes.
    public var customMirror: Mirror { Mirror(self, children: ["value": redactedText]) }
}

/// The Network Key TLV: the 16-byte key that secures all traffic of a Thread network. A ``DatasetSecret``.
///
/// Its `description`, `debugDescription` and mirror never show the key, so string interpolation, `print` and
/// `dump` cannot leak it; read ``revealedBytes`` or ``revealedHex`` deliberately when the key is needed.
/// Create one from 16 bytes with ``init(bytes:)`` or from 32 hex digits with ``init(hex:)``.
public struct NetworkKey: DatasetSecret, FixedLengthStorage {
    /// The length in bytes.
    public static let byteLength = 16
    static let tlvType = DatasetTLVType.networkKey

    /// The key bytes. Handle with care: this is the network's secret.
    public let revealedBytes: [UInt8]

    init(checkedBytes: [UInt8]) {
        revealedBytes = checkedBytes
    }
}

/// The PSKc TLV: the 16-byte pre-shared key for commissioners, derived from the commissioning passphrase.
/// A ``DatasetSecret``.
///
/// Its `description`, `debugDescription` and mirror never show the key; read ``revealedBytes`` or
/// ``revealedHex`` deliberately when it is needed. Create one from 16 bytes with ``init(bytes:)`` or from
/// 32 hex digits with ``init(hex:)``.
public struct PSKc: DatasetSecret, FixedLengthStorage {
    /// The length in bytes.
    public static let byteLength = 16
    static let tlvType = DatasetTLVType.pskc

    /// The PSKc bytes. Handle with care: anyone holding them can commission onto the network.
    public let revealedBytes: [UInt8]

    init(checkedBytes: [UInt8]) {
        revealedBytes = checkedBytes
    }
}
