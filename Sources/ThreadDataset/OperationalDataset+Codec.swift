extension OperationalDataset {
    /// Parses a dataset from its TLV bytes.
    ///
    /// The rules, in the order they are checked:
    /// - at most 254 bytes (`datasetTooLong`);
    /// - every TLV has a type and a length byte (`truncatedHeader`), uses the base format, not the extended
    ///   length `0xFF` (`extendedLength`), and fits in the remaining bytes (`truncatedValue`);
    /// - no type appears twice (`duplicateTLV`);
    /// - each dataset type has its exact length (`invalidLength`) and valid value: channel page 0 with channels
    ///   11 to 26, a Network Name of 1 to 16 bytes of UTF-8 without NUL, well-formed Channel Mask entries.
    ///
    /// Lengths are exact, as Matter requires. OpenThread only checks minimum lengths and ignores extra bytes,
    /// but a longer value could not be kept in a typed field and encoded back byte for byte. A Network Name
    /// must have at least one byte, as Matter requires; OpenThread still accepts an empty one.
    ///
    /// An empty buffer is a well-formed, empty dataset; ``validate(for:)`` reports what it lacks.
    ///
    /// - Parameter bytes: The TLVs.
    /// - Throws: The first ``ThreadDatasetError`` found. Use ``diagnose(tlvs:requirement:)`` to get all of them.
    public init(tlvs bytes: [UInt8]) throws(ThreadDatasetError) {
        let result = Self.parse(bytes, stopAtFirstError: true)
        if let error = result.errors.first {
            throw error
        }
        self = result.dataset
    }

    /// Parses a dataset from hex text, as printed by `ot-ctl dataset active -x`.
    ///
    /// Upper- and lower-case digits are accepted, and white space before and after the digits is ignored.
    ///
    /// - Parameter hex: The TLVs as hex.
    /// - Throws: ``ThreadDatasetError`` `invalidHexCharacter`, `oddHexLength` or `datasetTooLong` for bad
    ///   text, then any error of ``init(tlvs:)``.
    public init(hex: String) throws(ThreadDatasetError) {
        try self.init(tlvs: Hex.decode(hex, maxBytes: Self.maxLength))
    }

    /// The most problems one parse lists.
    static let maxListedErrors = 16

    /// Walks the TLVs, decoding each one and recording problems.
    ///
    /// Framing problems (a truncated or extended TLV) end the walk, since nothing after them can be located. So
    /// does a value that does not fit its own length (a wrong length for its type, a Channel Mask whose entries do
    /// not fill it): the length byte may be the wrong one, and what follows would be read out of step, bytes of a
    /// value such as the Network Key taken for headers. Other problems inside one TLV are recorded and the walk goes
    /// on, so that a diagnosis can list them, up to ``maxListedErrors``. Errors about a header that may be out of
    /// step name neither the type byte of a type no dataset has nor the length byte: a value too long for the bytes
    /// left names its length only when its type and the type of every TLV before it are dataset types (a TLV of
    /// another type takes any length, so the walk may be out of step after one).
    ///
    /// - Parameters:
    ///   - bytes: The TLVs.
    ///   - stopAtFirstError: Whether to return as soon as one problem is found.
    /// - Returns: The dataset decoded so far, and the problems in the order found.

    static func parse(
        _ bytes: [UInt8],
        stopAtFirstError: Bool
    ) -> (dataset: OperationalDataset, errors: [ThreadDatasetError]) {
        var dataset = OperationalDataset()
        var errors: [ThreadDatasetError] = []
        if bytes.count > maxLength {
            errors.append(.tooLong(bytes.count, limit: maxLength))
            if stopAtFirstError { return (dataset, errors) }
        }
        var seenTypes = DatasetTLVTypeSet()
        // Whether every TLV walked past has a dataset type, so each length was checked against its type.
        var onlyDatasetTypes = true
        var offset = 0
        while offset < bytes.count {
            let type = DatasetTLVType(bytes[offset])
            // Only an error message needs the subject, so it is not formatted for every TLV. A header read out of
            // step may be secret bytes: a type no dataset has is not named by its number.
            var subject: String {
                type.isDatasetType ? ThreadDatasetError.subject(type, at: offset) : "A TLV of a type no dataset has, at offset \(offset)"
            }
            guard offset + 1 < bytes.count else {
                errors.append(ThreadDatasetError(
                    code: .truncatedHeader,
                    tlvType: type,
                    offset: offset,
                    message: "\(subject): the TLV header is truncated; expected a length byte after the type, "
                        + "found the end of the dataset"
                ))
                break
            }
            let length = Int(bytes[offset + 1])
            guard length != 0xFF else {
                errors.append(ThreadDatasetError(
                    code: .extendedLength,
                    tlvType: type,
                    offset: offset,
                    message: "\(subject): expected a base-format length byte (0 to 254), found 0xff, the "
                        + "extended-length escape, which a Thread Operational Dataset does not allow"
                ))
                break
            }
            let valueStart = offset + 2
            let available = bytes.count - valueStart
            guard length <= available else {
                // A header read out of step may be secret bytes: its length is named only where the walk is in step
                // as far as it can tell.
                let says = type.isDatasetType && onlyDatasetTypes
                    ? "its length byte says \(byteCount(length)), and \(available == 1 ? "1 is" : "\(available) are") left"
                    : "its length byte says more bytes than the \(byteCount(available)) left"
                errors.append(ThreadDatasetError(
                    code: .truncatedValue,
                    tlvType: type,
                    offset: offset,
                    message: "\(subject): \(says) before the end of the dataset"
                ))
                break
            }
            onlyDatasetTypes = onlyDatasetTypes && type.isDatasetType
            let value = bytes[valueStart..<(valueStart + length)]
            if seenTypes.contains(type) {
                let first = firstOffset(of: type, in: bytes)
                errors.append(ThreadDatasetError(
                    code: .duplicateTLV,
                    tlvType: type,
                    offset: offset,
                    message: "\(subject): the type already appeared at offset \(first); expected each TLV type "
                        + "at most once, found it twice"
                ))
            } else {
                seenTypes.insert(type)
                do throws(ThreadDatasetError) {
                    try dataset.decodeField(type, value, offset: offset)
                    dataset.tlvOrder.append(type)
                } catch where [.invalidLength, .truncatedChannelMaskEntry, .invalidChannelMaskEntryLength, .invalidNetworkName]
                    .contains(error.code)
                {
                    // A length that is off for its type may be the wrong one, and then what follows is read out of
                    // step: the "headers" of later TLVs could be bytes of a value such as the Network Key, and
                    // errors about them would show those bytes. A name that is no UTF-8, or holds a NUL, is most
                    // often such a length too (it reaches into the next TLVs). The walk stops here, and says so when
                    // bytes are left after the value.
                    let unchecked = valueStart + length < bytes.count
                        ? "; the TLVs after it were not checked, as they start where this length byte says and it may "
                            + "be the wrong byte: fix this TLV first"
                        : ""
                    errors.append(
                        ThreadDatasetError(
                            code: error.code, tlvType: error.tlvType, offset: error.offset, message: error.message + unchecked))
                    break
                } catch {
                    errors.append(error)
                }
            }
            if stopAtFirstError, !errors.isEmpty { break }
            // Bytes that are no dataset at all (a long run of zeros) would list a problem per two bytes.
            if errors.count >= maxListedErrors {
                let last = errors.removeLast()
                errors.append(
                    ThreadDatasetError(
                        code: last.code, tlvType: last.tlvType, offset: last.offset,
                        message: last.message + "; further problems are not listed (\(maxListedErrors) found before offset \(valueStart + length))"))
                break
            }
            offset = valueStart + length
        }
        return (dataset, errors)
    }

    /// The offset of the first TLV of `type`, which the walk has already passed, so the TLVs before it are
    /// well framed.
    private static func firstOffset(of type: DatasetTLVType, in bytes: [UInt8]) -> Int {
        var offset = 0
        while offset + 1 < bytes.count, bytes[offset] != type.rawValue {
            offset += 2 + Int(bytes[offset + 1])
        }
        return offset
    }

    /// Decodes one TLV's value into its field, or keeps it as an unknown TLV.
    private mutating func decodeField(
        _ type: DatasetTLVType,
        _ value: ArraySlice<UInt8>,
        offset: Int
    ) throws(ThreadDatasetError) {
        switch type {
        case .activeTimestamp:
            activeTimestamp = try ThreadTimestamp.decode(value, type: type, offset: offset)
        case .pendingTimestamp:
            pendingTimestamp = try ThreadTimestamp.decode(value, type: type, offset: offset)
        case .delayTimer:
            delayTimer = try Self.decodeInteger(value, type: type, offset: offset)
        case .channel:
            channel = try ThreadChannel.decode(value, type: type, offset: offset)
        case .wakeupChannel:
            wakeupChannel = try ThreadChannel.decode(value, type: type, offset: offset)
        case .channelMask:
            channelMask = try ChannelMask.decode(value, offset: offset)
        case .panID:
            panID = try Self.decodeInteger(value, type: type, offset: offset)
        case .extendedPANID:
            extendedPANID = try ExtendedPANID.make(value, offset: offset)
        case .networkName:
            networkName = try NetworkName.decode(value, offset: offset)
        case .meshLocalPrefix:
            meshLocalPrefix = try MeshLocalPrefix.make(value, offset: offset)
        case .networkKey:
            networkKey = try NetworkKey.make(value, offset: offset)
        case .pskc:
            pskc = try PSKc.make(value, offset: offset)
        case .securityPolicy:
            securityPolicy = try SecurityPolicy.decode(value, offset: offset)
        default:
            // Parsing bounds every value by the 254-byte dataset, so it fits a DatasetTLV.
            unknownTLVs.append(DatasetTLV(checkedType: type, value: Array(value)))
        }
    }

    /// Decodes a big-endian unsigned integer that must fill the value exactly.
    private static func decodeInteger<T: FixedWidthInteger & UnsignedInteger>(
        _ value: ArraySlice<UInt8>,
        type: DatasetTLVType,
        offset: Int
    ) throws(ThreadDatasetError) -> T {
        try ThreadDatasetError.requireLength(T.bitWidth / 8, of: value, type, at: offset)
        return bigEndianInteger(value)
    }
}

// MARK: - Encoding

extension OperationalDataset {
    /// Encodes the dataset as TLV bytes.
    ///
    /// TLVs come in the order they were parsed or set (see ``tlvs``), so a parsed dataset encodes to exactly
    /// the bytes it was parsed from. Every TLV is well formed by construction; the whole can only exceed
    /// ``maxLength`` when many unknown TLVs or channel-mask entries were added, which ``validate(for:)``
    /// reports as `datasetTooLong`.
    ///
    /// - Returns: The TLV bytes.
    public func encode() -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(Self.maxLength)
        for type in encodingOrder {
            tlv(for: type)?.append(to: &bytes)
        }
        return bytes
    }

    /// The encoded dataset as lowercase hex, the form `ot-ctl dataset active -x` prints and
    /// ``init(hex:)`` reads. It contains the secrets: treat it as one.
    public var hexString: String {
        Hex.encode(encode())
    }

    /// The number of bytes ``encode()`` produces.
    public var encodedLength: Int {
        encodingOrder.reduce(0) { $0 + 2 + (valueLength(of: $1) ?? 0) }
    }

    /// Whether `other` describes the same Thread network: the same Extended PAN ID, Network Key and Channel,
    /// the test a border router uses to answer "already joined" instead of re-joining.
    ///
    /// Datasets that lack any of the three are never the same network.
    ///
    /// - Parameter other: The dataset to compare with.
    public func isSameNetwork(as other: OperationalDataset) -> Bool {
        guard let extendedPANID, let networkKey, let channel else { return false }
        return extendedPANID == other.extendedPANID && networkKey == other.networkKey && channel == other.channel
    }
}
