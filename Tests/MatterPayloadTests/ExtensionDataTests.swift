import MatterPayload
import TestGates
import Testing

@Suite("Optional TLV data")
struct ExtensionDataTests {
    @Test("the specification example: serial number \"1234567890\" as text")
    func specSerialText() {
        let raw = bytes(hex: "152C000A3132333435363738393018")
        let data = PayloadExtensionData(rawBytes: raw)
        #expect(data.isWellFormed)
        #expect(data.serialNumber == .text("1234567890"))
        #expect(data.elements == [TLVElement(tag: .context(0), value: .utf8String("1234567890"))])
        #expect(PayloadExtensionData(serialNumber: .text("1234567890")).rawBytes == raw)
    }

    @Test("serial number as a number encodes in four bytes (matter.js vector)")
    func serialNumber() {
        let data = PayloadExtensionData(serialNumber: .number(1_234_567_890))
        #expect(data.rawBytes == bytes(hex: "152600D202964918"))
        #expect(PayloadExtensionData(rawBytes: data.rawBytes).serialNumber == .number(1_234_567_890))
    }

    @Test("vendor field 0x81 before the serial number (matter.js vector from the specification)")
    func vendorField() {
        let raw = bytes(hex: "152C810656656E646F722C000A3132333435363738393018")
        let data = PayloadExtensionData(rawBytes: raw)
        #expect(data.isWellFormed)
        #expect(data.vendorElements == [TLVElement(tag: .context(0x81), value: .utf8String("Vendor"))])
        #expect(data.serialNumber == .text("1234567890"))
        #expect(PayloadExtensionData(elements: data.elements).rawBytes == raw)
    }

    @Test("all common fields are decoded")
    func commonFields() {
        let salt = Array(repeating: UInt8(0xAB), count: 32)
        let data = PayloadExtensionData(
            serialNumber: .text("SN-1"), pbkdfIterations: 10_000, pbkdfSalt: salt, numberOfDevices: 3,
            commissioningTimeout: 900,
            vendorElements: [TLVElement(tag: .context(0x90), value: .signedInteger(-5))])
        let decoded = PayloadExtensionData(rawBytes: data.rawBytes)
        #expect(decoded.isWellFormed)
        #expect(decoded.serialNumber == .text("SN-1"))
        #expect(decoded.pbkdfIterations == 10_000)
        #expect(decoded.pbkdfSalt == salt)
        #expect(decoded.numberOfDevices == 3)
        #expect(decoded.commissioningTimeout == 900)
        #expect(decoded.member(0x90) == .signedInteger(-5))
        #expect(decoded == data)
    }

    @Test("known tags with unexpected types are kept but not interpreted")
    func wrongTypes() {
        let data = PayloadExtensionData(elements: [
            TLVElement(tag: .context(0), value: .boolean(true)),
            TLVElement(tag: .context(1), value: .utf8String("many")),
            TLVElement(tag: .context(3), value: .unsignedInteger(300)),
        ])
        #expect(data.isWellFormed)
        #expect(data.serialNumber == nil)
        #expect(data.pbkdfIterations == nil)
        #expect(data.numberOfDevices == nil)
        #expect(data.elements.count == 3)
    }

    @Test("every value type and tag form survives encode → decode")
    func allTypes() {
        let nested: [TLVElement] = [
            TLVElement(tag: .anonymous, value: .unsignedInteger(1)),
            TLVElement(tag: .anonymous, value: .null),
        ]
        let members: [TLVElement] = [
            TLVElement(tag: .context(0x80), value: .signedInteger(Int64.min)),
            TLVElement(tag: .context(0x81), value: .signedInteger(-129)),
            TLVElement(tag: .context(0x82), value: .unsignedInteger(UInt64.max)),
            TLVElement(tag: .context(0x83), value: .unsignedInteger(70_000)),
            TLVElement(tag: .context(0x84), value: .boolean(false)),
            TLVElement(tag: .context(0x85), value: .float(1.5)),
            TLVElement(tag: .context(0x86), value: .double(-2.25)),
            TLVElement(tag: .context(0x87), value: .octetString(Array(repeating: 7, count: 300))),
            TLVElement(tag: .context(0x88), value: .array(nested)),
            TLVElement(tag: .context(0x89), value: .list(nested)),
            TLVElement(tag: .context(0x8A), value: .structure([TLVElement(tag: .context(1), value: .null)])),
            TLVElement(tag: .commonProfile(5), value: .null),
            TLVElement(tag: .commonProfile(0x1_0000), value: .null),
            TLVElement(tag: .implicitProfile(7), value: .null),
            TLVElement(tag: .implicitProfile(0x12_3456), value: .null),
            TLVElement(tag: .fullyQualified(vendorID: 0xFFF1, profile: 2, tag: 3), value: .null),
            TLVElement(tag: .fullyQualified(vendorID: 0xFFF1, profile: 2, tag: 0x10_0000), value: .utf8String("é")),
        ]
        let data = PayloadExtensionData(elements: members)
        let decoded = PayloadExtensionData(rawBytes: data.rawBytes)
        #expect(decoded.isWellFormed)
        #expect(decoded.elements == members)
    }

    @Test("malformed data is kept and decoded as far as it goes", arguments: [
        ("010203", 0, "anonymous structure"),
        ("", 0, "no bytes"),
        ("152C000A31323318", 0, "runs past the end"),
        ("152C0001311F", 1, "unknown element type"),
        ("152C00013118FF", 1, "follow the structure"),
        ("152C000131", 1, "not closed"),
        ("152C0002FFFE18", 0, "UTF-8"),
        ("1518", 0, nil),
    ] as [(String, Int, String?)])
    func malformed(_ hex: String, _ decodedCount: Int, _ issue: String?) {
        let raw = bytes(hex: hex)
        let data = PayloadExtensionData(rawBytes: raw)
        #expect(data.rawBytes == raw)
        #expect(data.elements.count == decodedCount)
        if let issue {
            #expect(data.decodingIssue?.contains(issue) == true, "\(data.decodingIssue ?? "nil")")
        } else {
            #expect(data.isWellFormed)
        }
    }

    @Test("deeply nested containers are refused without trapping")
    func deepNesting() {
        let opening: [UInt8] = [0x36, 0x01]  // an array with context tag 1
        let raw: [UInt8] = [0x15] + (0..<5000).flatMap { _ in opening } + [0x18]
        let data = PayloadExtensionData(rawBytes: raw)
        #expect(data.decodingIssue?.contains("nested too deeply") == true)
    }

    @Test("random bytes never trap the TLV decoder (seeded)")
    func randomBytes() {
        var generator = SeededGenerator(seed: 0x7157_7157)
        for _ in 0..<3000 {
            var raw = (0..<Int.random(in: 0..<48, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            if Bool.random(using: &generator) { raw.insert(0x15, at: 0) }
            let data = PayloadExtensionData(rawBytes: raw)
            #expect(data.rawBytes == raw)
            _ = data.description
            _ = data.serialNumber
        }
    }

    @Test("random well-formed data round-trips through the encoder")
    func randomRoundTrip() {
        var generator = SeededGenerator(seed: 0xDA7A_0001)
        for _ in 0..<300 {
            let data = randomExtensionData(using: &generator)
            #expect(data.isWellFormed)
            #expect(PayloadExtensionData(rawBytes: data.rawBytes) == data)
            #expect(PayloadExtensionData(elements: data.elements).rawBytes == data.rawBytes)
        }
    }
}

extension ExtensionDataTests {
    @Test("optional data that is not one TLV structure decodes with a malformedExtensionData warning, never the passcode", arguments: ["FF", "1524000A", "152C000A313218FF"])
    func malformedDataWarns(hex: String) throws {
        var fields = OnboardingPayload(vendorID: 0xFFF1, productID: 0x8000, discriminator: 3840, passcode: 20_202_021)
        fields.extensionData = PayloadExtensionData(rawBytes: bytes(hex: hex))
        let code = try fields.qrCode()
        let decoded = try #require(try OnboardingPayload.decode(code).first)
        let warnings = decoded.warnings()
        #expect(warnings.map(\.code) == [.malformedExtensionData], "\(warnings)")
        #expect(warnings.allSatisfy { !$0.message.contains("20202021") })
        // Well-formed data warns of nothing.
        fields.extensionData = PayloadExtensionData(serialNumber: .text("SN-1"))
        #expect(try OnboardingPayload.decode(try fields.qrCode()).first?.warnings() == [])
    }

    @Test("common fields outside the specification's ranges warn, naming each; values inside do not")
    func outOfRangeFieldsWarn() throws {
        var fields = OnboardingPayload(vendorID: 0xFFF1, productID: 0x8000, discriminator: 3840, passcode: 20_202_021)
        fields.extensionData = PayloadExtensionData(pbkdfIterations: 1, pbkdfSalt: [1], numberOfDevices: 0)
        let decoded = try #require(try OnboardingPayload.decode(try fields.qrCode()).first)
        let warning = try #require(decoded.warnings().first { $0.code == .extensionDataOutOfRange })
        #expect(warning.message.contains("PBKDF iterations 1, outside 1000...100000"))
        #expect(warning.message.contains("a PBKDF salt of 1 bytes, not 16...32"))
        #expect(warning.message.contains("0 devices, not 1...255"))
        fields.extensionData = PayloadExtensionData(pbkdfIterations: 1_000, pbkdfSalt: Array(repeating: 7, count: 16), numberOfDevices: 1)
        #expect(try OnboardingPayload.decode(try fields.qrCode()).first?.warnings() == [])
    }
}
