/// Encodes TLV elements, choosing the shortest form for every integer, length and tag.
enum TLVWriter {
    /// The bytes of `element`.
    static func encode(_ element: TLVElement) -> [UInt8] {
        var output: [UInt8] = []
        append(element, to: &output)
        return output
    }

    /// Appends the bytes of `element` to `output`.
    static func append(_ element: TLVElement, to output: inout [UInt8]) {
        let (tagControl, tagBytes) = encodeTag(element.tag)
        let (type, body) = encodeValue(element.value)
        output.append(tagControl << 5 | type)
        output.append(contentsOf: tagBytes)
        output.append(contentsOf: body)
    }

    private static func encodeTag(_ tag: TLVTag) -> (control: UInt8, bytes: [UInt8]) {
        switch tag {
        case .anonymous:
            return (0, [])
        case .context(let number):
            return (1, [number])
        case .commonProfile(let number):
            let wide = number > 0xFFFF
            return (wide ? 3 : 2, littleEndian(UInt64(number), width: wide ? 4 : 2))
        case .implicitProfile(let number):
            let wide = number > 0xFFFF
            return (wide ? 5 : 4, littleEndian(UInt64(number), width: wide ? 4 : 2))
        case .fullyQualified(let vendor, let profile, let number):
            let prefix = littleEndian(UInt64(vendor), width: 2) + littleEndian(UInt64(profile), width: 2)
            return number <= 0xFFFF
                ? (6, prefix + littleEndian(UInt64(number), width: 2))
                : (7, prefix + littleEndian(UInt64(number), width: 4))
        }
    }

    private static func encodeValue(_ value: TLVValue) -> (type: UInt8, body: [UInt8]) {
        switch value {
        case .signedInteger(let number):
            let width = signedWidth(number)
            return (widthCode(width), littleEndian(UInt64(bitPattern: number), width: width))
        case .unsignedInteger(let number):
            let width = unsignedWidth(number)
            return (0x04 + widthCode(width), littleEndian(number, width: width))
        case .boolean(let flag):
            return (flag ? 0x09 : 0x08, [])
        case .float(let number):
            return (0x0A, littleEndian(UInt64(number.bitPattern), width: 4))
        case .double(let number):
            return (0x0B, littleEndian(number.bitPattern, width: 8))
        case .utf8String(let text):
            let content = Array(text.utf8)
            let width = unsignedWidth(UInt64(content.count))
            return (0x0C + widthCode(width), littleEndian(UInt64(content.count), width: width) + content)
        case .octetString(let content):
            let width = unsignedWidth(UInt64(content.count))
            return (0x10 + widthCode(width), littleEndian(UInt64(content.count), width: width) + content)
        case .null:
            return (0x14, [])
        case .structure(let members):
            return (0x15, containerBody(members))
        case .array(let members):
            return (0x16, containerBody(members))
        case .list(let members):
            return (0x17, containerBody(members))
        }
    }

    private static func containerBody(_ members: [TLVElement]) -> [UInt8] {
        var body: [UInt8] = []
        for member in members {
            append(member, to: &body)
        }
        body.append(TLVReader.endOfContainer)
        return body
    }

    /// The fewest bytes (1, 2, 4 or 8) that hold `number` unsigned.
    private static func unsignedWidth(_ number: UInt64) -> Int {
        switch number {
        case 0...0xFF: 1
        case 0...0xFFFF: 2
        case 0...0xFFFF_FFFF: 4
        default: 8
        }
    }

    /// The fewest bytes (1, 2, 4 or 8) that hold `number` in two's complement.
    private static func signedWidth(_ number: Int64) -> Int {
        switch number {
        case Int64(Int8.min)...Int64(Int8.max): 1
        case Int64(Int16.min)...Int64(Int16.max): 2
        case Int64(Int32.min)...Int64(Int32.max): 4
        default: 8
        }
    }

    /// The low two bits of the element type for a width of 1, 2, 4 or 8 bytes.
    private static func widthCode(_ width: Int) -> UInt8 {
        switch width {
        case 1: 0
        case 2: 1
        case 4: 2
        default: 3
        }
    }

    private static func littleEndian(_ number: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: number >> (8 * UInt64($0))) }
    }
}
