import MatterFlow
import MatterPayload

/// What the simulated hub learns about a device from its onboarding payload: the vendor and product IDs its Basic
/// Information reports, and a key that recognises the same device when it is commissioned again.
///
/// This is the only place the simulator interprets onboarding payloads (through the `MatterPayload` module).
///
/// - An 11-digit manual pairing code carries no vendor or product ID; the device then reports the Matter test IDs,
///   vendor 0xFFF1 and product 0x8000. So does a QR code whose vendor ID is 0 ("unspecified").
/// - The key is built from the payload's public fields only (vendor ID, product ID, discriminator), never from the
///   passcode, so it may be stored and shown. Two codes for the same device in different forms (its QR code and its
///   manual code) have different keys, and two 11-digit codes with the same short discriminator have the same key.
public struct PayloadIdentity: Sendable, Hashable {
    /// The vendor ID the device reports.
    public var vendorID: Int
    /// The product ID the device reports.
    public var productID: Int
    /// Identifies the device for duplicate detection (`deviceAlreadyCommissioned`); contains no secret.
    public var deviceKey: String

    /// An identity from its parts.
    public init(vendorID: Int, productID: Int, deviceKey: String) {
        self.vendorID = vendorID
        self.productID = productID
        self.deviceKey = deviceKey
    }

    /// Interprets a QR code (`MT:...`) or a manual pairing code (11 or 21 digits, dashes and spaces allowed).
    /// - Throws: ``FlowError`` `invalidPayload` naming the broken rule (never the passcode) when the code does not
    ///   decode or breaks a rule of the Matter specification, or holds several devices' payloads.
    public init(payload text: String) throws(FlowError) {
        let payloads: [OnboardingPayload]
        do {
            payloads = try OnboardingPayload.decode(text)
        } catch {
            let extra = error.errors.count > 1 ? " (and \(error.errors.count - 1) more problem\(error.errors.count > 2 ? "s" : ""))" : ""
            let detail = error.first.map { "\($0.code.rawValue): \($0.message)" } ?? "it does not decode"
            throw FlowError(
                .invalidPayload,
                "the onboarding payload is not a valid Matter QR code or manual pairing code: \(detail)\(extra); check the code printed on the device")
        }
        guard payloads.count == 1, let payload = payloads.first else {
            throw FlowError(.invalidPayload, PayloadCheck.severalDevices(payloads.count))
        }
        self.init(payload)
    }

    /// The identity of a decoded payload.
    public init(_ payload: OnboardingPayload) {
        var parts: [String] = []
        if let vendorID = payload.vendorID, vendorID != 0 {
            parts.append("vid=\(ProductNames.hex(Int(vendorID)))")
            if let productID = payload.productID { parts.append("pid=\(ProductNames.hex(Int(productID)))") }
            self.vendorID = Int(vendorID)
            self.productID = payload.productID.map(Int.init) ?? ProductNames.unknownProductID
        } else {
            self.vendorID = ProductNames.unknownVendorID
            self.productID = ProductNames.unknownProductID
        }
        switch payload.discriminator {
        case .long(let value): parts.append("discriminator=\(value)")
        case .short(let value): parts.append("shortDiscriminator=\(value)")
        }
        deviceKey = parts.joined(separator: ",")
    }
}
