extension OnboardingPayload {
    /// The largest valid passcode, 99999998 (0x5F5E0FE).
    public static let maximumPasscode: UInt32 = 99_999_998

    /// Passcodes the specification forbids because they are trivial to guess. 00000000 and 99999999 are listed
    /// too, though they already fall outside 1…99999998.
    public static let trivialPasscodes: Set<UInt32> = [
        0, 11_111_111, 22_222_222, 33_333_333, 44_444_444, 55_555_555, 66_666_666, 77_777_777, 88_888_888,
        99_999_999, 12_345_678, 87_654_321,
    ]

    /// The largest vendor ID that is valid operationally (test vendor 4, 0xFFF4). 0 means unspecified.
    public static let maximumOperationalVendorID: UInt16 = 0xFFF4

    /// Whether `passcode` is in 1…99999998 and not a trivial value.
    public static func isValidPasscode(_ passcode: UInt32) -> Bool {
        passcodeErrors(passcode).isEmpty
    }

    /// The rules `passcode` breaks: `passcodeOutOfRange` or `trivialPasscode`, or none.
    ///
    /// Messages do not contain the passcode.
    public static func passcodeErrors(_ passcode: UInt32) -> [PayloadError] {
        if passcode == 0 || passcode > maximumPasscode {
            return [
                PayloadError(
                    code: .passcodeOutOfRange,
                    message: "the passcode must be between 00000001 and 99999998",
                    field: .passcode, expected: "1-99999998")
            ]
        }
        if trivialPasscodes.contains(passcode) {
            return [
                PayloadError(
                    code: .trivialPasscode,
                    message: "the passcode is a trivial value the specification forbids (11111111 ... 88888888, "
                        + "12345678, 87654321)",
                    field: .passcode)
            ]
        }
        return []
    }

    /// Every rule the payload breaks for its own ``kind``, in field order; empty when it is valid.
    ///
    /// Validation is separate from parsing: a parsed payload holds whatever the code said, and this reports each
    /// rule it breaks, one ``PayloadError`` per rule.
    public func validate() -> [PayloadError] {
        validate(as: kind)
    }

    /// Every rule the payload breaks if it were encoded as `kind`.
    ///
    /// Rules for both kinds: version 0; vendor ID 0 or 1…0xFFF4; product ID not 0 when a vendor ID is given;
    /// commissioning flow 0, 1 or 2; discriminator within 12 bits (long) or 4 bits (short); passcode 1…99999998 and
    /// not trivial. QR codes also need discovery capabilities, a long discriminator and zero padding. Discovery bits
    /// the specification does not define are not an error (a newer revision may define them): ``warnings(as:)``
    /// reports them. Manual codes for a non-standard flow (21 digits) also need the vendor and product IDs.
    public func validate(as kind: PayloadKind) -> [PayloadError] {
        var errors: [PayloadError] = []
        if version != 0 {
            errors.append(
                PayloadError(
                    code: .unsupportedVersion, message: "the payload version is \(version); only version 0 is defined",
                    field: .version, expected: "0", found: String(version)))
        }
        errors += vendorAndProductErrors(kind: kind)
        if !commissioningFlow.isDefined {
            errors.append(
                PayloadError(
                    code: .reservedCommissioningFlow,
                    message: "commissioning flow \(commissioningFlow.rawValue) is reserved; use 0 (standard), "
                        + "1 (user intent) or 2 (custom)",
                    field: .commissioningFlow, expected: "0-2", found: String(commissioningFlow.rawValue)))
        }
        if kind == .qr {
            errors += discoveryErrors()
        }
        errors += discriminatorErrors(kind: kind)
        errors += Self.passcodeErrors(passcode)
        if kind == .qr, padding != 0 {
            errors.append(
                PayloadError(
                    code: .nonZeroPadding,
                    message: "the 4 padding bits after the passcode are \(padding), they must be 0",
                    field: .padding, expected: "0", found: String(padding)))
        }
        return errors
    }

    /// What a commissioner should tell the user about a payload that is valid but holds something this version does
    /// not understand, for its own ``kind``.
    public func warnings() -> [PayloadError] {
        warnings(as: kind)
    }

    /// The warnings for the payload encoded as `kind`: discovery-capability bits 6 and 7 set in a QR code
    /// (`unknownDiscoveryCapabilities`). A newer Matter revision may define them, so they must not stop an older
    /// commissioner: the payload is accepted, the defined bits are used and the others ignored. And optional data
    /// that is not one well-formed TLV structure (`malformedExtensionData`): kept as found, but a controller that
    /// parses it (the Matter SDK's does) may refuse the code.
    public func warnings(as kind: PayloadKind) -> [PayloadError] {
        guard kind == .qr else { return [] }
        var warnings: [PayloadError] = []
        if let issue = extensionData?.decodingIssue {
            warnings.append(
                PayloadError(
                    code: .malformedExtensionData,
                    message: "the optional data after the fixed part is not one well-formed TLV structure (\(issue)); "
                        + "kept as found, but a Matter controller that parses it may refuse this code"))
        }
        return warnings + extensionRangeWarnings() + capabilityWarnings()
    }

    /// The optional data's common fields against the ranges the specification gives them (the Spake2p iteration
    /// bounds, the salt's length, at least one device).
    private func extensionRangeWarnings() -> [PayloadError] {
        guard let data = extensionData else { return [] }
        var problems: [String] = []
        if let iterations = data.pbkdfIterations, !(1_000...100_000).contains(iterations) {
            problems.append("PBKDF iterations \(iterations), outside 1000...100000")
        }
        if let salt = data.pbkdfSalt, !(16...32).contains(salt.count) {
            problems.append("a PBKDF salt of \(salt.count) bytes, not 16...32")
        }
        if data.numberOfDevices == 0 { problems.append("0 devices, not 1...255") }
        guard !problems.isEmpty else { return [] }
        return [
            PayloadError(
                code: .extensionDataOutOfRange,
                message: "the optional data holds \(problems.joined(separator: ", ")); kept as found, but a Matter controller may refuse this code")
        ]
    }

    private func capabilityWarnings() -> [PayloadError] {
        guard let capabilities = discoveryCapabilities else { return [] }
        let unknown = capabilities.unknownBits
        guard !unknown.isEmpty else { return [] }
        let bits = (0..<8).filter { unknown.rawValue & (1 << $0) != 0 }.map(String.init)
        let known = capabilities.intersection(.known)
        return [
            PayloadError(
                code: .unknownDiscoveryCapabilities,
                message: "discovery-capability bit\(bits.count == 1 ? "" : "s") \(bits.joined(separator: ", ")) "
                    + "\(bits.count == 1 ? "is" : "are") not defined by the Matter revision this tool knows "
                    + "(0x\(hex(capabilities.rawValue, digits: 2))); ignored, discovering by \(known)",
                field: .discoveryCapabilities, expected: "0x00-0x3F",
                found: "0x\(hex(capabilities.rawValue, digits: 2))")
        ]
    }

    private func vendorAndProductErrors(kind: PayloadKind) -> [PayloadError] {
        var errors: [PayloadError] = []
        // A QR code always carries both IDs; a missing one is encoded as 0.
        let vendor = kind == .qr ? vendorID ?? 0 : vendorID
        let product = kind == .qr ? productID ?? 0 : productID
        if let vendor, vendor > Self.maximumOperationalVendorID {
            errors.append(
                PayloadError(
                    code: .invalidVendorID,
                    message: "vendor ID 0x\(hex(vendor, digits: 4)) is not valid; use 0 (unspecified) or "
                        + "0x0001-0xFFF4",
                    field: .vendorID, expected: "0x0000-0xFFF4", found: "0x\(hex(vendor, digits: 4))"))
        }
        if let vendor, vendor != 0, product == 0 {
            errors.append(
                PayloadError(
                    code: .productIDZeroWithVendor,
                    message: "product ID 0 is only allowed with vendor ID 0 (unspecified)",
                    field: .productID, found: "0"))
        }
        if kind == .manual, commissioningFlow.isDefined, commissioningFlow != .standard,
            vendorID == nil || productID == nil
        {
            errors.append(
                PayloadError(
                    code: .missingVendorOrProductID,
                    message: "commissioning flow \(commissioningFlow.name) needs the 21-digit manual code, which "
                        + "carries the vendor and product IDs, but " + (vendorID == nil ? "the vendor" : "the product")
                        + " ID is missing",
                    field: vendorID == nil ? .vendorID : .productID))
        }
        return errors
    }

    private func discoveryErrors() -> [PayloadError] {
        guard discoveryCapabilities != nil else {
            return [
                PayloadError(
                    code: .missingDiscoveryCapabilities,
                    message: "a QR code must say how the device can be discovered (discovery capabilities)",
                    field: .discoveryCapabilities)
            ]
        }
        return []
    }

    private func discriminatorErrors(kind: PayloadKind) -> [PayloadError] {
        var errors: [PayloadError] = []
        if !discriminator.isInRange {
            let (limit, value) =
                switch discriminator {
                case .long(let value): ("4095 (12 bits)", String(value))
                case .short(let value): ("15 (4 bits)", String(value))
                }
            errors.append(
                PayloadError(
                    code: .discriminatorOutOfRange,
                    message: "discriminator \(value) is larger than \(limit)",
                    field: .discriminator, expected: "0-\(limit.prefix { $0 != " " })", found: value))
        }
        if kind == .qr, discriminator.isShort {
            errors.append(
                PayloadError(
                    code: .shortDiscriminatorInQRCode,
                    message: "a QR code needs the full 12-bit discriminator; only the 4-bit short one is known",
                    field: .discriminator))
        }
        return errors
    }
}
