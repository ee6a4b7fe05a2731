import MatterPayload
import TestGates
import Testing

@Suite("Round trips and robustness (seeded)")
struct RoundTripPropertyTests {
    @Test("random valid fields → QR → parse gives the same payload and the same text")
    func qrRoundTrip() throws {
        var generator = SeededGenerator(seed: 0x0051_2345)
        for _ in 0..<1000 {
            let payload = randomValidPayload(using: &generator)
            #expect(payload.validate().isEmpty)
            let code = try payload.qrCode()
            #expect(code.hasPrefix("MT:"))
            let parsed = try #require(parseOne(code))
            #expect(parsed == payload)
            #expect(try parsed.qrCode() == code)
        }
    }

    @Test("random valid fields → manual code → parse keeps what the manual code carries")
    func manualRoundTrip() throws {
        var generator = SeededGenerator(seed: 0x4D41_4E55)
        for _ in 0..<1000 {
            let payload = randomValidPayload(using: &generator)
            let code = try payload.manualCode()
            #expect(code.count == (payload.commissioningFlow == .standard ? 11 : 21))
            #expect(Verhoeff.isValid(code))
            let parsed = try #require(parseOne(code))
            #expect(parsed.kind == .manual)
            #expect(parsed.passcode == payload.passcode)
            #expect(parsed.discriminator == .short(payload.shortDiscriminator))
            if payload.commissioningFlow == .standard {
                #expect(parsed.vendorID == nil && parsed.productID == nil)
                #expect(parsed.commissioningFlow == .standard)
            } else {
                #expect(parsed.vendorID == payload.vendorID && parsed.productID == payload.productID)
                #expect(parsed.commissioningFlow == .custom)
            }
            #expect(parsed.validate().isEmpty)
            #expect(try parsed.manualCode() == code)
            #expect(parseOne(OnboardingPayload.groupManualCode(code)) == parsed)
        }
    }

    @Test("several random payloads joined with * round-trip")
    func joinedRoundTrip() throws {
        var generator = SeededGenerator(seed: 0x2A2A_2A2A)
        for _ in 0..<200 {
            let payloads = (0..<Int.random(in: 1...5, using: &generator)).map { _ in
                randomValidPayload(using: &generator)
            }
            let code = try OnboardingPayload.qrCode(joining: payloads)
            #expect(try OnboardingPayload.decode(code) == payloads)
        }
    }

    @Test("random strings never crash the parser; whatever parses re-encodes to the same text")
    func randomStrings() throws {
        var generator = SeededGenerator(seed: 0xF0_2201)
        let pieces: [String] = Base38.alphabet.map(String.init) + [
            "MT:", "*", "-", " ", "0", "1", "7", "9", ":", "%", "\n", "é", "\u{1F600}", "\u{0301}", "a", "\r\n", "\0",
        ]
        for round in 0..<5000 {
            var text = round % 3 == 0 ? "MT:" : ""
            for _ in 0..<Int.random(in: 0..<60, using: &generator) {
                text += pieces[Int.random(in: 0..<pieces.count, using: &generator)]
            }
            checkNeverCrashes(text)
        }
    }

    @Test("mutated valid codes never crash the parser")
    func mutatedCodes() throws {
        var generator = SeededGenerator(seed: 0xB17_F11B)
        for _ in 0..<2000 {
            let payload = randomValidPayload(using: &generator)
            let valid = Bool.random(using: &generator) ? try payload.qrCode() : try payload.manualCode()
            var characters = Array(valid)
            for _ in 0..<Int.random(in: 1...3, using: &generator) where !characters.isEmpty {
                let index = Int.random(in: 0..<characters.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: characters.remove(at: index)
                case 1: characters.insert(Base38.alphabet[Int.random(in: 0..<38, using: &generator)], at: index)
                default: characters[index] = Base38.alphabet[Int.random(in: 0..<38, using: &generator)]
                }
            }
            checkNeverCrashes(String(characters))
        }
    }

    @Test("random bytes after MT: never crash; the TLV tail is kept whatever it holds")
    func randomPayloadBytes() throws {
        var generator = SeededGenerator(seed: 0x7C7C_0001)
        for _ in 0..<2000 {
            let data = (0..<Int.random(in: 11..<80, using: &generator)).map { _ in
                UInt8.random(in: 0...255, using: &generator)
            }
            let code = "MT:" + Base38.encode(data)
            let payload = try #require(parseOne(code))
            #expect(payload.extensionData?.rawBytes ?? [] == Array(data.dropFirst(11)))
            #expect(payload.uncheckedQRCode() == code)
            _ = payload.validate()
            _ = payload.redactedDescription
        }
    }

    /// Parses `text`; if it parses, re-encoding each payload reproduces the code without whitespace or separators.
    private func checkNeverCrashes(_ text: String) {
        let payloads: [OnboardingPayload]
        do {
            payloads = try OnboardingPayload.parse(text)
        } catch {
            #expect(!error.message.isEmpty)
            if let position = error.position {
                #expect(position >= 0 && position <= text.count)
            }
            return
        }
        for payload in payloads {
            _ = payload.validate()
            _ = payload.jsonFields()
            _ = payload.redactedDescription
        }
        let trimmed = String(text.drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
        switch payloads.first?.kind {
        case .qr?:
            let joined = "MT:" + payloads.map { String($0.uncheckedQRCode().dropFirst(3)) }.joined(separator: "*")
            #expect(joined == trimmed)
        case .manual?:
            #expect(payloads.count == 1)
            #expect(payloads.first?.uncheckedManualCode() == trimmed.filter { $0 != "-" && $0 != " " })
        case nil:
            Issue.record("parse returned no payloads for \(text.debugDescription)")
        }
    }
}
