@testable import MatterFlow
import MatterFlowJSON
import TestGates
import Testing

/// Redaction searches text byte by byte, and character by character where a secret may be spelled with other bytes;
/// every byte of every occurrence is hidden: adjacent and overlapping ones, at either end, of one run's secrets or
/// several runs', in ASCII and non-ASCII text alike.
@Suite("redaction search")
struct RedactionSearchTests {
    static let secret = "MT:Y.K9042C00KA0648G00"

    @Test("every occurrence is replaced, whatever surrounds it")
    func occurrences() {
        let secrets = SecretValues()
        secrets.add(.string(Self.secret))
        let marker = RunOptions.redacted
        let cases: [(String, String)] = [
            ("\(Self.secret) at the start", "\(marker) at the start"),
            ("at the end \(Self.secret)", "at the end \(marker)"),
            ("twice \(Self.secret)\(Self.secret)!", "twice \(marker)\(marker)!"),
            ("almost MT:Y.K9042C00KA0648G0 only", "almost MT:Y.K9042C00KA0648G0 only"),
            ("CR LF \r\n\(Self.secret)\r\n", "CR LF \r\n\(marker)\r\n"),
            ("non-ASCII é \(Self.secret) ü", "non-ASCII é \(marker) ü"),
            ("JSON {\"p\":\"MT:Y.K9042C00KA0648G00\"}", "JSON {\"p\":\"\(marker)\"}"),
        ]
        for (text, expected) in cases {
            #expect(secrets.redacting(text) == expected, "\(text)")
        }
    }

    @Test("overlapping occurrences are hidden whole: no byte of any of them is left, in ASCII and non-ASCII text alike")
    func overlapping() {
        let secrets = SecretValues()
        secrets.add("abab")
        let r = RunOptions.redacted
        #expect(secrets.redacting("xababab") == "x\(r)")
        #expect(secrets.redacting("xabababab!") == "x\(r)!")
        #expect(secrets.redacting("ababéabab") == "\(r)é\(r)")
        #expect(secrets.redacting("abab abab") == "\(r) \(r)", "occurrences apart stay apart")
    }

    @Test("two secrets of a run that overlap in text (a key running into a passcode) leave no part of either, whichever is longer")
    func overlappingSecretsOfOneRun() {
        let secrets = SecretValues()
        secrets.add("abcdef12")
        secrets.add("12345678")
        let r = RunOptions.redacted
        #expect(secrets.redacting("key abcdef12345678 end") == "key \(r) end")
        #expect(secrets.redacting("key 12345678abcdef12 end") == "key \(r)\(r) end", "side by side, not overlapping")
        #expect(secrets.redacting("key 12345678abcdef123 end") == "key \(r)\(r)3 end")
        #expect(secrets.redacting("é abcdef12345678 é") == "é \(r) é")
    }

    @Test("a secret spelled with other bytes (a canonically equal character) is found in the text as given, before other secrets are replaced: no part of it is left")
    func otherSpellingsBeforeReplacement() {
        let r = RunOptions.redacted
        // A secret holding the Kelvin sign, in ASCII text that spells it K.
        let kelvin = SecretValues()
        kelvin.add("\u{212A}9042-code")
        #expect(kelvin.redacting("code K9042-code") == "code \(r)")
        // A secret with a composed ü, in text with a decomposed one, holding another secret of the run byte for byte.
        let composed = SecretValues()
        composed.add("K\u{FC}hlschrank20202021")
        composed.add("20202021")
        #expect(composed.redacting("psk Ku\u{308}hlschrank20202021 end") == "psk \(r) end")
        // An ASCII secret holding K, in text spelling it with the Kelvin sign, overlapping another secret.
        let lookalike = SecretValues()
        lookalike.add("12345K678")
        lookalike.add("2345")
        #expect(lookalike.redacting("pin 12345\u{212A}678 é") == "pin \(r) é")
        // Forms that begin outside ASCII are found byte for byte too, overlapping ASCII ones.
        let accented = SecretValues()
        accented.add("é-abcd12")
        accented.add("cd123456")
        #expect(accented.redacting("é-abcd123456") == r)
        #expect(accented.redacting("x é-abcd123456 y") == "x \(r) y")
    }

    @Test("what shared secrets hide is every byte of every occurrence of any run's secret, overlapping ones merged: the same as a search of each secret everywhere, on random text")
    func sharedRedactionMatchesThePlainDefinition() {
        var random = SeededGenerator(seed: 47)
        let alphabet = Array("abx")
        func word(_ length: Int) -> String { String((0..<length).map { _ in alphabet.randomElement(using: &random)! }) }
        let marker = RunOptions.redacted
        for _ in 0..<2_000 {
            let shared = SharedSecrets()
            var secrets: [String] = []
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let run = SecretValues()
                for _ in 0..<Int.random(in: 1...2, using: &random) {
                    let secret = word(Int.random(in: 4...7, using: &random))
                    run.add(.string(secret))
                    secrets.append(secret)
                }
                shared.add(run)
            }
            // Text made of secrets, their tails and stray letters, so that occurrences often overlap and abut.
            var text = ""
            for _ in 0..<Int.random(in: 0...8, using: &random) {
                let secret = secrets.randomElement(using: &random)!
                switch Int.random(in: 0...2, using: &random) {
                case 0: text += secret
                case 1: text += String(secret.dropFirst(Int.random(in: 1...3, using: &random)))
                default: text += word(Int.random(in: 1...2, using: &random))
                }
            }
            // The definition: mark every byte inside an occurrence of a secret, then replace each stretch of
            // occurrences that overlap by one marker.
            let bytes = Array(text.utf8)
            var ends = [Int](repeating: 0, count: bytes.count)
            for secret in secrets {
                let needle = Array(secret.utf8)
                for start in bytes.indices where start + needle.count <= bytes.count && Array(bytes[start..<(start + needle.count)]) == needle {
                    ends[start] = max(ends[start], start + needle.count)
                }
            }
            var expected = ""
            var index = 0
            while index < bytes.count {
                guard ends[index] > 0 else {
                    expected.append(Character(Unicode.Scalar(bytes[index])))
                    index += 1
                    continue
                }
                var reach = ends[index]
                var next = index + 1
                while next < reach {
                    reach = max(reach, ends[next])
                    next += 1
                }
                expected += marker
                index = reach
            }
            if secrets.contains(text) { expected = marker }
            #expect(shared.redacting(text) == expected, "\(text) with \(secrets)")
        }
    }

    @Test("shared secrets find other spellings in a worker's long lines too: the quick check lets through every line a secret could be spelled in with other bytes")
    func sharedSecretsFindOtherSpellings() {
        let r = RunOptions.redacted
        let shared = SharedSecrets()
        let kelvin = SecretValues()
        kelvin.add("\u{212A}9042-code-xyz")
        let plain = SecretValues()
        plain.add("Ku\u{308}hlschrank-2468")
        let ascii = SecretValues()
        ascii.add("Key-77aa-K")
        for run in [kelvin, plain, ascii] { shared.add(run) }
        // An ASCII line spelling the Kelvin sign K: no quad of the secret stands in it.
        #expect(shared.redacting("hub: pairing with K9042-code-xyz now, attempt 2") == "hub: pairing with \(r) now, attempt 2")
        // A line spelling the decomposed ü composed.
        #expect(shared.redacting("hub: network K\u{FC}hlschrank-2468 joined, all is well") == "hub: network \(r) joined, all is well")
        // A line spelling an ASCII secret's K as a Kelvin sign.
        #expect(shared.redacting("hub: using \u{212A}ey-77aa-\u{212A} for the session, attempt 3") == "hub: using \(r) for the session, attempt 3")
        // Lines with nothing secret are left as they are.
        #expect(shared.redacting("hub: commissioning node 17 on fabric 1 done in 12 ms") == "hub: commissioning node 17 on fabric 1 done in 12 ms")
    }

    @Test("shared secrets hide every run's secrets in one pass: a short secret of one run inside another run's longer one leaves no digit of the longer one, whichever run came first")
    func sharedSecretsAcrossRuns() {
        let r = RunOptions.redacted
        for shortFirst in [true, false] {
            let shared = SharedSecrets()
            let short = SecretValues()
            short.add("4567")
            let long = SecretValues()
            long.add("12345678")
            for secrets in shortFirst ? [short, long] : [long, short] { shared.add(secrets) }
            #expect(shared.redacting("pin 12345678 and 4567 sent to the device") == "pin \(r) and \(r) sent to the device")
            #expect(shared.redacting("dataset 0012345678990 from the border router") == "dataset 00\(r)990 from the border router")
        }
    }

    @Test("the quick check that text holds no secret never passes over one: every spelling of a pairing code, anywhere in random text, is replaced")
    func quickCheckMissesNothing() {
        let secrets = SecretValues()
        secrets.add(.string(Self.secret))
        secrets.add(.string("ab/c\"d"))
        // The spellings redaction follows: the code, its manual code (plain, dashed, spaced), its passcode, its JSON
        // and percent escapes.
        let forms = ["MT:Y.K9042C00KA0648G00", "Y.K9042C00KA0648G00", "34970112332", "3497-011-2332", "3497 011 2332", "20202021",
            "MT%3AY.K9042C00KA0648G00", "ab\\/c\\\"d", "ab/c\\\"d"]
        var random = SeededGenerator(seed: 7)
        let alphabet = Array("MT:Y.K90423C1-/ ab\\\"%Ax")
        for round in 0..<2_000 {
            let form = forms[round % forms.count]
            let before = String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let after = String((0..<Int.random(in: 0...12, using: &random)).map { _ in alphabet.randomElement(using: &random)! })
            let text = before + form + after
            #expect(!secrets.redacting(text).contains(form), "\(text)")
        }
        // Text that holds nothing is passed on as it is.
        #expect(secrets.redacting("session-b960e0946ba0 at 2026-12-06") == "session-b960e0946ba0 at 2026-12-06")
    }
}
