import MatterFlowJSON
import MatterPayload

/// What conditions and templates may read of an onboarding payload before commissioning: the decoded, non-secret
/// facts of an input declared `"type": "onboardingPayload"` (`${input.onboardingPayload.vendorID}`).
///
/// The setup passcode is not among them, so no template or condition can produce it: a reference to any other
/// member is refused by the validator (`unknownField`) and does not resolve at run time. A code that holds several
/// payloads (a QR code with `*`) gives the facts of the first.
public enum OnboardingPayloadFacts {
    /// The facts' shape, for the validator's checks of `${input.NAME.member}`.
    public static let shape = ValueShape.object([
        .init("kind", .string, "\"qr\" or \"manual\": the form of the code"),
        .init("version", .integer, "the payload format version (0)"),
        .init("vendorID", .integer, "the vendor ID (0: unspecified); null for an 11-digit manual code"),
        .init("productID", .integer, "the product ID (0: unspecified); null for an 11-digit manual code"),
        .init(
            "commissioningFlow", .string,
            "\"standard\", \"userIntent\", \"custom\", \"reserved\" (an undefined value), or \"nonStandard\" (a 21-digit manual code: user intent or custom, the code does not say which)"),
        .init(
            "discoveryCapabilities", .array(.string),
            "the transports the device is discoverable on (softAP, ble, onNetwork, wifiPAF, nfc, thread); null for a manual code"),
        .init("discriminator", .integer, "the 12-bit discriminator; null for a manual code, which carries only the short one"),
        .init("shortDiscriminator", .integer, "the upper 4 bits of the discriminator (0...15)"),
    ])

    /// The facts of the payload a code holds, or nil when the text is not a valid QR or manual pairing code for one
    /// device.
    public static func facts(of text: String) -> JSONObject? {
        guard let payloads = try? OnboardingPayload.decode(text), payloads.count == 1, let payload = payloads.first else { return nil }
        var facts = JSONObject()
        facts["kind"] = .string(payload.kind.rawValue)
        facts["version"] = .int(Int(payload.version))
        let vendor = payload.kind == .qr ? payload.vendorID ?? 0 : payload.vendorID
        let product = payload.kind == .qr ? payload.productID ?? 0 : payload.productID
        facts["vendorID"] = vendor.map { .int(Int($0)) } ?? .null
        facts["productID"] = product.map { .int(Int($0)) } ?? .null
        // A 21-digit manual code says only that the flow is not the standard one: generators write it for a custom
        // flow (connectedhomeip) or for any non-standard one (the Python generator, and `payload generate`).
        facts["commissioningFlow"] = .string(flowName(of: payload))
        facts["discoveryCapabilities"] =
            payload.discoveryCapabilities.map { capabilities in
                .array(capabilityNames.filter { capabilities.contains($0.capability) }.map { .string($0.name) })
            } ?? .null
        facts["discriminator"] = payload.discriminator.longValue.map { .int(Int($0)) } ?? .null
        facts["shortDiscriminator"] = .int(Int(payload.discriminator.shortValue))
        return facts
    }

    /// One fact of a code: nil when the code is invalid or `name` is not a fact (the passcode is none).
    static func fact(_ name: String, of text: String) -> JSONValue? {
        facts(of: text)?[name]
    }

    /// Why a text is not a usable onboarding payload, without quoting it (it holds the passcode); nil when it is one.
    static func problem(with text: String) -> String? {
        PayloadCheck(text).problem
    }

    /// The payload's commissioning flow by name: `standard`, `userIntent`, `custom`, `reserved` (an undefined value), or
    /// `nonStandard` for a 21-digit manual code, which says only that the flow is not the standard one.
    public static func flowName(of payload: OnboardingPayload) -> String {
        if payload.flowIsOnlyKnownNotStandard { return "nonStandard" }
        return switch payload.commissioningFlow.rawValue {
        case 0: "standard"
        case 1: "userIntent"
        case 2: "custom"
        default: "reserved"
        }
    }

    private static let capabilityNames: [(capability: DiscoveryCapabilities, name: String)] = [
        (.softAP, "softAP"), (.ble, "ble"), (.onNetwork, "onNetwork"), (.wifiPAF, "wifiPAF"), (.nfc, "nfc"),
        (.thread, "thread"),
    ]
}
