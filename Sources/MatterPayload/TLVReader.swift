/// Why TLV bytes could not be decoded further. Internal: callers see ``PayloadExtensionData/decodingIssue``.
struct TLVDecodingError: Error, Sendable, Hashable {
    /// Byte offset where the problem is.
    var offset: Int
    /// What is wrong.
    var reason: String
}

/// Reads Matter TLV elements from bytes, never trapping on malformed input.
struct TLVReader {
    /// Containers nested deeper than this are refused, which bounds recursion on hostile input.
    static let maximumDepth = 16

    /// The element type code of end-of-container.
    static let endOfContainer: UInt8 = 0x18

    private let bytes: [UInt8]
    /// The offset of the next unread byte.
    private(set) var offset: Int

    init(_ bytes: [UInt8], offset: Int = 0) {
        self.bytes = bytes
        self.offset = offset
    }

    /// Whether all bytes have been read.
    var isAtEnd: Bool { offset >= bytes.count }

    /// The next byte without consuming it.
    func peek() -> UInt8? {
        offset < bytes.count ? bytes[offset] : nil
    }

    /// Consumes an end-of-container marker if it is next; returns whether it did.
    mutating func consumeEndOfContainer() -> Bool {
        guard peek() == Self.endOfContainer else { return false }
        offset += 1
        return true
    }

    /// Reads one element, including the members of a container.
    mutating func readElement(depth: Int = 0) throws(TLVDecodingError) -> TLVElement {
        let start = offset
        let control = try readByte()
        let type = control & 0x1F
        if type == Self.endOfContainer {
            throw TLVDecodingError(offset: start, reason: "end-of-container outside a container")
        }
        let tag = try readTag(control: control >> 5)
        let value = try readValue(type: type, elementStart: start, depth: depth)
        return TLVElement(tag: tag, value: value)
    }

    private mutating func readTag(control: UInt8) throws(TLVDecodingError) -> TLVTag {
        switch control {
        case 0: return .anonymous
        case 1: return .context(UInt8(try readUnsigned(byteCount: 1)))
        case 2: return .commonProfile(UInt32(try readUnsigned(byteCount: 2)))
        case 3: return .commonProfile(UInt32(try readUnsigned(byteCount: 4)))
        case 4: return .implicitProfile(UInt32(try readUnsigned(byteCount: 2)))
        case 5: return .implicitProfile(UInt32(try readUnsigned(byteCount: 4)))
        default:
            let vendor = UInt16(try readUnsigned(byteCount: 2))
            let profile = UInt16(try readUnsigned(byteCount: 2))
            let number = UInt32(try readUnsigned(byteCount: control == 6 ? 2 : 4))
            return .fullyQualified(vendorID: vendor, profile: profile, tag: number)
        }
    }

    private mutating func readValue(type: UInt8, elementStart: Int, depth: Int) throws(TLVDecodingError) -> TLVValue {
        switch type {
        case 0x00...0x03:
            let width = 1 << Int(type)
            let raw = try readUnsigned(byteCount: width)
            let shift = UInt64(64 - 8 * width)
            return .signedInteger(Int64(bitPattern: raw << shift) >> shift)
        case 0x04...0x07:
            return .unsignedInteger(try readUnsigned(byteCount: 1 << Int(type - 4)))
        case 0x08: return .boolean(false)
        case 0x09: return .boolean(true)
        case 0x0A: return .float(Float(bitPattern: UInt32(try readUnsigned(byteCount: 4))))
        case 0x0B: return .double(Double(bitPattern: try readUnsigned(byteCount: 8)))
        case 0x0C...0x0F:
            let stringStart = offset
            let content = try readBytes(lengthWidth: 1 << Int(type - 0x0C))
            guard let text = String(validating: content, as: UTF8.self) else {
                throw TLVDecodingError(offset: stringStart, reason: "UTF-8 string is not valid UTF-8")
            }
            return .utf8String(text)
        case 0x10...0x13:
            return .octetString(try readBytes(lengthWidth: 1 << Int(type - 0x10)))
        case 0x14: return .null
        case 0x15...0x17:
            guard depth < Self.maximumDepth else {
                throw TLVDecodingError(offset: elementStart, reason: "containers nested too deeply")
            }
            var members: [TLVElement] = []
            while !consumeEndOfContainer() {
                guard !isAtEnd else {
                    throw TLVDecodingError(offset: offset, reason: "container is not closed")
                }
                members.append(try readElement(depth: depth + 1))
            }
            switch type {
            case 0x15: return .structure(members)
            case 0x16: return .array(members)
            default: return .list(members)
            }
        default:
            throw TLVDecodingError(offset: elementStart, reason: "unknown element type 0x\(hex(type, digits: 2))")
        }
    }

    private mutating func readByte() throws(TLVDecodingError) -> UInt8 {
        guard offset < bytes.count else {
            throw TLVDecodingError(offset: offset, reason: "data ends in the middle of an element")
        }
        defer { offset += 1 }
        return bytes[offset]
    }

    /// A little-endian unsigned integer of `byteCount` (1…8) bytes.
    private mutating func readUnsigned(byteCount: Int) throws(TLVDecodingError) -> UInt64 {
        guard bytes.count - offset >= byteCount else {
            throw TLVDecodingError(offset: offset, reason: "data ends in the middle of an element")
        }
        var value: UInt64 = 0
        for index in 0..<byteCount {
            value |= UInt64(bytes[offset + index]) << (8 * UInt64(index))
        }
        offset += byteCount
        return value
    }

    /// A length of `lengthWidth` bytes followed by that many bytes.
    private mutating func readBytes(lengthWidth: Int) throws(TLVDecodingError) -> [UInt8] {
        let lengthOffset = offset
        let length = try readUnsigned(byteCount: lengthWidth)
        guard length <= UInt64(bytes.count - offset) else {
            throw TLVDecodingError(
                offset: lengthOffset, reason: "length \(length) runs past the end of the data")
        }
        let count = Int(length)
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }
}
