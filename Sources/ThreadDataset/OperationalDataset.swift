/// A Thread Operational Dataset: the parameters of a Thread network, as MeshCoP TLVs.
///
/// Parse one from TLV bytes or hex with ``init(tlvs:)`` or ``init(hex:)``, read and change its typed fields,
/// check it with ``validate(for:)``, and write it back with ``encode()`` or ``hexString``.
///
/// ```swift
/// var dataset = try OperationalDataset(hex: "0e08000000000001000000030000 ...")
/// let report = dataset.validate(for: .active)
/// print(dataset)            // secrets are redacted
/// dataset.channel = try ThreadChannel(20)
/// let bytes = dataset.encode()
/// ```
///
/// Parsing accepts base-format TLVs only, at most 254 bytes, each type once, with the length and value rules of
/// each type (see ``DatasetTLVType``). Types it does not decode are kept byte-exact in ``unknownTLVs``.
/// ``encode()`` writes TLVs in the order they were parsed, so parsing and encoding gives back the same bytes;
/// fields that were not parsed go after them in OpenThread's order (``DatasetTLVType/datasetTypes``).
///
/// Equality ignores TLV order, as Thread does: two datasets are equal when they hold the same TLVs.
///
/// Secrets (``networkKey``, ``pskc``) never appear in ``description`` or ``summary(revealingSecrets:)``
/// unless revealing is asked for explicitly.
public struct OperationalDataset: Sendable, Hashable {
    /// The longest dataset in bytes (`OT_OPERATIONAL_DATASET_MAX_LENGTH`, Matter's `kSizeOperationalDataset`).
    public static let maxLength = 254

    /// Active Timestamp (type 14).
    public var activeTimestamp: ThreadTimestamp?
    /// Pending Timestamp (type 51); pending datasets only.
    public var pendingTimestamp: ThreadTimestamp?
    /// Delay Timer (type 52) in milliseconds; pending datasets only.
    public var delayTimer: UInt32?
    /// Channel (type 0).
    public var channel: ThreadChannel?
    /// Wake-up Channel (type 74); optional, never required.
    public var wakeupChannel: ThreadChannel?
    /// Channel Mask (type 53).
    public var channelMask: ChannelMask?
    /// PAN ID (type 1).
    public var panID: UInt16?
    /// Extended PAN ID (type 2).
    public var extendedPANID: ExtendedPANID?
    /// Network Name (type 3).
    public var networkName: NetworkName?
    /// Mesh-Local Prefix (type 7).
    public var meshLocalPrefix: MeshLocalPrefix?
    /// Network Key (type 5). A secret.
    public var networkKey: NetworkKey?
    /// PSKc (type 4). A secret.
    public var pskc: PSKc?
    /// Security Policy (type 12).
    public var securityPolicy: SecurityPolicy?

    /// TLVs of types that have no typed field, byte-exact, in the order they were parsed or set.
    public internal(set) var unknownTLVs: [DatasetTLV] = []

    /// The types in the order they were parsed or set; used by ``encode()``.
    var tlvOrder: [DatasetTLVType] = []

    /// Creates an empty dataset.
    public init() {}

    /// Adds a TLV of a type that has no typed field, or replaces the one of the same type.
    ///
    /// - Parameter tlv: The TLV; its type must not be one of ``DatasetTLVType/datasetTypes``.
    /// - Throws: ``ThreadDatasetError`` `reservedTLVType` for a type that has a typed field; set the field
    ///   instead.
    public mutating func setUnknownTLV(_ tlv: DatasetTLV) throws(ThreadDatasetError) {
        guard !tlv.type.isDatasetType else {
            throw ThreadDatasetError(
                code: .reservedTLVType,
                tlvType: tlv.type,
                message: "\(tlv.type) has a typed field in OperationalDataset; set that field instead of adding "
                    + "a raw TLV"
            )
        }
        if let index = unknownTLVs.firstIndex(where: { $0.type == tlv.type }) {
            unknownTLVs[index] = tlv
        } else {
            unknownTLVs.append(tlv)
        }
        if !tlvOrder.contains(tlv.type) {
            tlvOrder.append(tlv.type)
        }
    }

    /// Removes the TLV of a type: clears the typed field, or drops the unknown TLV.
    ///
    /// - Parameter type: The type to remove. Removing an absent type does nothing.
    public mutating func removeTLV(_ type: DatasetTLVType) {
        switch type {
        case .activeTimestamp: activeTimestamp = nil
        case .pendingTimestamp: pendingTimestamp = nil
        case .delayTimer: delayTimer = nil
        case .channel: channel = nil
        case .wakeupChannel: wakeupChannel = nil
        case .channelMask: channelMask = nil
        case .panID: panID = nil
        case .extendedPANID: extendedPANID = nil
        case .networkName: networkName = nil
        case .meshLocalPrefix: meshLocalPrefix = nil
        case .networkKey: networkKey = nil
        case .pskc: pskc = nil
        case .securityPolicy: securityPolicy = nil
        default: unknownTLVs.removeAll { $0.type == type }
        }
    }

    /// Whether the dataset holds a TLV of a type.
    ///
    /// - Parameter type: The type to look for.
    public func contains(_ type: DatasetTLVType) -> Bool {
        valueLength(of: type) != nil
    }

    /// The TLV of a type as it would be encoded, or `nil` when absent.
    ///
    /// - Parameter type: The type to look for.
    public func tlv(for type: DatasetTLVType) -> DatasetTLV? {
        let value: [UInt8]?
        switch type {
        case .activeTimestamp: value = activeTimestamp?.encoded
        case .pendingTimestamp: value = pendingTimestamp?.encoded
        case .delayTimer: value = delayTimer.map(bigEndianBytes)
        case .channel: value = channel?.encoded
        case .wakeupChannel: value = wakeupChannel?.encoded
        case .channelMask: value = channelMask?.encoded
        case .panID: value = panID.map(bigEndianBytes)
        case .extendedPANID: value = extendedPANID?.bytes
        case .networkName: value = networkName?.utf8Bytes
        case .meshLocalPrefix: value = meshLocalPrefix?.bytes
        case .networkKey: value = networkKey?.revealedBytes
        case .pskc: value = pskc?.revealedBytes
        case .securityPolicy: value = securityPolicy?.encoded
        default: return unknownTLVs.first { $0.type == type }
        }
        // Every typed field's initializers bound its length well below 252 bytes.
        return value.map { DatasetTLV(checkedType: type, value: $0) }
    }

    /// Every TLV present, in encoding order: parsed or set order first, then new fields in OpenThread's order.
    public var tlvs: [DatasetTLV] {
        encodingOrder.compactMap(tlv(for:))
    }

    /// The types present, in encoding order.
    public var presentTypes: [DatasetTLVType] {
        encodingOrder
    }

    /// Whether the dataset holds no TLV at all.
    public var isEmpty: Bool {
        encodingOrder.isEmpty
    }

    // MARK: Equality

    /// Whether two datasets hold the same TLVs, in any order.
    public static func == (lhs: OperationalDataset, rhs: OperationalDataset) -> Bool {
        lhs.canonicalTLVs == rhs.canonicalTLVs
    }

    /// Hashes the TLVs in type order, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(canonicalTLVs)
    }

    /// The TLVs sorted by type, which is unique within a dataset.
    private var canonicalTLVs: [DatasetTLV] {
        tlvs.sorted { $0.type < $1.type }
    }
}

/// The big-endian bytes of an unsigned integer.
func bigEndianBytes<T: FixedWidthInteger & UnsignedInteger>(_ value: T) -> [UInt8] {
    let size = T.bitWidth / 8
    return (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * (size - 1 - $0))) }
}

/// Reads bytes as one big-endian unsigned integer; the caller makes sure they fit.
func bigEndianInteger<T: FixedWidthInteger & UnsignedInteger>(_ bytes: some Sequence<UInt8>) -> T {
    bytes.reduce(T.zero) { $0 << 8 | T($1) }
}
