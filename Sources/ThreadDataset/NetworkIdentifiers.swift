/// The Extended PAN ID TLV: 8 bytes that identify a Thread network.
///
/// Together with the Network Key and the Channel it tells whether two datasets describe the same network
/// (see ``OperationalDataset/isSameNetwork(as:)``).
public struct ExtendedPANID: Hashable, Sendable, CustomStringConvertible, FixedLengthValue {
    /// The length in bytes.
    public static let byteLength = 8
    static let tlvType = DatasetTLVType.extendedPANID

    /// The 8 bytes.
    public let bytes: [UInt8]

    init(checkedBytes: [UInt8]) {
        bytes = checkedBytes
    }

    /// Creates an Extended PAN ID from bytes.
    ///
    /// - Parameter bytes: Exactly 8 bytes.
    /// - Throws: ``ThreadDatasetError`` `invalidLength`.
    public init(bytes: [UInt8]) throws(ThreadDatasetError) {
        self = try Self.make(bytes, offset: nil)
    }

    /// Creates an Extended PAN ID from hex, for example `"39758ec8144b07fb"`.
    ///
    /// - Parameter hex: 16 hex digits.
    /// - Throws: ``ThreadDatasetError`` for bad hex or a wrong length.
    public init(hex: String) throws(ThreadDatasetError) {
        self = try Self.make(hex: hex)
    }

    /// The bytes as a big-endian integer.
    public var integerValue: UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
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
public struct MeshLocalPrefix: Hashable, Sendable, CustomStringConvertible, FixedLengthValue {
    /// The length in bytes.
    public static let byteLength = 8
    static let tlvType = DatasetTLVType.meshLocalPrefix

    /// The 8 prefix bytes.
    public let bytes: [UInt8]

    init(checkedBytes: [UInt8]) {
        bytes = checkedBytes
    }

    /// Creates a prefix from its 8 bytes.
    ///
    /// - Parameter bytes: Exactly 8 bytes.
    /// - Throws: ``ThreadDatasetError`` `invalidLength`.
    public init(bytes: [UInt8]) throws(ThreadDatasetError) {
        self = try Self.make(bytes, offset: nil)
    }

    /// Creates a prefix from 16 hex digits, for example `"fdf1f1add0797dc0"`.
    ///
    /// - Parameter hex: 16 hex digits.
    /// - Throws: ``ThreadDatasetError`` for bad hex or a wrong length.
    public init(hex: String) throws(ThreadDatasetError) {
        self = try Self.make(hex: hex)
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
