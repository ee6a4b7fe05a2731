extension OnboardingPayload {
    /// Whether this payload's manual code is the 21-digit form (with vendor and product IDs).
    ///
    /// Any flow other than standard needs it, so that a commissioner can look up the vendor's instructions.
    public var needsLongManualCode: Bool { commissioningFlow != .standard }

    /// The QR code text, `MT:` followed by base-38, for this payload (including any ``extensionData``).
    ///
    /// A payload parsed from a QR code re-encodes to exactly the text it came from.
    ///
    /// - Throws: ``PayloadValidationError`` listing every rule the fields break as a QR payload.
    public func qrCode() throws(PayloadValidationError) -> String {
        let problems = validate(as: .qr)
        guard problems.isEmpty else { throw PayloadValidationError(problems) }
        return uncheckedQRCode()
    }

    /// The QR code text for several payloads joined with `*` (`MT:<p1>*<p2>…`).
    ///
    /// - Throws: ``PayloadValidationError`` listing every rule every payload breaks, each with its
    ///   ``PayloadError/payloadIndex``, or `emptyQRPayload` for an empty list.
    public static func qrCode(joining payloads: [OnboardingPayload]) throws(PayloadValidationError) -> String {
        guard !payloads.isEmpty else {
            throw PayloadValidationError([
                PayloadError(code: .emptyQRPayload, message: "there are no payloads to encode")
            ])
        }
        var problems: [PayloadError] = []
        for (index, payload) in payloads.enumerated() {
            problems += payload.validate(as: .qr).map { $0.inPayload(index) }
        }
        guard problems.isEmpty else { throw PayloadValidationError(problems) }
        return QRPayloadLayout.prefix
            + payloads.map { Base38.encode(QRPayloadLayout.pack($0)) }.joined(separator: "*")
    }

    /// The QR code text for the fields as they are, without checking any rule.
    ///
    /// Use it to reproduce a code that breaks a rule (a parsed invalid QR code re-encodes exactly). Values wider
    /// than their bit field are masked, so the text of such a payload does not decode to the same fields.
    public func uncheckedQRCode() -> String {
        QRPayloadLayout.prefix + Base38.encode(QRPayloadLayout.pack(self))
    }

    /// The manual pairing code: 11 digits for the standard flow, 21 (with vendor and product IDs) otherwise.
    ///
    /// A payload parsed from a manual code re-encodes to exactly its digits (without the separators).
    ///
    /// - Parameter grouped: Insert dashes as printed on labels: `3497-011-2332`, or
    ///   `6191-5614-0465-5233-29207` for 21 digits.
    /// - Throws: ``PayloadValidationError`` listing every rule the fields break for a manual code.
    public func manualCode(grouped: Bool = false) throws(PayloadValidationError) -> String {
        let problems = validate(as: .manual)
        guard problems.isEmpty else { throw PayloadValidationError(problems) }
        return uncheckedManualCode(grouped: grouped)
    }

    /// The manual pairing code for the fields as they are, without checking any rule.
    ///
    /// Missing vendor or product IDs in a 21-digit code are written as 0; values wider than their digits are masked.
    public func uncheckedManualCode(grouped: Bool = false) -> String {
        let digits = ManualCodeLayout.encode(self, long: needsLongManualCode)
        return grouped ? Self.groupManualCode(digits) : digits
    }

    /// The 21-digit manual pairing code (with vendor and product IDs) for the fields as they are, whatever the flow:
    /// a standard-flow device's long code commissions it too. Missing IDs are written as 0.
    public func uncheckedLongManualCode() -> String {
        ManualCodeLayout.encode(self, long: true)
    }

    /// `digits` with dashes between label groups: 4-3-4 for 11 digits, 4-4-4-4-5 for 21. Other lengths are returned
    /// unchanged.
    public static func groupManualCode(_ digits: String) -> String {
        let groups: [Int]
        switch digits.count {
        case ManualCodeLayout.shortLength: groups = [4, 3, 4]
        case ManualCodeLayout.longLength: groups = [4, 4, 4, 4, 5]
        default: return digits
        }
        var parts: [Substring] = []
        var rest = digits[...]
        for size in groups {
            parts.append(rest.prefix(size))
            rest = rest.dropFirst(size)
        }
        return parts.joined(separator: "-")
    }
}
