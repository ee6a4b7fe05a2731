import MatterPayload
import Testing

@Suite("Generation")
struct GenerationTests {
    @Test("the issue's example device: QR and both manual forms")
    func exampleDevice() throws {
        let payload = OnboardingPayload(vendorID: 0xFFF1, productID: 0x8000, discriminator: 3840, passcode: 20_202_021)
        #expect(try payload.qrCode() == "MT:Y.K9042C00KA0648G00")
        #expect(try payload.manualCode() == "34970112332")
        #expect(try payload.manualCode(grouped: true) == "3497-011-2332")
        #expect(!payload.needsLongManualCode)

        var custom = payload
        custom.productID = 0x8001
        custom.commissioningFlow = .custom
        #expect(custom.needsLongManualCode)
        #expect(try custom.manualCode() == "749701123365521327694")
    }

    @Test("every non-standard flow gets the 21-digit code", arguments: [CommissioningFlow.userIntent, .custom])
    func longFormForNonStandardFlows(_ flow: CommissioningFlow) throws {
        let payload = OnboardingPayload(
            vendorID: 1, productID: 1, discriminator: 3781, passcode: 12_349_876, commissioningFlow: flow,
            discoveryCapabilities: .onNetwork)
        #expect(try payload.manualCode() == "745492075300001000013")
    }

    @Test("invalid fields are refused with every rule they break")
    func refusesInvalidFields() throws {
        let payload = OnboardingPayload(
            vendorID: 0xFFFF, productID: 1, discriminator: 5000, passcode: 12_345_678)
        let qrError = try #require(throws: PayloadValidationError.self) { try payload.qrCode() }
        #expect(qrError.codes == [.invalidVendorID, .discriminatorOutOfRange, .trivialPasscode])
        let manualError = try #require(throws: PayloadValidationError.self) { try payload.manualCode() }
        #expect(manualError.codes == [.invalidVendorID, .discriminatorOutOfRange, .trivialPasscode])
        #expect(qrError.description.contains("trivialPasscode"))
    }

    @Test("a manual-kind payload cannot become a QR code: it lacks the long discriminator and transports")
    func manualToQR() throws {
        let payload = try #require(parseOne("34970112332"))
        let error = try #require(throws: PayloadValidationError.self) { try payload.qrCode() }
        #expect(error.codes == [.missingDiscoveryCapabilities, .shortDiscriminatorInQRCode])
    }

    @Test("joining payloads reports the index of each invalid one, and refuses an empty list")
    func joining() throws {
        let good = OnboardingPayload(vendorID: 12, productID: 1, discriminator: 128, passcode: 2048)
        var bad = good
        bad.passcode = 0
        let error = try #require(throws: PayloadValidationError.self) {
            try OnboardingPayload.qrCode(joining: [good, bad, good, bad])
        }
        #expect(error.errors.map(\.payloadIndex) == [1, 3])
        let empty = try #require(throws: PayloadValidationError.self) { try OnboardingPayload.qrCode(joining: []) }
        #expect(empty.codes == [.emptyQRPayload])
    }

    @Test("unchecked generation reproduces invalid reference codes exactly", arguments: [
        "MT:M5L90MP500W-GT68D20", "01120767810", "00852607537",
    ])
    func uncheckedRoundTrip(_ code: String) throws {
        let payload = try #require(parseOne(code))
        #expect(!payload.isValid)
        switch payload.kind {
        case .qr: #expect(payload.uncheckedQRCode() == code)
        case .manual: #expect(payload.uncheckedManualCode() == code)
        }
    }

    @Test("the command-line names of flows and discovery capabilities")
    func names() throws {
        #expect(CommissioningFlow(name: "user-intent") == .userIntent)
        #expect(CommissioningFlow(name: "Standard") == .standard)
        #expect(CommissioningFlow(name: "custom")?.rawValue == 2)
        #expect(CommissioningFlow(name: "other") == nil)
        #expect(CommissioningFlow(rawValue: 3).name == "reserved(3)")
        #expect(DiscoveryCapabilities(list: "ble,softap,on-network") == [.ble, .softAP, .onNetwork])
        #expect(DiscoveryCapabilities(list: " ble , thread ") == [.ble, .thread])
        #expect(DiscoveryCapabilities(list: "\tble,\non-network ") == [.ble, .onNetwork])
        // Spaces around a name, not within it.
        #expect(DiscoveryCapabilities(list: "b le") == nil)
        #expect(DiscoveryCapabilities(list: "ble,on- network") == nil)
        #expect(DiscoveryCapabilities(list: "ble,carrier-pigeon") == nil)
        #expect(DiscoveryCapabilities(list: "ble,") == nil)
        #expect(DiscoveryCapabilities(rawValue: 0x47).names == ["softap", "ble", "on-network", "bit6"])
        #expect(DiscoveryCapabilities(rawValue: 0).description == "none")
    }
}
