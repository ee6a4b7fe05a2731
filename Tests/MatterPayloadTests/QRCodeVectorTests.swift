import MatterPayload
import Testing

/// A QR code from a public test suite with the fields it is known to carry.
struct QRVector: Sendable, CustomTestStringConvertible {
    var code: String
    var vendorID: UInt16
    var productID: UInt16
    var flow: CommissioningFlow
    var capabilities: DiscoveryCapabilities
    var discriminator: UInt16
    var passcode: UInt32
    /// The equivalent manual code, when the source gives one.
    var manualCode: String?

    var testDescription: String { code }

    var payload: OnboardingPayload {
        OnboardingPayload(
            vendorID: vendorID, productID: productID, discriminator: discriminator, passcode: passcode,
            commissioningFlow: flow, discoveryCapabilities: capabilities)
    }
}

@Suite("QR code vectors")
struct QRCodeVectorTests {
    static let vectors: [QRVector] = [
        // The example-app default device (issue 3 "done when").
        QRVector(
            code: "MT:Y.K9042C00KA0648G00", vendorID: 0xFFF1, productID: 0x8000, flow: .standard,
            capabilities: .ble, discriminator: 3840, passcode: 20_202_021, manualCode: "34970112332"),
        // connectedhomeip TestHelpers.h kDefaultPayloadQRCode / TestSetupPayload.cpp numeric equivalent.
        QRVector(
            code: "MT:M5L90MP500K64J00000", vendorID: 12, productID: 1, flow: .standard, capabilities: .softAP,
            discriminator: 128, passcode: 2048, manualCode: "00204800002"),
        // matter.js PairingCodeSchemaTest / rs-matter.
        QRVector(
            code: "MT:YNJV7VSC00CMVH7SR00", vendorID: 9050, productID: 65279, flow: .standard, capabilities: .ble,
            discriminator: 2976, passcode: 34_567_890, manualCode: "26318621095"),
        // connectedhomeip python tests (default rendezvous 4 = on-network).
        QRVector(
            code: "MT:00000CQM00KA0648G00", vendorID: 0, productID: 0, flow: .standard, capabilities: .onNetwork,
            discriminator: 3840, passcode: 20_202_021, manualCode: "34970112332"),
        QRVector(
            code: "MT:-8VJ0OMV172PX813210", vendorID: 0x1317, productID: 0x0002, flow: .standard, capabilities: .ble,
            discriminator: 3431, passcode: 49_910_688, manualCode: "32140830464"),
        QRVector(
            code: "MT:0A.T0RTM00Y0OJ0.510", vendorID: 0x2345, productID: 0x1023, flow: .standard,
            capabilities: .onNetwork, discriminator: 80, passcode: 54_757_432, manualCode: "00210433428"),
        QRVector(
            code: "MT:KSNK4SIC13-JPR4UY00", vendorID: 0x1123, productID: 0x0012, flow: .custom,
            capabilities: .onNetwork, discriminator: 3091, passcode: 43_338_551, manualCode: "702871264504387000187"),
        QRVector(
            code: "MT:A3L90ARR15G6N57Y900", vendorID: 1, productID: 1, flow: .userIntent, capabilities: .onNetwork,
            discriminator: 3781, passcode: 12_349_876, manualCode: "745492075300001000013"),
        QRVector(
            code: "MT:KSNK4M5113-JPR4UY00", vendorID: 0x1123, productID: 0x0012, flow: .custom, capabilities: .ble,
            discriminator: 3091, passcode: 43_338_551, manualCode: "702871264504387000187"),
        QRVector(
            code: "MT:EPX0482F26DAVY09R10", vendorID: 0x45, productID: 0x10, flow: .userIntent,
            capabilities: [.softAP, .ble, .onNetwork], discriminator: 174, passcode: 81_235_604,
            manualCode: "403732495800069000166"),
        QRVector(
            code: "MT:MZWA6G6026O2XP0II00", vendorID: 0xFFF3, productID: 0x8098, flow: .custom,
            capabilities: .onNetwork, discriminator: 2310, passcode: 23_005_908, manualCode: "619156140465523329207"),
    ]

    @Test("decodes the fields of the reference QR codes", arguments: vectors)
    func decodesFields(_ vector: QRVector) throws {
        let payloads = try OnboardingPayload.parse(vector.code)
        #expect(payloads.count == 1)
        let payload = try #require(payloads.first)
        #expect(payload.kind == .qr)
        #expect(payload.version == 0)
        #expect(payload.vendorID == vector.vendorID)
        #expect(payload.productID == vector.productID)
        #expect(payload.commissioningFlow == vector.flow)
        #expect(payload.discoveryCapabilities == vector.capabilities)
        #expect(payload.discriminator == .long(vector.discriminator))
        #expect(payload.shortDiscriminator == UInt8(vector.discriminator >> 8))
        #expect(payload.passcode == vector.passcode)
        #expect(payload.padding == 0)
        #expect(payload.extensionData == nil)
        #expect(payload.validate().isEmpty)
        #expect(payload == vector.payload)
    }

    @Test("generates the reference QR and manual codes from fields", arguments: vectors)
    func generatesCodes(_ vector: QRVector) throws {
        #expect(try vector.payload.qrCode() == vector.code)
        if let manual = vector.manualCode {
            #expect(try vector.payload.manualCode() == manual)
        }
    }

    @Test("codes without asserted fields still parse, validate and re-encode exactly", arguments: [
        "MT:W0GU2OTB00KA0648G00",  // Kotlin QRCodeTest.kt
        "MT:6FCJ142C00KA0648G00",  // matter.js QrCodeSchemaTest
    ])
    func otherValidCodes(_ code: String) throws {
        let payload = try #require(parseOne(code))
        #expect(payload.validate().isEmpty)
        #expect(try payload.qrCode() == code)
    }

    @Test("several payloads joined with * decode in order (connectedhomeip kConcatenatedQRCode)")
    func concatenated() throws {
        let code = "MT:M5L90MP500K64J00000*M5L90U.D010K4J00000*M5L900CM02IX4J00000*M5L908OU03-85J00000"
        let payloads = try OnboardingPayload.decode(code)
        #expect(payloads.count == 4)
        for (index, payload) in payloads.enumerated() {
            #expect(payload.vendorID == 12)
            #expect(payload.productID == 1)
            #expect(payload.discoveryCapabilities == .softAP)
            #expect(payload.discriminator == .long(128 + UInt16(index)))
            #expect(payload.passcode == 2048 + UInt32(index))
        }
        #expect(try OnboardingPayload.qrCode(joining: payloads) == code)
    }

    @Test("matter.js multi-payload code: the second part carries raw TLV bytes 010203")
    func multiWithTLV() throws {
        let plain = "MT:YNJV7VSC00CMVH7SR00"
        let withTLV = "MT:YNJV7VSC00CMVH7E4810AK00"
        let tlvPayload = try #require(parseOne(withTLV))
        let extensionData = try #require(tlvPayload.extensionData)
        #expect(extensionData.rawBytes == [1, 2, 3])
        #expect(!extensionData.isWellFormed)
        #expect(tlvPayload.validate().isEmpty)
        #expect(try tlvPayload.qrCode() == withTLV)

        let multi = plain + "*" + withTLV.dropFirst(3)
        let payloads = try OnboardingPayload.parse(multi)
        #expect(payloads.count == 2)
        #expect(payloads[0].extensionData == nil)
        #expect(payloads[1].extensionData?.rawBytes == [1, 2, 3])
        #expect(payloads[0].passcode == 34_567_890 && payloads[1].passcode == 34_567_890)
        #expect(try OnboardingPayload.qrCode(joining: payloads) == multi)
    }

    @Test("rs-matter code with a serial number in the TLV data")
    func serialNumberTLV() throws {
        let code = "MT:-24J0AFN00KA064IJ3P0IXZB0DK5N1K8SQ1RYCU1-A40"
        let payload = try #require(parseOne(code))
        #expect(payload.vendorID == 65521)
        #expect(payload.productID == 32769)
        #expect(payload.discoveryCapabilities == .onNetwork)
        #expect(payload.discriminator == .long(3840))
        #expect(payload.passcode == 20_202_021)
        let extensionData = try #require(payload.extensionData)
        #expect(extensionData.isWellFormed)
        #expect(extensionData.serialNumber == .text("1234567890"))
        #expect(extensionData.rawBytes == bytes(hex: "152C000A3132333435363738393018"))

        let generated = OnboardingPayload(
            vendorID: 65521, productID: 32769, discriminator: 3840, passcode: 20_202_021,
            discoveryCapabilities: .onNetwork,
            extensionData: PayloadExtensionData(serialNumber: .text("1234567890")))
        #expect(try generated.qrCode() == code)
    }

    @Test("rs-matter code with serial number and two vendor fields")
    func vendorFieldsTLV() throws {
        let code = "MT:-24J0AFN00KA064IJ3P0IXZB0DK5N1K8SQ1RYCU1UXH34YY0V3KY.O3DKN440F710Q940"
        let payload = try #require(parseOne(code))
        let extensionData = try #require(payload.extensionData)
        #expect(extensionData.isWellFormed)
        #expect(extensionData.serialNumber == .text("1234567890"))
        let vendor = extensionData.vendorElements
        #expect(vendor.count == 2)
        #expect(extensionData.member(0x82) == .utf8String("myData"))
        #expect(extensionData.member(0x83)?.unsignedValue == 65550)
        #expect(payload.validate().isEmpty)
        #expect(try payload.qrCode() == code)
    }

    @Test("whitespace around a QR code is ignored; positions still count from the original text")
    func surroundingWhitespace() throws {
        let payload = try #require(parseOne("  MT:Y.K9042C00KA0648G00\n"))
        #expect(payload.passcode == 20_202_021)
        let error = try #require(parseError("  MT:Y.K9042C00KA0648G0!\n"))
        #expect(error.code == .invalidBase38Character)
        #expect(error.position == 23)
    }
}
