import MatterPayload
import Testing

/// A manual pairing code from a public test suite with the fields it carries.
struct ManualVector: Sendable, CustomTestStringConvertible {
    var code: String
    var shortDiscriminator: UInt8
    var passcode: UInt32
    /// Vendor and product IDs, for 21-digit codes.
    var ids: (vendor: UInt16, product: UInt16)?

    var testDescription: String { code }
}

@Suite("Manual pairing code vectors")
struct ManualCodeVectorTests {
    static let vectors: [ManualVector] = [
        ManualVector(code: "34970112332", shortDiscriminator: 15, passcode: 20_202_021),
        ManualVector(code: "749701123365521327694", shortDiscriminator: 15, passcode: 20_202_021, ids: (0xFFF1, 0x8001)),
        ManualVector(code: "00204800002", shortDiscriminator: 0, passcode: 2048),
        ManualVector(code: "26318621095", shortDiscriminator: 11, passcode: 34_567_890),
        ManualVector(code: "1604-371-4310", shortDiscriminator: 7, passcode: 23_456_789),
        ManualVector(code: "00876800071", shortDiscriminator: 0, passcode: 123_456),
        ManualVector(code: "32140830464", shortDiscriminator: 13, passcode: 49_910_688),
        ManualVector(code: "00210433428", shortDiscriminator: 0, passcode: 54_757_432),
        ManualVector(code: "702871264504387000187", shortDiscriminator: 12, passcode: 43_338_551, ids: (0x1123, 0x12)),
        ManualVector(code: "745492075300001000013", shortDiscriminator: 14, passcode: 12_349_876, ids: (1, 1)),
        ManualVector(code: "403732495800069000166", shortDiscriminator: 0, passcode: 81_235_604, ids: (0x45, 0x10)),
        ManualVector(code: "619156140465523329207", shortDiscriminator: 9, passcode: 23_005_908, ids: (0xFFF3, 0x8098)),
    ]

    @Test("decodes the fields of the reference manual codes", arguments: vectors)
    func decodesFields(_ vector: ManualVector) throws {
        let payload = try #require(parseOne(vector.code))
        #expect(payload.kind == .manual)
        #expect(payload.version == 0)
        #expect(payload.discriminator == .short(vector.shortDiscriminator))
        #expect(payload.longDiscriminator == nil)
        #expect(payload.passcode == vector.passcode)
        #expect(payload.discoveryCapabilities == nil)
        #expect(payload.vendorID == vector.ids?.vendor)
        #expect(payload.productID == vector.ids?.product)
        // The code only says "standard" (11 digits) or "not standard" (21): the latter reads as custom.
        #expect(payload.commissioningFlow == (vector.ids == nil ? .standard : .custom))
        #expect(payload.validate().isEmpty)
        #expect(try payload.manualCode() == vector.code.filter { $0 != "-" && $0 != " " })
    }

    @Test("label groupings and surrounding whitespace are accepted", arguments: [
        "3497-011-2332", "3497 011 2332", "3497-0112-332", " 34970112332\n", "34-97-01-12-33-2", "3497 - 011 - 2332",
    ])
    func groupings(_ text: String) throws {
        let payload = try #require(parseOne(text))
        #expect(payload == parseOne("34970112332"))
        #expect(OnboardingPayload.kind(of: text) == .manual)
    }

    @Test("grouped output matches the label style")
    func groupedOutput() throws {
        let short = try #require(parseOne("34970112332"))
        #expect(try short.manualCode(grouped: true) == "3497-011-2332")
        let long = try #require(parseOne("749701123365521327694"))
        #expect(try long.manualCode(grouped: true) == "7497-0112-3365-5213-27694")
        #expect(parseOne("7497-0112-3365-5213-27694") == long)
        #expect(OnboardingPayload.groupManualCode("123") == "123")
    }

    @Test("QR and manual forms of the example device agree on what both carry")
    func crossFormat() throws {
        let qr = try #require(parseOne("MT:Y.K9042C00KA0648G00"))
        let manual = try #require(parseOne("34970112332"))
        #expect(qr.shortDiscriminator == manual.shortDiscriminator)
        #expect(qr.passcode == manual.passcode)
        #expect(manual.discriminator.matches(advertised: 3840))
        #expect(manual.discriminator.matches(advertised: 0xF00 | 0x0AB))
        #expect(!manual.discriminator.matches(advertised: 0xE00))
        #expect(qr.discriminator.matches(advertised: 3840))
        #expect(!qr.discriminator.matches(advertised: 3841))
    }

    @Test("matter.js code with passcode 12345678 parses, and validation rejects it")
    func trivialPasscodeParsesButFailsValidation() throws {
        let payload = try #require(parseOne("0085 260 7537"))
        #expect(payload.passcode == 12_345_678)
        #expect(payload.shortDiscriminator == 0)
        #expect(payload.validate().map(\.code) == [.trivialPasscode])
    }
}
