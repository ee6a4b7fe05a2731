/// One thing wrong with an onboarding payload: which rule failed, where, and what was expected.
///
/// Parsing throws the first structural problem it meets (a character outside the base-38 alphabet, a wrong check
/// digit, …); ``OnboardingPayload/validate()`` returns every rule the decoded fields break. Both use this type, so a
/// caller can show one kind of message and scripts can match on the stable ``code``.
///
/// Messages never contain the passcode, and parse errors never contain a character or digit of the code (the code
/// encodes the passcode): they name positions, lengths and kinds of character. An error can go into logs and traces
/// as it is.
public struct PayloadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The rule that failed, as a stable camel-case string (for example `checkDigitMismatch`).
    public var code: Code
    /// A sentence a person can act on: the rule, the place, and the expected value when there is one.
    public var message: String
    /// The 0-based character offset in the parsed input where the problem is, when it comes from parsing. Messages
    /// name the place counting from 1, as a person does (`character 4` for offset 3).
    public var position: Int?
    /// The payload field the rule is about, when there is one.
    public var field: Field?
    /// Which payload of a `*`-joined QR code the problem is in (0-based), when the input held several.
    public var payloadIndex: Int?
    /// The value the rule expected, when it names one (for example a range such as `0-7`).
    public var expected: String?
    /// The value that was found instead, when it is safe to show: a decoded field or a length, never the passcode
    /// or a character or digit of the code.
    public var found: String?

    /// Creates an error from its parts.
    public init(
        code: Code, message: String, position: Int? = nil, field: Field? = nil, payloadIndex: Int? = nil,
        expected: String? = nil, found: String? = nil
    ) {
        self.code = code
        self.message = message
        self.position = position
        self.field = field
        self.payloadIndex = payloadIndex
        self.expected = expected
        self.found = found
    }

    /// `code: message`, prefixed with the payload number when the input held several payloads.
    public var description: String {
        let item = payloadIndex.map { "payload \($0 + 1): " } ?? ""
        return "\(item)\(code.rawValue): \(message)"
    }

    /// The same error, attributed to the payload at `index` of a `*`-joined QR code.
    public func inPayload(_ index: Int) -> PayloadError {
        var copy = self
        copy.payloadIndex = index
        return copy
    }

}

extension PayloadError {
    /// A stable identifier for a payload rule. Compare against the static members; the raw value is what scripts see.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code as scripts and JSON output see it.
        public var rawValue: String

        /// Creates a code from its string; use the static members for codes this module produces.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The same as ``rawValue``.
        public var description: String { rawValue }

        // MARK: Input shape

        /// The input is empty or only whitespace.
        public static let emptyInput = Code(rawValue: "emptyInput")
        /// The input is neither a QR code (`MT:` …) nor a manual pairing code (digits, dashes and spaces).
        public static let unrecognizedFormat = Code(rawValue: "unrecognizedFormat")

        // MARK: QR codes

        /// A `*`-separated part of a QR code is empty.
        public static let emptyQRPayload = Code(rawValue: "emptyQRPayload")
        /// A character is not in the base-38 alphabet `0-9A-Z-.`.
        public static let invalidBase38Character = Code(rawValue: "invalidBase38Character")
        /// The base-38 text has a length that no byte string encodes to (not 5k, 5k+2 or 5k+4 characters).
        public static let invalidBase38Length = Code(rawValue: "invalidBase38Length")
        /// A base-38 chunk encodes a value too large for the bytes it stands for.
        public static let base38ChunkOverflow = Code(rawValue: "base38ChunkOverflow")
        /// The decoded QR payload is shorter than the 11-byte fixed part.
        public static let qrPayloadTooShort = Code(rawValue: "qrPayloadTooShort")
        /// The QR code text is longer than any QR code symbol holds (4,296 characters in its alphanumeric mode).
        public static let qrCodeTooLong = Code(rawValue: "qrCodeTooLong")

        // MARK: Manual pairing codes

        /// A character other than a digit, a dash or a space appears in a manual pairing code.
        public static let invalidManualCodeCharacter = Code(rawValue: "invalidManualCodeCharacter")
        /// A manual pairing code has a number of digits other than 11 or 21.
        public static let invalidManualCodeLength = Code(rawValue: "invalidManualCodeLength")
        /// The last digit is not the Verhoeff check digit of the others.
        public static let checkDigitMismatch = Code(rawValue: "checkDigitMismatch")
        /// The first digit is 8 or 9, which marks a manual-code format newer than version 0.
        public static let unsupportedManualCodeVersion = Code(rawValue: "unsupportedManualCodeVersion")
        /// The VID/PID-present flag in the first digit disagrees with the length (11 vs 21 digits).
        public static let manualCodeLengthMismatch = Code(rawValue: "manualCodeLengthMismatch")
        /// A digit group of a manual code holds a number too large for its bits (over 65535 or 8191).
        public static let manualChunkOutOfRange = Code(rawValue: "manualChunkOutOfRange")
        /// The five vendor-ID digits of a 21-digit code exceed 65535.
        public static let vendorIDOutOfRange = Code(rawValue: "vendorIDOutOfRange")
        /// The five product-ID digits of a 21-digit code exceed 65535.
        public static let productIDOutOfRange = Code(rawValue: "productIDOutOfRange")

        // MARK: Validation rules

        /// The version is not 0.
        public static let unsupportedVersion = Code(rawValue: "unsupportedVersion")
        /// The passcode is outside 1…99999998.
        public static let passcodeOutOfRange = Code(rawValue: "passcodeOutOfRange")
        /// The passcode is one of the trivial values the specification forbids.
        public static let trivialPasscode = Code(rawValue: "trivialPasscode")
        /// The 4 padding bits of a QR payload are not zero.
        public static let nonZeroPadding = Code(rawValue: "nonZeroPadding")
        /// The commissioning flow is 3 (reserved) or more.
        public static let reservedCommissioningFlow = Code(rawValue: "reservedCommissioningFlow")
        /// A QR payload has no discovery capabilities.
        public static let missingDiscoveryCapabilities = Code(rawValue: "missingDiscoveryCapabilities")
        /// Discovery-capability bits the specification does not define (bits 6 and 7) are set. A warning, not an error:
        /// see ``OnboardingPayload/warnings()``.
        public static let unknownDiscoveryCapabilities = Code(rawValue: "unknownDiscoveryCapabilities")
        /// The optional data after a QR payload's fixed part is not one well-formed TLV structure. A warning, not an
        /// error (the bytes are kept as found; see ``OnboardingPayload/warnings()``), but a Matter controller that
        /// parses them may refuse the code.
        public static let malformedExtensionData = Code(rawValue: "malformedExtensionData")
        /// A common field of the optional data holds a value the specification does not allow: PBKDF iterations outside
        /// 1000...100000, a PBKDF salt not of 16...32 bytes, or 0 devices. A warning, as ``malformedExtensionData`` is.
        public static let extensionDataOutOfRange = Code(rawValue: "extensionDataOutOfRange")
        /// A QR payload has only the 4-bit short discriminator.
        public static let shortDiscriminatorInQRCode = Code(rawValue: "shortDiscriminatorInQRCode")
        /// The discriminator does not fit 12 bits (long) or 4 bits (short).
        public static let discriminatorOutOfRange = Code(rawValue: "discriminatorOutOfRange")
        /// The vendor ID is neither 0 (unspecified) nor an operationally valid ID (1…0xFFF4).
        public static let invalidVendorID = Code(rawValue: "invalidVendorID")
        /// The product ID is 0 while a vendor ID is given.
        public static let productIDZeroWithVendor = Code(rawValue: "productIDZeroWithVendor")
        /// A 21-digit manual code is needed (non-standard flow) but the vendor or product ID is missing.
        public static let missingVendorOrProductID = Code(rawValue: "missingVendorOrProductID")

        /// Every code this module produces, in declaration order.
        public static let all: [Code] = [
            .emptyInput, .unrecognizedFormat, .emptyQRPayload, .invalidBase38Character, .invalidBase38Length,
            .base38ChunkOverflow, .qrPayloadTooShort, .qrCodeTooLong, .invalidManualCodeCharacter, .invalidManualCodeLength,
            .checkDigitMismatch, .unsupportedManualCodeVersion, .manualCodeLengthMismatch, .manualChunkOutOfRange,
            .vendorIDOutOfRange, .productIDOutOfRange, .unsupportedVersion, .passcodeOutOfRange, .trivialPasscode,
            .nonZeroPadding, .reservedCommissioningFlow, .missingDiscoveryCapabilities,
            .unknownDiscoveryCapabilities, .malformedExtensionData, .extensionDataOutOfRange, .shortDiscriminatorInQRCode, .discriminatorOutOfRange, .invalidVendorID,
            .productIDZeroWithVendor, .missingVendorOrProductID,
        ]
    }

    /// A field of an onboarding payload, named as in the JSON output.
    public enum Field: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// ``OnboardingPayload/version``.
        case version
        /// ``OnboardingPayload/vendorID``.
        case vendorID
        /// ``OnboardingPayload/productID``.
        case productID
        /// ``OnboardingPayload/commissioningFlow``.
        case commissioningFlow
        /// ``OnboardingPayload/discoveryCapabilities``.
        case discoveryCapabilities
        /// ``OnboardingPayload/discriminator``.
        case discriminator
        /// ``OnboardingPayload/passcode``.
        case passcode
        /// ``OnboardingPayload/padding``.
        case padding
        /// The Verhoeff check digit of a manual pairing code.
        case checkDigit

        /// The field name.
        public var description: String { rawValue }
    }
}
