import MatterPayload
import Testing

/// A code's characters encode its setup passcode, so a parse error names positions, lengths and kinds of character,
/// never a character or digit of the code. Each parse error is produced from a real code and its message, `found`
/// and `expected` are searched for the passcode and for every run of the code's characters.
@Suite("Parse errors echo nothing of the code")
struct ParseErrorSecrecyTests {
    static let passcode: UInt32 = 69_414_998
    static let payload = OnboardingPayload(
        vendorID: 0xFFF1, productID: 0x8000, discriminator: 2_781, passcode: passcode, commissioningFlow: .custom)

    /// The QR code's base-38 text, after `MT:`.
    static var qrBody: String { String(((try? payload.qrCode()) ?? "").dropFirst(3)) }
    /// The 21-digit manual code, without separators.
    static var manualDigits: String { (try? payload.manualCode()) ?? "" }

    /// One input per parse error the parser has, each made from the code above.
    static var damagedCodes: [(PayloadError.Code, String)] {
        let qr = Array(qrBody)
        let manual = Array(manualDigits)
        func withCheckDigit(_ body: [Character]) -> String {
            (try? Verhoeff.appendingCheckDigit(to: String(body))) ?? ""
        }
        var version = Array(manual.dropLast())
        version[0] = "9"
        var flag = Array(manual.prefix(10))
        flag[0] = "4"
        var chunk = Array(manual.dropLast())
        chunk.replaceSubrange(1..<6, with: Array("99999"))
        var vendor = Array(manual.dropLast())
        vendor.replaceSubrange(10..<15, with: Array("99999"))
        var product = Array(manual.dropLast())
        product.replaceSubrange(15..<20, with: Array("99999"))
        let wrongCheck = String(manual.dropLast()) + String((Int(String(manual.last ?? "0")) ?? 0 + 1) % 10 == 0 ? "1" : "0")
        var overflow = qr
        overflow.replaceSubrange(0..<5, with: Array("....."))
        return [
            (.unrecognizedFormat, "AT:" + qrBody),
            (.unrecognizedFormat, "mt:" + qrBody),
            (.unrecognizedFormat, "x" + manualDigits),
            (.unrecognizedFormat, qrBody),
            (.emptyQRPayload, "MT:" + qrBody + "*"),
            (.invalidBase38Character, "MT:" + qrBody.lowercased()),
            (.invalidBase38Character, "MT:" + qrBody + "!"),
            (.invalidBase38Length, "MT:" + qrBody + "AB"),
            (.base38ChunkOverflow, "MT:" + String(overflow)),
            (.qrPayloadTooShort, "MT:" + String(qr.prefix(10))),
            (.qrCodeTooLong, "MT:" + String(repeating: qrBody + "*", count: 250) + qrBody),
            (.invalidManualCodeCharacter, String(manual.prefix(8)) + "O" + String(manual.dropFirst(9))),
            (.invalidManualCodeLength, String(manual.dropLast())),
            (.checkDigitMismatch, wrongCheck),
            (.unsupportedManualCodeVersion, withCheckDigit(version)),
            (.manualCodeLengthMismatch, withCheckDigit(flag)),
            (.manualChunkOutOfRange, withCheckDigit(chunk)),
            (.vendorIDOutOfRange, withCheckDigit(vendor)),
            (.productIDOutOfRange, withCheckDigit(product)),
        ]
    }

    /// Every run of `length` characters of `text`.
    static func windows(_ text: String, length: Int) -> Set<String> {
        let characters = Array(text)
        guard characters.count >= length else { return [] }
        return Set((0...(characters.count - length)).map { String(characters[$0..<$0 + length]) })
    }

    @Test("the codes used here are valid before they are damaged")
    func codesAreValid() throws {
        #expect(try OnboardingPayload.decode("MT:" + Self.qrBody).first?.passcode == Self.passcode)
        #expect(try OnboardingPayload.decode(Self.manualDigits).first?.passcode == Self.passcode)
    }

    @Test("every parse error is covered here")
    func everyParseErrorIsCovered() {
        let parseCodes: Set<PayloadError.Code> = [
            .unrecognizedFormat, .emptyQRPayload, .invalidBase38Character, .invalidBase38Length, .base38ChunkOverflow,
            .qrPayloadTooShort, .qrCodeTooLong, .invalidManualCodeCharacter, .invalidManualCodeLength, .checkDigitMismatch,
            .unsupportedManualCodeVersion, .manualCodeLengthMismatch, .manualChunkOutOfRange, .vendorIDOutOfRange,
            .productIDOutOfRange,
        ]
        #expect(Set(Self.damagedCodes.map(\.0)) == parseCodes)
    }

    @Test("no parse error shows the passcode or a run of the code's characters")
    func nothingEchoed() throws {
        let originalRuns = Self.windows(Self.qrBody, length: 3).union(Self.windows(Self.manualDigits, length: 4))
        for (code, text) in Self.damagedCodes {
            let error = try #require(parseError(text), "\(code) was expected")
            #expect(error.code == code, "\(text)")
            let body = text.hasPrefix("MT:") ? String(text.dropFirst(3)) : text
            let secretRuns = originalRuns.union(Self.windows(body, length: 3))
            for full in [error.message, error.description] {
                // What every such message may state: the format's own characters and limits.
                let shown = ["'MT:'", "'-'", "'.'", "65535", "8191"].reduce(full) {
                    $0.split(separator: $1, omittingEmptySubsequences: false).joined(separator: "_")
                }
                #expect(!shown.contains(String(Self.passcode)), "\(code): \(shown)")
                let leaked = secretRuns.filter { shown.contains($0) }
                #expect(leaked.isEmpty, "\(code) shows \(leaked.sorted()) of the code: \(shown)")
                #expect(!shown.contains("'"), "\(code) quotes a character of the code: \(shown)")
                #expect(!shown.contains("should be"), "\(code) names an expected digit: \(shown)")
            }
            // `found` and `expected` hold counts and ranges only, never a character or digit group of the code.
            for value in [error.found, error.expected].compactMap({ $0 }) {
                #expect(Int(value) != nil || value.contains("-"), "\(code): \(value)")
                #expect(!body.contains(value) || Int(value) == body.count || value.count <= 2, "\(code) shows \(value)")
            }
            #expect(error.position != nil, "\(code) should name a position")
        }
    }
}

@Suite("retyped codes")
struct RetypedCodeTests {
    @Test("a QR code whose prefix lost its capitals is told to keep them, not that its first letter is no digit")
    func lowercasePrefix() {
        for text in ["mt:Y.K9042C00KA0648G00", "Mt:Y.K9042C00KA0648G00", " mT:Y.K9042C00KA0648G00"] {
            do {
                _ = try OnboardingPayload.decode(text)
                Issue.record("\(text) was taken")
            } catch {
                #expect(error.errors.first?.code == .unrecognizedFormat)
                #expect(error.errors.first?.message.hasPrefix("a QR code starts with \"MT:\" in capitals") == true, "\(error.errors)")
            }
        }
    }

    @Test("a lowercase letter in a QR code is told that QR codes are in capitals, at its place counted from 1")
    func lowercaseLetter() throws {
        let error = try #require(parseError("MT:y.k9042c00ka0648g00"))
        #expect(error.code == .invalidBase38Character)
        #expect(error.position == 3)
        #expect(error.message.hasPrefix("a lowercase letter at character 4 is not in the base-38 alphabet"), "\(error.message)")
        #expect(error.message.contains(": the letters of a QR code are all capitals, so copy the code in capitals"), "\(error.message)")
        // Other characters are not told about capitals.
        let other = try #require(parseError("MT:Y.K9042C00KA0648G0!"))
        #expect(!other.message.contains("capitals"), "\(other.message)")
    }

    /// A valid QR code whose base-38 text (after `MT:`) starts with a digit, which reads as a manual code at first.
    static var digitFirstQRCode: String? {
        (1...400).lazy.compactMap { vendor in
            try? OnboardingPayload(
                vendorID: UInt16(vendor), productID: 1, discriminator: 3_840, passcode: 20_202_021, commissioningFlow: .standard
            ).qrCode()
        }.first { $0.dropFirst(3).first?.isNumber == true }
    }

    @Test("a QR code copied without its MT: is told to add it, and is not quoted (it encodes the passcode)")
    func missingPrefix() throws {
        let digitFirst = try #require(Self.digitFirstQRCode)
        for code in ["MT:Y.K9042C00KA0648G00", digitFirst, "MT:M5L90MP500K64J00000*M5L90U.D010K4J00000"] {
            let body = String(code.dropFirst(3))
            for text in [body, "  " + body + "\n"] {
                do {
                    _ = try OnboardingPayload.decode(text)
                    Issue.record("\(text) was taken")
                } catch {
                    let first = error.errors.first
                    #expect(first?.code == .unrecognizedFormat, "\(text): \(error.errors)")
                    #expect(first?.message == "a QR code starts with 'MT:', and this text is a valid QR code without it; add 'MT:' in front", "\(text)")
                    #expect(first?.position == text.prefix { $0 == " " }.count)
                }
            }
            #expect((try? OnboardingPayload.parseQRCode(body)) == nil)
            do {
                _ = try OnboardingPayload.parseQRCode(body)
            } catch {
                #expect(error.message.hasSuffix("add 'MT:' in front"), "\(error.message)")
            }
        }
        // Text that would be no valid QR code with MT: either is told what it is not, as before.
        for text in ["Y.K9042C00KA0648G0", "HELLO"] {
            let error = try #require(parseError(text))
            #expect(error.code == .unrecognizedFormat)
            #expect(error.message.hasSuffix("is not a digit, dash or space"), "\(error.message)")
        }
        let manualLike = try #require(parseError("3497O112332"))
        #expect(manualLike.code == .invalidManualCodeCharacter)
    }
}
