import MatterPayload
import TestGates

/// Bytes from a hex string such as `"152C00"`; test fixtures only.
func bytes(hex text: String) -> [UInt8] {
    let digits = Array(text)
    return stride(from: 0, to: digits.count - 1, by: 2).compactMap { index in
        UInt8(String(digits[index...index + 1]), radix: 16)
    }
}

/// The error parsing `text` throws, or `nil` when it parses.
func parseError(_ text: String) -> PayloadError? {
    do {
        _ = try OnboardingPayload.parse(text)
        return nil
    } catch {
        return error
    }
}

/// The single payload in `text`, or `nil` if it does not parse to exactly one.
func parseOne(_ text: String) -> OnboardingPayload? {
    guard let payloads = try? OnboardingPayload.parse(text), payloads.count == 1 else { return nil }
    return payloads.first
}

/// A random QR-kind payload that breaks no rule (and so also encodes as a manual code).
func randomValidPayload(using generator: inout SeededGenerator) -> OnboardingPayload {
    let vendorID: UInt16
    let productID: UInt16
    switch Int.random(in: 0..<4, using: &generator) {
    case 0:
        vendorID = 0
        productID = UInt16.random(in: 0...UInt16.max, using: &generator)
    case 1:
        vendorID = UInt16.random(in: 0xFFF1...0xFFF4, using: &generator)
        productID = UInt16.random(in: 1...UInt16.max, using: &generator)
    default:
        vendorID = UInt16.random(in: 1...OnboardingPayload.maximumOperationalVendorID, using: &generator)
        productID = UInt16.random(in: 1...UInt16.max, using: &generator)
    }
    var passcode: UInt32
    repeat {
        passcode = UInt32.random(in: 1...OnboardingPayload.maximumPasscode, using: &generator)
    } while !OnboardingPayload.isValidPasscode(passcode)
    let capabilities = DiscoveryCapabilities(rawValue: UInt8.random(in: 0...0x3F, using: &generator))
    let flow = CommissioningFlow.defined[Int.random(in: 0..<3, using: &generator)]
    var extensionData: PayloadExtensionData?
    if Int.random(in: 0..<3, using: &generator) == 0 {
        extensionData = randomExtensionData(using: &generator)
    }
    return OnboardingPayload(
        vendorID: vendorID, productID: productID,
        discriminator: UInt16.random(in: 0...0xFFF, using: &generator), passcode: passcode,
        commissioningFlow: flow, discoveryCapabilities: capabilities, extensionData: extensionData)
}

/// Random optional QR data: common fields and vendor fields of assorted types.
func randomExtensionData(using generator: inout SeededGenerator) -> PayloadExtensionData {
    let serial: PayloadExtensionData.SerialNumber? =
        switch Int.random(in: 0..<3, using: &generator) {
        case 0: nil
        case 1: .number(UInt32.random(in: 0...UInt32.max, using: &generator))
        default: .text(String((0..<Int.random(in: 0..<20, using: &generator)).map { _ in
            Character(Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &generator)))
        }))
        }
    var vendorElements: [TLVElement] = []
    for _ in 0..<Int.random(in: 0..<3, using: &generator) {
        let tag = TLVTag.context(UInt8.random(in: 0x80...0xFF, using: &generator))
        let value: TLVValue =
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: .signedInteger(Int64.random(in: Int64.min...Int64.max, using: &generator))
            case 1: .unsignedInteger(UInt64.random(in: 0...UInt64.max, using: &generator))
            case 2: .octetString((0..<Int.random(in: 0..<40, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            })
            default: .boolean(Bool.random(using: &generator))
            }
        vendorElements.append(TLVElement(tag: tag, value: value))
    }
    return PayloadExtensionData(
        serialNumber: serial,
        pbkdfIterations: Bool.random(using: &generator) ? UInt32.random(in: 1000...100_000, using: &generator) : nil,
        numberOfDevices: Bool.random(using: &generator) ? UInt8.random(in: 1...255, using: &generator) : nil,
        vendorElements: vendorElements)
}
