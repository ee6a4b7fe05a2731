/// The type byte of a MeshCoP TLV inside a Thread Operational Dataset.
///
/// A dataset is a sequence of `type:u8, length:u8, value` records. This module decodes the thirteen
/// dataset types listed in ``datasetTypes`` into typed fields of ``OperationalDataset``; every other type
/// number is kept byte-exact as a ``DatasetTLV``.
///
/// ```swift
/// let type = DatasetTLVType.networkKey
/// print(type)  // "Network Key (type 5)"
/// ```
public struct DatasetTLVType: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The type number as it appears on the wire.
    public let rawValue: UInt8

    /// Creates a type from its wire number.
    ///
    /// - Parameter rawValue: The type byte.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Creates a type from its wire number.
    ///
    /// - Parameter rawValue: The type byte.
    public init(_ rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// Channel (0): `page:u8, channel:u16` big-endian, 3 bytes.
    public static let channel = DatasetTLVType(0)
    /// PAN ID (1): `u16` big-endian, 2 bytes.
    public static let panID = DatasetTLVType(1)
    /// Extended PAN ID (2): 8 bytes.
    public static let extendedPANID = DatasetTLVType(2)
    /// Network Name (3): 1 to 16 bytes of UTF-8.
    public static let networkName = DatasetTLVType(3)
    /// PSKc (4): 16 bytes; a secret.
    public static let pskc = DatasetTLVType(4)
    /// Network Key (5): 16 bytes; a secret.
    public static let networkKey = DatasetTLVType(5)
    /// Mesh-Local Prefix (7): the first 8 bytes of an IPv6 /64 prefix.
    public static let meshLocalPrefix = DatasetTLVType(7)
    /// Security Policy (12): rotation time in hours (`u16`) and 1 or 2 flag bytes.
    public static let securityPolicy = DatasetTLVType(12)
    /// Active Timestamp (14): 48-bit seconds, 15-bit ticks and the authoritative bit, 8 bytes.
    public static let activeTimestamp = DatasetTLVType(14)
    /// Pending Timestamp (51): same layout as ``activeTimestamp``.
    public static let pendingTimestamp = DatasetTLVType(51)
    /// Delay Timer (52): `u32` milliseconds, 4 bytes.
    public static let delayTimer = DatasetTLVType(52)
    /// Channel Mask (53): one or more `page:u8, maskLength:u8, mask` entries.
    public static let channelMask = DatasetTLVType(53)
    /// Wake-up Channel (74): same layout and rules as ``channel``.
    public static let wakeupChannel = DatasetTLVType(74)

    /// The dataset types this module decodes, in the order OpenThread writes them (`dataset active -x`).
    ///
    /// Newly set fields of an ``OperationalDataset`` are encoded in this order.
    public static let datasetTypes: [DatasetTLVType] = [
        .activeTimestamp, .pendingTimestamp, .delayTimer, .channel, .wakeupChannel, .channelMask,
        .extendedPANID, .meshLocalPrefix, .networkKey, .networkName, .panID, .pskc, .securityPolicy,
    ]

    /// Whether this type is decoded into a typed field of ``OperationalDataset``.
    public var isDatasetType: Bool {
        Self.datasetTypes.contains(self)
    }

    /// Whether the value of this type is a secret (Network Key or PSKc) that summaries redact.
    public var isSecret: Bool {
        self == .networkKey || self == .pskc
    }

    /// The human name of the type, as the Thread specification and OpenThread spell it.
    ///
    /// MeshCoP types that are not part of a dataset still get their name (for example "Steering Data");
    /// numbers nobody assigned are called "Unknown".
    public var name: String {
        switch rawValue {
        case 0: "Channel"
        case 1: "PAN ID"
        case 2: "Extended PAN ID"
        case 3: "Network Name"
        case 4: "PSKc"
        case 5: "Network Key"
        case 6: "Network Key Sequence"
        case 7: "Mesh-Local Prefix"
        case 8: "Steering Data"
        case 9: "Border Agent Locator"
        case 10: "Commissioner ID"
        case 11: "Commissioner Session ID"
        case 12: "Security Policy"
        case 13: "Get"
        case 14: "Active Timestamp"
        case 15: "Commissioner UDP Port"
        case 16: "State"
        case 17: "Joiner DTLS Encapsulation"
        case 18: "Joiner UDP Port"
        case 19: "Joiner IID"
        case 20: "Joiner Router Locator"
        case 21: "Joiner Router KEK"
        case 23: "Duration"
        case 32: "Provisioning URL"
        case 33: "Vendor Name"
        case 34: "Vendor Model"
        case 35: "Vendor SW Version"
        case 36: "Vendor Data"
        case 37: "Vendor Stack Version"
        case 48: "UDP Encapsulation"
        case 49: "IPv6 Address"
        case 51: "Pending Timestamp"
        case 52: "Delay Timer"
        case 53: "Channel Mask"
        case 54: "Count"
        case 55: "Period"
        case 56: "Scan Duration"
        case 57: "Energy List"
        case 59: "Thread Domain Name"
        case 74: "Wake-up Channel"
        case 128: "Discovery Request"
        case 129: "Discovery Response"
        case 241: "Joiner Advertisement"
        default: "Unknown"
        }
    }

    /// The name and number, for messages: `"Network Key (type 5)"`, or `"Unknown TLV (type 189)"`.
    public var description: String {
        let label = name == "Unknown" ? "Unknown TLV" : name
        return "\(label) (type \(rawValue))"
    }

    /// Orders types by their wire number.
    public static func < (lhs: DatasetTLVType, rhs: DatasetTLVType) -> Bool {
        lhs.rawValue < rhs.rawValue
    }
}
