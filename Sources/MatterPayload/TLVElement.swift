/// One element of Matter TLV data: a tag and a value.
///
/// Only what the optional part of a QR code needs: decoding any well-formed TLV, and encoding values in their
/// shortest form. Decoded payloads keep their raw bytes as well, so re-encoding a QR code never depends on the
/// encoder picking the same widths as the device maker did.
public struct TLVElement: Sendable, Hashable {
    /// The element's tag.
    public var tag: TLVTag
    /// The element's value.
    public var value: TLVValue

    /// Creates an element.
    public init(tag: TLVTag, value: TLVValue) {
        self.tag = tag
        self.value = value
    }
}

/// The tag of a TLV element.
public enum TLVTag: Sendable, Hashable, CustomStringConvertible {
    /// No tag (used for the outer structure of QR-code data and for array members).
    case anonymous
    /// A context-specific tag, 0…255. QR-code data uses 0x00–0x7F for common fields and 0x80–0xFF for vendor
    /// fields.
    case context(UInt8)
    /// A tag in the Matter common profile.
    case commonProfile(UInt32)
    /// A tag in the profile implied by the context.
    case implicitProfile(UInt32)
    /// A fully-qualified tag: vendor, profile and tag number.
    case fullyQualified(vendorID: UInt16, profile: UInt16, tag: UInt32)

    /// A short text form such as `ctx(0x80)`.
    public var description: String {
        switch self {
        case .anonymous: "anonymous"
        case .context(let number): "ctx(\(hex(number, digits: 2)))"
        case .commonProfile(let number): "common(\(number))"
        case .implicitProfile(let number): "implicit(\(number))"
        case .fullyQualified(let vendor, let profile, let number):
            "fq(\(hex(vendor, digits: 4)):\(hex(profile, digits: 4)):\(number))"
        }
    }
}

/// The value of a TLV element.
public enum TLVValue: Sendable, Hashable, CustomStringConvertible {
    /// A signed integer (1, 2, 4 or 8 bytes on the wire).
    case signedInteger(Int64)
    /// An unsigned integer (1, 2, 4 or 8 bytes on the wire).
    case unsignedInteger(UInt64)
    /// `true` or `false`.
    case boolean(Bool)
    /// A 32-bit float.
    case float(Float)
    /// A 64-bit float.
    case double(Double)
    /// A UTF-8 string.
    case utf8String(String)
    /// A byte string.
    case octetString([UInt8])
    /// Null.
    case null
    /// A structure: members with distinct tags.
    case structure([TLVElement])
    /// An array: anonymous members.
    case array([TLVElement])
    /// A list: members in order, tagged or not.
    case list([TLVElement])

    /// The value as an unsigned integer, when it is a non-negative integer of either signedness.
    public var unsignedValue: UInt64? {
        switch self {
        case .unsignedInteger(let value): value
        case .signedInteger(let value) where value >= 0: UInt64(value)
        default: nil
        }
    }

    /// A short text form; strings are quoted and byte strings shown in hex.
    public var description: String {
        switch self {
        case .signedInteger(let value): "\(value)"
        case .unsignedInteger(let value): "\(value)"
        case .boolean(let value): "\(value)"
        case .float(let value): "\(value)"
        case .double(let value): "\(value)"
        case .utf8String(let value): "\"\(value)\""
        case .octetString(let bytes): "0x" + bytes.map { hex($0, digits: 2) }.joined()
        case .null: "null"
        case .structure(let members): "{" + members.map(Self.memberText).joined(separator: ", ") + "}"
        case .array(let members): "[" + members.map(Self.memberText).joined(separator: ", ") + "]"
        case .list(let members): "[[" + members.map(Self.memberText).joined(separator: ", ") + "]]"
        }
    }

    private static func memberText(_ element: TLVElement) -> String {
        if case .anonymous = element.tag { return element.value.description }
        return "\(element.tag): \(element.value)"
    }
}

/// `value` in upper-case hex with at least `digits` digits, without prefix.
func hex(_ value: some BinaryInteger, digits: Int) -> String {
    let text = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, digits - text.count)) + text
}
