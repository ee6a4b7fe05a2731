import MatterPayload
import Testing

@Suite("Redaction and JSON fields")
struct RedactionAndJSONTests {
    @Test("descriptions, debug descriptions and dumps never show the passcode")
    func redaction() throws {
        for code in ["MT:Y.K9042C00KA0648G00", "34970112332", "749701123365521327694"] {
            let payload = try #require(parseOne(code))
            #expect(!payload.description.contains("20202021"))
            #expect(!payload.debugDescription.contains("20202021"))
            #expect(!"\(payload)".contains("20202021"))
            #expect(!String(reflecting: payload).contains("20202021"))
            var dumped = ""
            dump(payload, to: &dumped)
            #expect(!dumped.contains("20202021"))
            #expect(dumped.contains(OnboardingPayload.redactionMarker))
            #expect(payload.redactedDescription.contains("passcode: <redacted>"))
            #expect(!payload.jsonText(redactingPasscode: true).contains("20202021"))
        }
    }

    @Test("the redacted description shows what each kind carries")
    func redactedDescription() throws {
        let qr = try #require(parseOne("MT:Y.K9042C00KA0648G00"))
        #expect(qr.redactedDescription == "qr payload(version: 0, vendorID: 0xFFF1, productID: 0x8000, "
            + "commissioningFlow: standard, discoveryCapabilities: ble, discriminator: 3840, passcode: <redacted>)")
        let manual = try #require(parseOne("34970112332"))
        #expect(manual.redactedDescription == "manual payload(version: 0, commissioningFlow: standard, "
            + "shortDiscriminator: 15, passcode: <redacted>)")
    }

    @Test("raw code strings are redacted whole")
    func redactRawCode() {
        #expect(OnboardingPayload.redact(code: "MT:Y.K9042C00KA0648G00") == "MT:<redacted>")
        #expect(OnboardingPayload.redact(code: "3497-011-2332") == "<redacted manual code>")
        #expect(OnboardingPayload.redact(code: "something else") == "<redacted>")
    }

    @Test("QR JSON: every field, in order")
    func qrJSON() throws {
        let payload = try #require(parseOne("MT:Y.K9042C00KA0648G00"))
        let fields = payload.jsonFields()
        #expect(fields.map(\.key) == OnboardingPayload.jsonKeys)
        #expect(fields.map(\.value) == [
            .string("qr"), .integer(0), .integer(0xFFF1), .integer(0x8000), .integer(0), .integer(2), .integer(3840),
            .integer(15), .integer(20_202_021),
        ])
        #expect(payload.jsonText() == #"{"kind":"qr","version":0,"vendorID":65521,"productID":32768,"#
            + #""commissioningFlow":0,"discoveryCapabilities":2,"discriminator":3840,"shortDiscriminator":15,"#
            + #""passcode":20202021}"#)
    }

    @Test("11-digit manual JSON: no IDs, no discovery capabilities, no 12-bit discriminator")
    func shortManualJSON() throws {
        let payload = try #require(parseOne("34970112332"))
        let dictionary = payload.jsonDictionary()
        #expect(Set(dictionary.keys) == ["kind", "version", "commissioningFlow", "shortDiscriminator", "passcode"])
        #expect(dictionary["kind"]?.stringValue == "manual")
        #expect(dictionary["shortDiscriminator"]?.intValue == 15)
        #expect(dictionary["passcode"]?.intValue == 20_202_021)
        #expect(dictionary["commissioningFlow"]?.intValue == 0)
    }

    @Test("21-digit manual JSON carries the IDs and reads as the custom flow")
    func longManualJSON() throws {
        let payload = try #require(parseOne("749701123365521327694"))
        let dictionary = payload.jsonDictionary()
        #expect(dictionary["vendorID"] == .integer(0xFFF1))
        #expect(dictionary["productID"] == .integer(0x8001))
        #expect(dictionary["commissioningFlow"] == .integer(2))
        #expect(dictionary["discriminator"] == nil)
        #expect(dictionary["discoveryCapabilities"] == nil)
    }

    @Test("redacting drops the passcode member")
    func redactedJSON() throws {
        let payload = try #require(parseOne("MT:Y.K9042C00KA0648G00"))
        #expect(payload.jsonDictionary(redactingPasscode: true)["passcode"] == nil)
        #expect(payload.jsonFields(redactingPasscode: true).count == OnboardingPayload.jsonKeys.count - 1)
    }

    @Test("JSON string values are escaped")
    func escaping() {
        #expect(PayloadJSONValue.string("a\"b\\c\n\u{1}").description == #""a\"b\\c\n\u0001""#)
        #expect(PayloadJSONValue.integer(-3).description == "-3")
    }
}
