import MatterPayload
import Testing

@Suite("Parse errors: the failed rule and where")
struct ParseErrorTests {
    @Test("empty or blank input", arguments: ["", "   ", "\n\t"])
    func emptyInput(_ text: String) throws {
        let error = try #require(parseError(text))
        #expect(error.code == .emptyInput)
        #expect(OnboardingPayload.kind(of: text) == nil)
    }

    @Test("neither a QR code nor a manual code", arguments: [
        ("AT:M5L90MP500K64J00000", 0), ("YNJV7VSC00CMVH7SR00", 0), ("mt:Y.K9042C00KA0648G00", 0), ("- -", 0),
        ("  hello", 2),
    ])
    func unrecognizedFormat(_ text: String, _ position: Int) throws {
        let error = try #require(parseError(text))
        #expect(error.code == .unrecognizedFormat)
        #expect(error.position == position)
        #expect(error.message.contains("MT:"))
    }

    @Test("a bad base-38 character is reported at its place in the input, counted from 1 in the message", arguments: [
        ("MT:YNJV7VSC00CMVH7SR0!", 21), ("MT:Y.K9042C00 KA0648G00", 13), ("MT:y.K9042C00KA0648G00", 3),
        ("MT:M5L90MP500K64J00000*M5L90U.D010K4J0000_", 41),
    ])
    func invalidBase38Character(_ text: String, _ position: Int) throws {
        let error = try #require(parseError(text))
        #expect(error.code == .invalidBase38Character)
        #expect(error.position == position)
        #expect(error.message.contains("at character \(position + 1) "), "\(error.message)")
    }

    @Test("the failing payload of a joined code is named")
    func payloadIndexInJoinedCode() throws {
        let error = try #require(parseError("MT:M5L90MP500K64J00000*M5L90U.D010K4J0000_"))
        #expect(error.payloadIndex == 1)
        #expect(error.description.hasPrefix("payload 2: invalidBase38Character"))
    }

    @Test("a base-38 length that encodes no whole bytes", arguments: ["MT:Y.K9042C00KA0648G0", "MT:Y.K9042C00KA0648G00AB"])
    func invalidBase38Length(_ text: String) throws {
        let error = try #require(parseError(text))
        #expect(error.code == .invalidBase38Length)
        #expect(error.position == 3)
    }

    @Test("a chunk whose value overflows its bytes")
    func base38ChunkOverflow() throws {
        let error = try #require(parseError("MT:Y.K9042C00KA0648G00*0000."))
        #expect(error.code == .base38ChunkOverflow)
        #expect(error.position == 23)
        #expect(error.payloadIndex == 1)
    }

    @Test("a payload too short for the fixed 88 bits", arguments: ["MT:00", "MT:0000000000"])
    func qrPayloadTooShort(_ text: String) throws {
        let error = try #require(parseError(text))
        #expect(error.code == .qrPayloadTooShort)
        #expect(error.expected == "11")
    }

    @Test("empty payloads in a QR code", arguments: [("MT:", 3), ("MT:Y.K9042C00KA0648G00*", 23), ("MT:*Y.K9042C00KA0648G00", 3)])
    func emptyQRPayload(_ text: String, _ position: Int) throws {
        let error = try #require(parseError(text))
        #expect(error.code == .emptyQRPayload)
        #expect(error.position == position)
    }

    @Test("a character that is not a digit, dash or space in a manual code", arguments: [
        ("3497011233X", 10), ("3497_011_2332", 4), ("3497.011.2332", 4), ("34970112332\u{1F600}", 11),
    ])
    func invalidManualCodeCharacter(_ text: String, _ position: Int) throws {
        let error = try #require(parseError(text))
        #expect(error.code == .invalidManualCodeCharacter)
        #expect(error.position == position)
    }

    @Test("a digit count other than 11 or 21", arguments: ["3497011233", "349701123320", "1", "7497011233655213276941"])
    func invalidManualCodeLength(_ text: String) throws {
        let error = try #require(parseError(text))
        #expect(error.code == .invalidManualCodeLength)
        #expect(error.found == String(text.count))
    }

    @Test("a wrong check digit names its place, never the digits", arguments: [
        ("34970112333", 10), ("3497-011-2333", 12), ("749701123365521327695", 20), ("34970112323", 10),
    ])
    func checkDigitMismatch(_ text: String, _ position: Int) throws {
        let error = try #require(parseError(text))
        #expect(error.code == .checkDigitMismatch)
        #expect(error.position == position)
        #expect(error.field == .checkDigit)
        #expect(error.expected == nil)
        #expect(error.found == nil)
        #expect(error.message.contains("at character \(position + 1) "), "\(error.message)")
    }

    @Test("a first digit of 8 or 9 marks a newer manual-code version", arguments: ["9497011233", "8497011233"])
    func unsupportedManualCodeVersion(_ body: String) throws {
        let error = try #require(parseError(try Verhoeff.appendingCheckDigit(to: body)))
        #expect(error.code == .unsupportedManualCodeVersion)
        #expect(error.position == 0)
    }

    @Test("the VID/PID flag must match the length", arguments: ["7497011233", "34970112336552132769"])
    func manualCodeLengthMismatch(_ body: String) throws {
        let error = try #require(parseError(try Verhoeff.appendingCheckDigit(to: body)))
        #expect(error.code == .manualCodeLengthMismatch)
        #expect(error.position == 0)
    }

    @Test("digit groups too large for their bits", arguments: [("3999991233", 1), ("3497019999", 6)])
    func manualChunkOutOfRange(_ body: String, _ position: Int) throws {
        let error = try #require(parseError(try Verhoeff.appendingCheckDigit(to: body)))
        #expect(error.code == .manualChunkOutOfRange)
        #expect(error.position == position)
        // These digits hold passcode bits, so the value is not echoed.
        #expect(error.found == nil)
    }

    @Test("vendor and product IDs above 65535 in a 21-digit code")
    func idsOutOfRange() throws {
        let vendor = try #require(parseError(try Verhoeff.appendingCheckDigit(to: "74970112336553632769")))
        #expect(vendor.code == .vendorIDOutOfRange)
        #expect(vendor.position == 10)
        #expect(vendor.field == .vendorID)
        #expect(vendor.found == nil)
        #expect(!vendor.message.contains("65536"))
        let product = try #require(parseError(try Verhoeff.appendingCheckDigit(to: "74970112336552199999")))
        #expect(product.code == .productIDOutOfRange)
        #expect(product.position == 15)
        #expect(product.field == .productID)
    }

    @Test("separators shift reported positions to the original text")
    func positionsWithSeparators() throws {
        let error = try #require(parseError("  3-9-9-9-9-9-1-2-3-3-\(try Verhoeff.checkDigit(for: "3999991233"))"))
        #expect(error.code == .manualChunkOutOfRange)
        #expect(error.position == 4)
    }

    @Test("parseQRCode and parseManualCode refuse the other kind")
    func kindSpecificEntryPoints() throws {
        #expect(throws: PayloadError.self) { try OnboardingPayload.parseQRCode("34970112332") }
        #expect(throws: PayloadError.self) { try OnboardingPayload.parseManualCode("MT:Y.K9042C00KA0648G00") }
        #expect(try OnboardingPayload.parseQRCode("MT:Y.K9042C00KA0648G00").count == 1)
        #expect(try OnboardingPayload.parseManualCode("3497-011-2332").passcode == 20_202_021)
    }

    @Test("every error code has a distinct, stable raw value")
    func codesAreDistinct() {
        let raw = PayloadError.Code.all.map(\.rawValue)
        #expect(Set(raw).count == raw.count)
        #expect(PayloadError.Code.checkDigitMismatch.rawValue == "checkDigitMismatch")
        #expect(PayloadError.Code.invalidBase38Character.rawValue == "invalidBase38Character")
    }
}
