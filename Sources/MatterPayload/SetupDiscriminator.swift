/// The discriminator a commissioner uses to pick the right device out of those advertising.
///
/// A QR code carries the full 12-bit value; a manual pairing code carries only its upper 4 bits, the *short*
/// discriminator. Keeping the two apart matters for discovery: a short value matches 256 long values, and putting it
/// where a long value is expected would match nothing.
public enum SetupDiscriminator: Sendable, Hashable, CustomStringConvertible {
    /// The full 12-bit discriminator (0…4095), as carried by QR codes.
    case long(UInt16)
    /// Only the upper 4 bits (0…15), as carried by manual pairing codes.
    case short(UInt8)

    /// The largest long discriminator, 0xFFF.
    public static let maximumLongValue: UInt16 = 0xFFF
    /// The largest short discriminator, 0xF.
    public static let maximumShortValue: UInt8 = 0xF

    /// The 4-bit short discriminator: the upper 4 bits of a long value, or the short value itself.
    ///
    /// Out-of-range values (which fail validation) are masked to 4 bits.
    public var shortValue: UInt8 {
        switch self {
        case .long(let value): UInt8(truncatingIfNeeded: value >> 8) & 0xF
        case .short(let value): value & 0xF
        }
    }

    /// The 12-bit value, or `nil` when only the short discriminator is known.
    public var longValue: UInt16? {
        switch self {
        case .long(let value): value
        case .short: nil
        }
    }

    /// Whether only the short discriminator is known.
    public var isShort: Bool {
        if case .short = self { return true }
        return false
    }

    /// Whether the value fits its field (12 bits long, 4 bits short).
    public var isInRange: Bool {
        switch self {
        case .long(let value): value <= Self.maximumLongValue
        case .short(let value): value <= Self.maximumShortValue
        }
    }

    /// Whether a device advertising the 12-bit `advertised` discriminator could be the one this value describes.
    ///
    /// A long value must be equal; a short value must equal the upper 4 bits of `advertised`.
    public func matches(advertised: UInt16) -> Bool {
        switch self {
        case .long(let value): value == advertised
        case .short(let value): UInt16(value) == advertised >> 8
        }
    }

    /// `3840` for a long value, `short 15` for a short one.
    public var description: String {
        switch self {
        case .long(let value): "\(value)"
        case .short(let value): "short \(value)"
        }
    }
}
