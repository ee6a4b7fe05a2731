/// Which printed form an onboarding payload came from, or is meant for.
public enum PayloadKind: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// A QR code: `MT:` followed by base-38 text.
    case qr
    /// A manual pairing code of 11 or 21 decimal digits.
    case manual

    /// `qr` or `manual`, as in the JSON output.
    public var description: String { rawValue }
}

/// The decoded content of a Matter onboarding payload (QR code or manual pairing code).
///
/// The value holds fields exactly as decoded, including values that break the specification's rules, so that
/// parsing and validation stay separate steps and a decoded QR code re-encodes to the same text:
///
/// ```swift
/// let payloads = try OnboardingPayload.parse("MT:Y.K9042C00KA0648G00")   // one payload
/// let problems = payloads[0].validate()                                  // [] when valid
/// let qr = try payloads[0].qrCode()                                      // "MT:Y.K9042C00KA0648G00"
/// let manual = try payloads[0].manualCode()                              // "34970112332"
/// ```
///
/// What each form carries:
/// - a QR code: every field, including the 12-bit discriminator, the discovery capabilities, the padding bits and
///   any optional TLV data;
/// - an 11-digit manual code: the 4-bit short discriminator and the passcode only (``vendorID`` and ``productID``
///   are `nil`, the flow reads as standard);
/// - a 21-digit manual code: that plus the vendor and product IDs (the flow reads as custom, as the reference
///   parser does: the code only says "not standard").
///
/// The passcode is a secret: ``description`` and the mirror never show it. Use ``redactedDescription`` or
/// ``jsonFields(redactingPasscode:)`` when a payload has to appear in logs or stored state.
public struct OnboardingPayload: Sendable, Hashable {
    /// The form the payload was decoded from (or, for one built from fields, the form it is checked against by
    /// ``validate()``).
    public var kind: PayloadKind
    /// The payload format version (3 bits in a QR code). Only 0 is valid.
    public var version: UInt8
    /// The vendor ID, or `nil` when the code does not carry it (11-digit manual codes). A QR code always carries it;
    /// 0 means unspecified.
    public var vendorID: UInt16?
    /// The product ID, or `nil` when the code does not carry it (11-digit manual codes).
    public var productID: UInt16?
    /// How the device enters commissioning mode.
    public var commissioningFlow: CommissioningFlow
    /// The transports the device can be discovered on; `nil` for manual codes, which do not carry them.
    public var discoveryCapabilities: DiscoveryCapabilities?
    /// The discriminator: long (12 bits) from a QR code, short (4 bits) from a manual code.
    public var discriminator: SetupDiscriminator
    /// The setup passcode (27 bits in a QR code). Secret.
    public var passcode: UInt32
    /// The 4 padding bits after the passcode in a QR code; must be 0. Always 0 for manual codes.
    public var padding: UInt8
    /// The optional TLV data after the fixed part of a QR code, or `nil` when there is none.
    public var extensionData: PayloadExtensionData?

    /// Creates a payload from all of its fields.
    public init(
        kind: PayloadKind, version: UInt8 = 0, vendorID: UInt16?, productID: UInt16?,
        commissioningFlow: CommissioningFlow, discoveryCapabilities: DiscoveryCapabilities?,
        discriminator: SetupDiscriminator, passcode: UInt32, padding: UInt8 = 0,
        extensionData: PayloadExtensionData? = nil
    ) {
        self.kind = kind
        self.version = version
        self.vendorID = vendorID
        self.productID = productID
        self.commissioningFlow = commissioningFlow
        self.discoveryCapabilities = discoveryCapabilities
        self.discriminator = discriminator
        self.passcode = passcode
        self.padding = padding
        self.extensionData = extensionData
    }

    /// Creates a QR payload for a device, the usual starting point for generating codes.
    ///
    /// - Parameters:
    ///   - vendorID: The vendor ID (0 for unspecified).
    ///   - productID: The product ID (0 only with vendor ID 0).
    ///   - discriminator: The 12-bit discriminator, 0…4095.
    ///   - passcode: The setup passcode, 1…99999998 and not a trivial value.
    ///   - commissioningFlow: The commissioning flow; non-standard flows get a 21-digit manual code.
    ///   - discoveryCapabilities: The discovery transports.
    ///   - extensionData: Optional TLV data to append to the QR code.
    public init(
        vendorID: UInt16, productID: UInt16, discriminator: UInt16, passcode: UInt32,
        commissioningFlow: CommissioningFlow = .standard, discoveryCapabilities: DiscoveryCapabilities = .ble,
        extensionData: PayloadExtensionData? = nil
    ) {
        self.init(
            kind: .qr, vendorID: vendorID, productID: productID, commissioningFlow: commissioningFlow,
            discoveryCapabilities: discoveryCapabilities, discriminator: .long(discriminator), passcode: passcode,
            extensionData: extensionData)
    }

    /// The 4-bit short discriminator, which both kinds of code carry.
    public var shortDiscriminator: UInt8 { discriminator.shortValue }

    /// The 12-bit discriminator, which only QR codes carry.
    public var longDiscriminator: UInt16? { discriminator.longValue }

    /// Whether the payload breaks none of the rules for its ``kind``.
    public var isValid: Bool { validate().isEmpty }
}
