/// The Extended PAN ID TLV: 8 bytes that identify a Thread network.
///
/// Together with the Network Key and the Channel it tells whether two datasets describe the same network
/// (see ``OperationalDataset/isSameNetwork(as:)``). Create one from 8 bytes with ``init(bytes:)`` or from
/// 16 hex digits with ``init(hex:)``, for example `try ExtendedPANID(hex: "39758ec8144b07fb")`.
public struct ExtendedPANID: FixedLengthValue, FixedLengthStorage, CustomStringConvertible {
    /// The length in bytes.
    public static let byteLength = 8
    static let tlvType = DatasetTLVType.extendedPANID

    /// The 8 bytes.
    public let bytes: [UInt8]

    init(checkedBytes: [UInt8]) {
        bytes = checkedBytes
    }

    /// The bytes as a big-endian integer.
    public var integerValue: UInt64 {
        bigEndianInteger(bytes)
    }

    /// The bytes as lowercase hex.
    public var hexString: String {
        Hex.encode(bytes)
    }

    /// The bytes as lowercase hex, as OpenThread prints them.
    public var description: String {
        hexString
    }
}

/// The Mesh-Local Prefix TLV: the first 8 bytes of the network's mesh-local IPv6 /64 prefix.
///
/// Create one from 8 bytes with ``init(bytes:)`` or from 16 hex digits with ``init(hex:)``, for example
/// `try MeshLocalPrefix(hex: "fdf1f1add0797dc0")`.
public struct MeshLocalPrefix: FixedLengthValue, FixedLengthStorage, CustomStringConvertible {
    /// The length in bytes.
    public static let byteLength = 8
    static let tlvType = DatasetTLVType.meshLocalPrefix

    /// The 8 prefix bytes.
    public let bytes: [UInt8]

    init(checkedBytes: [UInt8]) {
        bytes = checkedBytes
    }

    /// The bytes as lowercase hex.
    public var hexString: String {
        Hex.encode(bytes)
    }

    /// The prefix as OpenThread's CLI prints it: four groups without leading zeros, then `::/64`, for example
    /// `"fdf1:f1ad:d079:7dc0::/64"` or `"fd00:db8:0:0::/64"`.
    public var description: String {
        let groups = stride(from: 0, to: 8, by: 2).map { index in
            String(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]), radix: 16)
        }
        return groups.joined(separator: ":") + "::/64"
    }
}
