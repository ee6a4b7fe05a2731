import MatterPayload
import TestGates
import Testing

/// A manual code whose passcode bits are all zero (the check digit makes it parse).
let zeroPasscodeCode = (try? Verhoeff.appendingCheckDigit(to: "0000000000")) ?? ""

@Suite("Validation: one failing case per rule")
struct ValidationTests {
    /// A payload that breaks no rule; each test changes one field.
    static let valid = OnboardingPayload(
        vendorID: 0xFFF1, productID: 0x8000, discriminator: 3840, passcode: 20_202_021)

    private func codes(_ payload: OnboardingPayload, as kind: PayloadKind = .qr) -> [PayloadError.Code] {
        payload.validate(as: kind).map(\.code)
    }

    @Test("the baseline payload is valid as both kinds")
    func baseline() {
        #expect(Self.valid.isValid)
        #expect(codes(Self.valid, as: .qr).isEmpty)
        #expect(codes(Self.valid, as: .manual).isEmpty)
    }

    @Test("version must be 0", arguments: [1, 5, 7] as [UInt8])
    func version(_ version: UInt8) throws {
        var payload = Self.valid
        payload.version = version
        #expect(codes(payload) == [.unsupportedVersion])
        #expect(codes(payload, as: .manual) == [.unsupportedVersion])
        let error = try #require(payload.validate().first)
        #expect(error.field == .version)
        #expect(error.found == String(version))
    }

    @Test("passcode must be within 1...99999998", arguments: [0, 99_999_999, 100_000_000, 111_111_111, 134_217_727] as [UInt32])
    func passcodeRange(_ passcode: UInt32) {
        var payload = Self.valid
        payload.passcode = passcode
        #expect(codes(payload) == [.passcodeOutOfRange])
        #expect(codes(payload, as: .manual) == [.passcodeOutOfRange])
        #expect(!OnboardingPayload.isValidPasscode(passcode))
    }

    @Test("trivial passcodes are refused", arguments: [
        11_111_111, 22_222_222, 33_333_333, 44_444_444, 55_555_555, 66_666_666, 77_777_777, 88_888_888, 12_345_678,
        87_654_321,
    ] as [UInt32])
    func trivialPasscode(_ passcode: UInt32) {
        var payload = Self.valid
        payload.passcode = passcode
        #expect(codes(payload) == [.trivialPasscode])
        #expect(payload.validate().first?.field == .passcode)
    }

    @Test("boundary passcodes are accepted", arguments: [1, 2048, 99_999_998, 12_345_679] as [UInt32])
    func passcodeBoundaries(_ passcode: UInt32) {
        #expect(OnboardingPayload.isValidPasscode(passcode))
    }

    @Test("QR padding bits must be zero")
    func padding() {
        var payload = Self.valid
        payload.padding = 0b1000
        #expect(codes(payload) == [.nonZeroPadding])
        // A manual code has no padding bits.
        #expect(codes(payload, as: .manual).isEmpty)
    }

    @Test("commissioning flow 3 is reserved")
    func reservedFlow() {
        var payload = Self.valid
        payload.commissioningFlow = CommissioningFlow(rawValue: 3)
        #expect(codes(payload) == [.reservedCommissioningFlow])
        #expect(codes(payload, as: .manual) == [.reservedCommissioningFlow])
    }

    @Test("a QR payload needs discovery capabilities")
    func missingDiscovery() {
        var payload = Self.valid
        payload.discoveryCapabilities = nil
        #expect(codes(payload) == [.missingDiscoveryCapabilities])
        #expect(codes(payload, as: .manual).isEmpty)
    }

    @Test("discovery-capability bits 6-7 are accepted with a warning", arguments: [0x40, 0x80, 0xC2] as [UInt8])
    func unknownDiscoveryBits(_ raw: UInt8) throws {
        var payload = Self.valid
        payload.discoveryCapabilities = DiscoveryCapabilities(rawValue: raw)
        #expect(codes(payload).isEmpty)
        #expect(payload.isValid)
        let warning = try #require(payload.warnings().first)
        #expect(payload.warnings().count == 1)
        #expect(warning.code == .unknownDiscoveryCapabilities)
        #expect(warning.message.contains("not defined"))
        #expect(warning.message.contains("ignored"))
        #expect(warning.found == "0x" + String(raw, radix: 16, uppercase: true))
        // The defined bits are still the ones used to discover the device.
        #expect(payload.discoveryCapabilities?.intersection(.known) == DiscoveryCapabilities(rawValue: raw & 0x3F))
        #expect(Self.valid.warnings().isEmpty)
        #expect(payload.warnings(as: .manual).isEmpty)
    }

    @Test("a QR code with bits 6-7 set decodes, as connectedhomeip's parser accepts it")
    func unknownDiscoveryBitsDecode() throws {
        var payload = Self.valid
        payload.discoveryCapabilities = DiscoveryCapabilities(rawValue: 0xC2)
        let code = try payload.qrCode()
        let decoded = try OnboardingPayload.decode(code)
        #expect(decoded.first?.discoveryCapabilities?.rawValue == 0xC2)
        #expect(decoded.first?.warnings().map(\.code) == [.unknownDiscoveryCapabilities])
    }

    @Test("a QR payload needs the long discriminator")
    func shortDiscriminatorInQR() {
        var payload = Self.valid
        payload.discriminator = .short(15)
        #expect(codes(payload) == [.shortDiscriminatorInQRCode])
        #expect(codes(payload, as: .manual).isEmpty)
    }

    @Test("discriminators must fit their bits", arguments: [SetupDiscriminator.long(4096), .long(.max), .short(16)])
    func discriminatorRange(_ discriminator: SetupDiscriminator) {
        var payload = Self.valid
        payload.discriminator = discriminator
        #expect(codes(payload, as: .manual) == [.discriminatorOutOfRange])
    }

    @Test("vendor IDs above 0xFFF4 are refused", arguments: [0xFFF5, 0xFFFE, 0xFFFF] as [UInt16])
    func vendorID(_ vendorID: UInt16) {
        var payload = Self.valid
        payload.vendorID = vendorID
        #expect(codes(payload) == [.invalidVendorID])
    }

    @Test("vendor IDs 0 and 1...0xFFF4 are accepted", arguments: [0, 1, 0xFFF1, 0xFFF4] as [UInt16])
    func validVendorIDs(_ vendorID: UInt16) {
        var payload = Self.valid
        payload.vendorID = vendorID
        #expect(codes(payload).isEmpty)
    }

    @Test("product ID 0 needs vendor ID 0")
    func productIDZero() {
        var payload = Self.valid
        payload.productID = 0
        #expect(codes(payload) == [.productIDZeroWithVendor])
        payload.vendorID = 0
        #expect(codes(payload).isEmpty)
    }

    @Test("a 21-digit manual code needs both IDs")
    func missingIDsForLongManualCode() throws {
        var payload = try #require(parseOne("34970112332"))
        payload.commissioningFlow = .userIntent
        #expect(codes(payload, as: .manual) == [.missingVendorOrProductID])
        payload.vendorID = 0xFFF1
        #expect(payload.validate(as: .manual).first?.field == .productID)
        payload.productID = 0x8001
        #expect(codes(payload, as: .manual).isEmpty)
    }

    @Test("every broken rule is reported, in field order")
    func collectsAll() {
        let payload = OnboardingPayload(
            kind: .qr, version: 2, vendorID: 0xFFFF, productID: 0, commissioningFlow: CommissioningFlow(rawValue: 3),
            discoveryCapabilities: DiscoveryCapabilities(rawValue: 0xFF), discriminator: .long(5000), passcode: 0,
            padding: 3)
        #expect(codes(payload) == [
            .unsupportedVersion, .invalidVendorID, .productIDZeroWithVendor, .reservedCommissioningFlow,
            .discriminatorOutOfRange, .passcodeOutOfRange, .nonZeroPadding,
        ])
    }

    @Test("invalid reference codes parse, then fail validation", arguments: [
        ("MT:M5L90MP500W-GT68D20", PayloadError.Code.passcodeOutOfRange),
        ("01120767810", .passcodeOutOfRange),
        ("0085 260 7537", .trivialPasscode),
        (zeroPasscodeCode, .passcodeOutOfRange),
    ])
    func invalidReferenceCodes(_ code: String, _ expected: PayloadError.Code) throws {
        let payload = try #require(parseOne(code))
        #expect(payload.validate().map(\.code) == [expected])
        let error = try #require(throws: PayloadValidationError.self) { try OnboardingPayload.decode(code) }
        #expect(error.codes == [expected])
    }

    @Test("a joined code with one invalid payload fails, naming that payload", arguments: [
        ("MT:M5L90MP500K64J00000*M5L90MP500W-GT68D20", 1),
        ("MT:M5L90MP500W-GT68D20*M5L90MP500K64J00000", 0),
    ])
    func joinedWithOneInvalid(_ code: String, _ index: Int) throws {
        let error = try #require(throws: PayloadValidationError.self) { try OnboardingPayload.decode(code) }
        #expect(error.codes == [.passcodeOutOfRange])
        #expect(error.first?.payloadIndex == index)
        #expect(try OnboardingPayload.parse(code).count == 2)
    }

    @Test("a version-5 QR code decodes and is then refused")
    func version5() throws {
        var payload = Self.valid
        payload.version = 5
        let code = payload.uncheckedQRCode()
        let parsed = try #require(parseOne(code))
        #expect(parsed.version == 5)
        #expect(parsed.validate().map(\.code) == [.unsupportedVersion])
        #expect(parsed.uncheckedQRCode() == code)
    }

    @Test("validation messages never contain the passcode")
    func messagesHidePasscode() {
        var generator = SeededGenerator(seed: 0x0DE5_C0DE)
        for _ in 0..<200 {
            var payload = randomValidPayload(using: &generator)
            payload.passcode = UInt32.random(in: 10_000_000...134_217_727, using: &generator)
            payload.version = UInt8.random(in: 0...7, using: &generator)
            payload.padding = UInt8.random(in: 0...15, using: &generator)
            let text = String(payload.passcode)
            for kind in PayloadKind.allCases {
                for error in payload.validate(as: kind) {
                    #expect(!error.description.contains(text))
                    #expect(error.found.map { !$0.contains(text) } ?? true)
                }
            }
        }
    }
}
