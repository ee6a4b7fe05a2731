extension OnboardingPayload: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// What is shown instead of the passcode.
    public static let redactionMarker = "<redacted>"

    /// A one-line summary of the fields with the passcode replaced by ``redactionMarker``.
    ///
    /// ```text
    /// qr payload(version: 0, vendorID: 0xFFF1, productID: 0x8000, commissioningFlow: standard,
    ///            discoveryCapabilities: ble, discriminator: 3840, passcode: <redacted>)
    /// manual payload(version: 0, commissioningFlow: standard, shortDiscriminator: 15, passcode: <redacted>)
    /// ```
    public var redactedDescription: String {
        var parts = ["version: \(version)"]
        if let vendorID { parts.append("vendorID: 0x\(hex(vendorID, digits: 4))") }
        if let productID { parts.append("productID: 0x\(hex(productID, digits: 4))") }
        parts.append("commissioningFlow: \(commissioningFlow.name)")
        if let discoveryCapabilities { parts.append("discoveryCapabilities: \(discoveryCapabilities)") }
        switch discriminator {
        case .long(let value): parts.append("discriminator: \(value)")
        case .short(let value): parts.append("shortDiscriminator: \(value)")
        }
        parts.append("passcode: \(Self.redactionMarker)")
        if padding != 0 { parts.append("padding: \(padding)") }
        if let extensionData { parts.append("extensionData: \(extensionData)") }
        return "\(kind.rawValue) payload(\(parts.joined(separator: ", ")))"
    }

    /// The same as ``redactedDescription``: interpolating a payload never reveals the passcode.
    public var description: String { redactedDescription }

    /// The same as ``redactedDescription``.
    public var debugDescription: String { redactedDescription }

    /// The fields for `dump` and debuggers, with the passcode replaced by ``redactionMarker``.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "kind": kind as Any,
                "version": version,
                "vendorID": vendorID as Any,
                "productID": productID as Any,
                "commissioningFlow": commissioningFlow,
                "discoveryCapabilities": discoveryCapabilities as Any,
                "discriminator": discriminator,
                "passcode": Self.redactionMarker,
                "padding": padding,
                "extensionData": extensionData as Any,
            ],
            displayStyle: .struct)
    }

    /// A form of a raw onboarding-code string that is safe to log: the whole code is hidden, because the
    /// passcode is spread through all of it.
    ///
    /// - Returns: `MT:<redacted>` for something that looks like a QR code, `<redacted manual code>` for digits,
    ///   and ``redactionMarker`` for anything else.
    public static func redact(code text: String) -> String {
        switch kind(of: text) {
        case .qr: QRPayloadLayout.prefix + redactionMarker
        case .manual: "<redacted manual code>"
        case nil: redactionMarker
        }
    }
}
