/// The optional TLV data that may follow the fixed 88 bits of a QR payload.
///
/// The bytes are kept exactly as found, so a decoded QR code re-encodes to the same text whatever they contain. They
/// are also decoded as far as possible: the specification makes them one anonymous TLV structure whose context tags
/// 0x00–0x7F are common fields (serial number, PBKDF iterations and salt, number of devices, commissioning timeout)
/// and 0x80–0xFF vendor fields. Data that does not decode is never an error: ``decodingIssue`` says where decoding
/// stopped and ``elements`` holds the members read before that point.
public struct PayloadExtensionData: Sendable, Hashable, CustomStringConvertible {
    /// A device serial number, which the specification allows as text or as an unsigned 32-bit number.
    public enum SerialNumber: Sendable, Hashable, CustomStringConvertible {
        /// A UTF-8 serial number.
        case text(String)
        /// A numeric serial number.
        case number(UInt32)

        /// The serial number as text.
        public var description: String {
            switch self {
            case .text(let text): text
            case .number(let number): "\(number)"
            }
        }
    }

    /// Context tag of the serial number.
    public static let serialNumberTag: UInt8 = 0x00
    /// Context tag of the PBKDF iteration count.
    public static let pbkdfIterationsTag: UInt8 = 0x01
    /// Context tag of the PBKDF salt.
    public static let pbkdfSaltTag: UInt8 = 0x02
    /// Context tag of the number of devices sharing the payload.
    public static let numberOfDevicesTag: UInt8 = 0x03
    /// Context tag of the commissioning timeout (seconds).
    public static let commissioningTimeoutTag: UInt8 = 0x04
    /// The first vendor-specific context tag; 0x80 through 0xFF are vendor tags.
    public static let firstVendorTag: UInt8 = 0x80

    /// The bytes exactly as they appear after the fixed part of the QR payload.
    public private(set) var rawBytes: [UInt8]
    /// The members of the outer structure that could be decoded, in order.
    public private(set) var elements: [TLVElement]
    /// Why the bytes are not exactly one anonymous TLV structure, or `nil` when they are.
    public private(set) var decodingIssue: String?

    /// Keeps `rawBytes` and decodes what it can of them.
    public init(rawBytes: [UInt8]) {
        self.rawBytes = rawBytes
        (elements, decodingIssue) = Self.decodeMembers(rawBytes)
    }

    /// Encodes `elements` as the members of an anonymous structure.
    public init(elements: [TLVElement]) {
        self.init(rawBytes: TLVWriter.encode(TLVElement(tag: .anonymous, value: .structure(elements))))
    }

    /// Encodes the given fields, common ones in tag order followed by `vendorElements` (whose tags should be
    /// context tags 0x80–0xFF).
    public init(
        serialNumber: SerialNumber? = nil, pbkdfIterations: UInt32? = nil, pbkdfSalt: [UInt8]? = nil,
        numberOfDevices: UInt8? = nil, commissioningTimeout: UInt16? = nil, vendorElements: [TLVElement] = []
    ) {
        var members: [TLVElement] = []
        func add(_ tag: UInt8, _ value: TLVValue) {
            members.append(TLVElement(tag: .context(tag), value: value))
        }
        switch serialNumber {
        case .text(let text): add(Self.serialNumberTag, .utf8String(text))
        case .number(let number): add(Self.serialNumberTag, .unsignedInteger(UInt64(number)))
        case nil: break
        }
        if let pbkdfIterations { add(Self.pbkdfIterationsTag, .unsignedInteger(UInt64(pbkdfIterations))) }
        if let pbkdfSalt { add(Self.pbkdfSaltTag, .octetString(pbkdfSalt)) }
        if let numberOfDevices { add(Self.numberOfDevicesTag, .unsignedInteger(UInt64(numberOfDevices))) }
        if let commissioningTimeout {
            add(Self.commissioningTimeoutTag, .unsignedInteger(UInt64(commissioningTimeout)))
        }
        self.init(elements: members + vendorElements)
    }

    /// Two values are equal when their raw bytes are: everything else is decoded from them.
    public static func == (lhs: PayloadExtensionData, rhs: PayloadExtensionData) -> Bool {
        lhs.rawBytes == rhs.rawBytes
    }

    /// Hashes the raw bytes, which determine everything else.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(rawBytes)
    }

    /// Whether the bytes decoded completely as one anonymous structure.
    public var isWellFormed: Bool { decodingIssue == nil }

    /// The serial number (tag 0x00), when present as text or as a number that fits 32 bits.
    public var serialNumber: SerialNumber? {
        switch member(Self.serialNumberTag) {
        case .utf8String(let text): return .text(text)
        case let value?:
            guard let number = value.unsignedValue, let narrow = UInt32(exactly: number) else { return nil }
            return .number(narrow)
        case nil: return nil
        }
    }

    /// The PBKDF iteration count (tag 0x01), when present as an unsigned number that fits 32 bits.
    public var pbkdfIterations: UInt32? {
        member(Self.pbkdfIterationsTag)?.unsignedValue.flatMap { UInt32(exactly: $0) }
    }

    /// The PBKDF salt (tag 0x02), when present as a byte string.
    public var pbkdfSalt: [UInt8]? {
        if case .octetString(let bytes)? = member(Self.pbkdfSaltTag) { return bytes }
        return nil
    }

    /// The number of devices (tag 0x03), when present as an unsigned number that fits 8 bits.
    public var numberOfDevices: UInt8? {
        member(Self.numberOfDevicesTag)?.unsignedValue.flatMap { UInt8(exactly: $0) }
    }

    /// The commissioning timeout in seconds (tag 0x04), when present as an unsigned number that fits 16 bits.
    public var commissioningTimeout: UInt16? {
        member(Self.commissioningTimeoutTag)?.unsignedValue.flatMap { UInt16(exactly: $0) }
    }

    /// Members with vendor context tags (0x80–0xFF), in order.
    public var vendorElements: [TLVElement] {
        elements.filter { element in
            if case .context(let number) = element.tag { return number >= Self.firstVendorTag }
            return false
        }
    }

    /// The value of the first member with context tag `number`.
    public func member(_ number: UInt8) -> TLVValue? {
        elements.first { $0.tag == .context(number) }?.value
    }

    /// The decoded members and, for bytes that are not one well-formed anonymous structure, why.
    private static func decodeMembers(_ bytes: [UInt8]) -> ([TLVElement], String?) {
        guard let first = bytes.first else { return ([], "there are no bytes") }
        guard first == 0x15 else {
            return ([], "data does not start with an anonymous structure (control byte 0x\(hex(first, digits: 2)))")
        }
        var members: [TLVElement] = []
        var reader = TLVReader(bytes, offset: 1)
        do throws(TLVDecodingError) {
            while !reader.consumeEndOfContainer() {
                guard !reader.isAtEnd else {
                    throw TLVDecodingError(offset: reader.offset, reason: "structure is not closed")
                }
                members.append(try reader.readElement(depth: 1))
            }
        } catch {
            return (members, "\(error.reason) at byte \(error.offset)")
        }
        guard reader.isAtEnd else {
            return (members, "\(bytes.count - reader.offset) byte(s) follow the structure at byte \(reader.offset)")
        }
        return (members, nil)
    }

    /// The decoded members, and the decoding issue if any; never the raw bytes in full.
    public var description: String {
        let body = elements.map { "\($0.tag): \($0.value)" }.joined(separator: ", ")
        let issue = decodingIssue.map { " (\($0); \(rawBytes.count) raw bytes kept)" } ?? ""
        return "{\(body)}\(issue)"
    }
}

extension PayloadExtensionData {
    /// The optional data as ordered JSON members, for `matterflow payload`: `serialNumber` (text, or a number),
    /// `pbkdfIterations`, `pbkdfSalt` (hex), `numberOfDevices`, `commissioningTimeout` (seconds), each when
    /// present; `vendorFields`, the number of vendor members (tags 0x80-0xFF), when there are any; and
    /// `decodingIssue` when the bytes are not one well-formed structure (the members read before it are listed).
    public var jsonFields: [(key: String, value: PayloadJSONValue)] {
        var fields: [(key: String, value: PayloadJSONValue)] = []
        switch serialNumber {
        case .text(let text): fields.append(("serialNumber", .string(text)))
        case .number(let number): fields.append(("serialNumber", .integer(Int(number))))
        case nil: break
        }
        if let pbkdfIterations { fields.append(("pbkdfIterations", .integer(Int(pbkdfIterations)))) }
        if let pbkdfSalt { fields.append(("pbkdfSalt", .string(pbkdfSalt.map { hex($0, digits: 2) }.joined()))) }
        if let numberOfDevices { fields.append(("numberOfDevices", .integer(Int(numberOfDevices)))) }
        if let commissioningTimeout { fields.append(("commissioningTimeout", .integer(Int(commissioningTimeout)))) }
        let vendor = vendorElements.count
        if vendor > 0 { fields.append(("vendorFields", .integer(vendor))) }
        if let decodingIssue { fields.append(("decodingIssue", .string(decodingIssue))) }
        return fields
    }
}
