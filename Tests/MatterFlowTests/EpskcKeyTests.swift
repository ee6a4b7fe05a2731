import MatterFlow
import MatterPayload
import Synchronization
import Testing

/// ePSKc keys: nine digits, a Verhoeff check digit, digits drawn without modulo bias, never printed.
@Suite struct EpskcKeyTests {
    /// A random source that returns the words it is given, in order, and counts how many were taken.
    final class ScriptedRandom: RandomSource {
        private let words: Mutex<[UInt64]>
        private let taken = Mutex(0)

        init(_ words: [UInt64]) { self.words = Mutex(words) }

        func next() -> UInt64 {
            taken.withLock { $0 += 1 }
            return words.withLock { words in
                precondition(!words.isEmpty, "the scripted random source ran out of words")
                return words.removeFirst()
            }
        }

        var wordsTaken: Int { taken.withLock { $0 } }
    }

    @Test func aKeyIsNineDigitsEndingInItsVerhoeffCheckDigit() {
        let random = SeededRandomSource(seed: 7)
        for _ in 0..<500 {
            let key = EpskcKey.generate(using: random)
            #expect(key.revealedDigits.count == 9)
            #expect(key.revealedDigits.allSatisfy { $0.isASCII && $0.isNumber })
            #expect(Verhoeff.isValid(key.revealedDigits))
        }
    }

    @Test func theSameSeedGivesTheSameKeys() {
        let first = (0..<5).map { _ in EpskcKey.generate(using: SeededRandomSource(seed: 99)).revealedDigits }
        #expect(Set(first).count == 1)
        let random = SeededRandomSource(seed: 99)
        let sequence = (0..<5).map { _ in EpskcKey.generate(using: random).revealedDigits }
        #expect(Set(sequence).count == 5)
    }

    @Test("words in the biased top of the range are rejected, not reduced modulo 10")
    func rejectionSampling() throws {
        // uniform(below: 10) accepts words up to UInt64.max - 6 (the largest multiple of 10, minus one); the six
        // words above it would make digits 0...5 more likely than 6...9 if reduced modulo 10.
        let accepted: UInt64 = .max - 6
        #expect(accepted % 10 == 9)
        let random = ScriptedRandom([.max, .max - 5, 13, accepted, 20, 31, .max - 1, 42, 54, 65, 76])
        let key = EpskcKey.generate(using: random)
        #expect(key.revealedDigits.prefix(8) == "39012456")
        #expect(key.revealedDigits.last == (try Verhoeff.checkDigit(for: "39012456")))
        #expect(random.wordsTaken == 11)
    }

    @Test("the digits are uniform: no digit is favoured over many keys")
    func digitsAreUniform() {
        let random = SeededRandomSource(seed: 2024)
        var counts = [Int](repeating: 0, count: 10)
        let keys = 20_000
        for _ in 0..<keys {
            for digit in EpskcKey.generate(using: random).revealedDigits.prefix(8) {
                counts[Int(String(digit)) ?? 0] += 1
            }
        }
        let expected = Double(keys * 8) / 10
        // 16000 per digit with a standard deviation of 120: a 5 % band is more than six deviations wide.
        for (digit, count) in counts.enumerated() {
            #expect(abs(Double(count) - expected) < expected * 0.05, "digit \(digit) drawn \(count) times")
        }
    }

    @Test("keys typed by a person are checked", arguments: [
        ("307318421", true), ("487300178", true), ("123455672", true), ("111111111", true), ("999999994", true),
        ("307318420", false), ("123456789", false), ("111111112", false), ("12345678", false), ("1234567890", false),
        ("30731842a", false), (" 30731842", false), ("３07318421", false),
    ])
    func validation(_ text: String, _ valid: Bool) {
        do {
            let key = try EpskcKey(validating: text)
            #expect(valid, "\(text) should be refused")
            #expect(key.revealedDigits == text)
        } catch {
            #expect(!valid, "\(text) should be accepted: \(error)")
            #expect(error.cause == .invalidArgumentValue)
            #expect(!error.message.contains(text))
        }
    }

    @Test func aKeyNeverPrintsItself() throws {
        let key = try EpskcKey(validating: "307318421")
        #expect("\(key)" == "<redacted>")
        #expect(String(reflecting: key) == "EpskcKey(<redacted>)")
        let activation = EpskcActivation(status: "success", epskc: key.revealedDigits, validDurationSeconds: 120)
        #expect(!"\(activation)".contains("307318421"))
        var dumped = ""
        dump(activation, to: &dumped)
        #expect(!dumped.contains("307318421") && dumped.contains("<redacted>"), "\(dumped)")
        #expect(!String(reflecting: activation).contains("307318421"))
        #expect(key.matches("307318421"))
        #expect(!key.matches("307318420"))
        #expect(!key.matches("30731842"))
    }
}
