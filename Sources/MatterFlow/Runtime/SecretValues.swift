import Foundation
import MatterPayload
import MatterFlowJSON
import Synchronization
import ThreadDataset

/// The secret values of one run (secret inputs and arguments, secret result fields), and their removal from what
/// the run shows.
///
/// Declaring an input or argument secret hides its value wherever it travels: inside other arguments, warnings
/// and error messages too, not only where it was declared. Redaction works on the run's values, string by string,
/// before anything is encoded, and it looks for each secret in every form it can take inside a string: as it is,
/// JSON-escaped (a value holding the secret interpolated into text as JSON, once or nested several times, with or
/// without `\/` and `\u` escapes) and percent-encoded.
///
/// A secret of at least ``minimumLength`` characters is redacted wherever it occurs inside a string. A shorter one is
/// too likely to occur by chance in unrelated text, so it is redacted only where a string is exactly the secret;
/// secret inputs that short are refused before the run starts (``Workflow/resolveInputs(_:source:)``).
///
/// A secret number (a PIN declared `integer`) is a secret twice: as the text JSON writes it, found in strings like
/// any other, and as a number, so that a JSON number equal to it is replaced by ``RunOptions/redacted`` too. One that
/// JSON writes in fewer than ``minimumLength`` characters (`0`, `42`) is not followed at all: every such number would
/// be hidden wherever it occurs.
final class SecretValues: Sendable {
    /// Shorter strings are too likely to occur by chance to be redacted inside other text.
    static let minimumLength = 4

    /// How many times a secret's JSON escaping is applied to find it in JSON text nested inside JSON text.
    static let nestingDepth = 4

    /// An encoded form of a secret, with its UTF-8 bytes for the byte search.
    private struct Form {
        var text: String
        var bytes: [UInt8]
        /// Whether text may hold the form with other bytes than its own, character for character (``SecretValues/
        /// characterOccurrences(in:matchers:)``): a form outside ASCII (`é` composed or not), or one holding an ASCII
        /// character that a character outside ASCII is canonically equal to (`K`, `;`, `` ` ``), where the text holds one.
        var spelledOtherwise: Spelling

        enum Spelling { case onlyAsItIs, withLookalikes, inOtherForms }

        init(_ text: String) {
            self.text = text
            bytes = Array(text.utf8)
            spelledOtherwise = !bytes.allSatisfy { $0 < 0x80 } ? .inOtherForms
                : bytes.contains { SecretValues.asciiWithLookalikes.contains($0) } ? .withLookalikes : .onlyAsItIs
        }
    }

    /// The ASCII characters that a character outside ASCII is canonically equal to: `K` (the Kelvin sign, U+212A), `;`
    /// (the Greek question mark, U+037E) and `` ` `` (U+1FEF).
    static let asciiWithLookalikes: Set<UInt8> = [UInt8(ascii: "K"), UInt8(ascii: ";"), UInt8(ascii: "`")]
    static let lookalikes: Set<Unicode.Scalar> = ["\u{212A}", "\u{037E}", "\u{1FEF}"]

    /// What redaction searches for, made once per change of the secrets and shared by every redaction after it.
    private final class Matcher: Sendable {
        /// Every encoded form of every secret at least ``minimumLength`` long, longest (in bytes) first.
        let forms: [Form]
        /// Every secret string, whatever its length, for whole-string matches.
        let whole: Set<String>
        /// The UTF-8 lengths of the secrets: a string of another length is none of them, and is not hashed to look.
        let wholeLengths: [Int]
        /// The first two bytes of the forms, when both are ASCII: text in which no two neighbouring ASCII bytes are
        /// those of a form holds none of those forms.
        let leadingPairs: AsciiPairSet
        /// The forms by their first two bytes (`first << 8 | second`), as indices into ``forms``: where a pair of the
        /// text begins forms, only those are compared.
        let formsByPair: [Int: [Int]]
        /// Whether some form begins with a byte outside ASCII: only then is a pair holding one looked up.
        let hasNonASCIIPairs: Bool
        /// Whether some form holds a character outside ASCII: then even ASCII text may hold it spelled otherwise (the
        /// letter `K` for a Kelvin sign).
        let hasFormsOutsideASCII: Bool

        /// The secret numbers, as integers and as floats (an integral one in both where it fits).
        let integers: Set<Int>
        let floats: Set<Double>
        /// The secrets a QR code's setup passcode may be (``SecretValues/possiblePasscodes(integers:strings:)``).
        let passcodes: Set<Int>

        /// The search for no secret, shared by every run until it has one.
        static let none = Matcher(forms: [], whole: [])

        init(forms: [Form], whole: Set<String>, integers: Set<Int> = [], floats: Set<Double> = []) {
            self.forms = forms
            self.whole = whole
            self.integers = integers
            self.floats = floats
            passcodes = SecretValues.possiblePasscodes(integers: integers, strings: whole)
            wholeLengths = Array(Set(whole.map(\.utf8.count)))
            var leadingPairs = AsciiPairSet()
            var formsByPair: [Int: [Int]] = [:]
            var hasNonASCIIPairs = false
            for (index, form) in forms.enumerated() where form.bytes.count >= 2 {
                let (first, second) = (form.bytes[0], form.bytes[1])
                formsByPair[Int(first) << 8 | Int(second), default: []].append(index)
                if first < 0x80, second < 0x80 {
                    leadingPairs.insert(first, second)
                } else {
                    hasNonASCIIPairs = true
                }
            }
            self.leadingPairs = leadingPairs
            self.formsByPair = formsByPair
            self.hasNonASCIIPairs = hasNonASCIIPairs
            hasFormsOutsideASCII = forms.contains { $0.spelledOtherwise == .inOtherForms }
        }

        /// Records in `ends` where the longest of the forms standing in `bytes` (UTF-8) ends, by the byte each starts
        /// at, where it ends past every find recorded so far at or before that byte (this matcher's, and other
        /// matchers' before it): one that ends within them adds nothing to what is hidden. `ends` is made, all 0, at
        /// the first find. At each pair of neighbouring bytes that begins forms, only those are compared, longest first.
        func recordLongestEnds(in bytes: UnsafeBufferPointer<UInt8>, into ends: inout [Int]) {
            guard bytes.count >= 2, !forms.isEmpty else { return }
            // The furthest end of the finds starting at or before `start`.
            var reach = 0
            for start in 0..<(bytes.count - 1) {
                if !ends.isEmpty { reach = max(reach, ends[start]) }
                let (first, second) = (bytes[start], bytes[start + 1])
                if first < 0x80, second < 0x80 {
                    guard leadingPairs.contains(first, second) else { continue }
                } else if !hasNonASCIIPairs {
                    continue
                }
                guard let candidates = formsByPair[Int(first) << 8 | Int(second)] else { continue }
                for candidate in candidates {
                    let end = start + forms[candidate].bytes.count
                    // Longest first: once a form ends within what is found, no later one ends past it.
                    guard end > reach else { break }
                    guard Self.occurs(forms[candidate].bytes, in: bytes, at: start) else { continue }
                    if ends.isEmpty { ends = [Int](repeating: 0, count: bytes.count) }
                    ends[start] = end
                    reach = end
                    break
                }
            }
        }

        /// Whether `form`'s bytes stand in `bytes` from `start` on.
        private static func occurs(_ form: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, at start: Int) -> Bool {
            guard start + form.count <= bytes.count else { return false }
            for offset in form.indices where bytes[start + offset] != form[offset] { return false }
            return true
        }
    }

    private struct Known {
        /// The search for the secrets added so far, except those still ``pending``.
        var matcher = Matcher.none
        /// Every secret string, whatever its length.
        var whole: Set<String> = []
        /// Secrets whose encoded forms are not in ``matcher`` yet: they are worked out on the first redaction, so a
        /// run that never shows anything never pays for them.
        var pending: [String] = []
        /// Every secret number.
        var integers: Set<Int> = []
        var floats: Set<Double> = []

        /// Records a secret string (a number's as JSON writes it).
        mutating func add(_ text: String) {
            guard whole.insert(text).inserted, text.count >= SecretValues.minimumLength else { return }
            pending.append(text)
        }

        /// The search for every secret added so far, made again only when the secrets have grown since the last one.
        mutating func currentMatcher() -> Matcher {
            guard whole.count != matcher.whole.count || integers.count != matcher.integers.count || floats.count != matcher.floats.count
            else { return matcher }
            var all = Set(matcher.forms.map(\.text))
            for secret in pending {
                all.formUnion(SecretValues.encodedForms(of: secret))
                // An onboarding payload's other spellings: decoded here, once per code, and only if the run shows
                // something.
                let payload = SecretValues.onboardingPayloadForms(of: secret)
                for text in payload.texts where whole.insert(text).inserted { all.formUnion(SecretValues.encodedForms(of: text)) }
                for number in payload.passcodes {
                    integers.insert(number)
                    floats.insert(Double(number))
                }
                for text in SecretValues.datasetForms(of: secret) + SecretValues.epskcForms(of: secret) where whole.insert(text).inserted {
                    all.formUnion(SecretValues.encodedForms(of: text))
                }
            }
            pending = []
            matcher = Matcher(
                forms: all.map(Form.init).sorted { $0.bytes.count != $1.bytes.count ? $0.bytes.count > $1.bytes.count : $0.text < $1.text },
                whole: whole,
                integers: integers, floats: floats)
            return matcher
        }
    }

    private let known = Mutex(Known())

    /// A number no other instance in this process has had: what ``SharedSecrets`` keeps its notes under (an instance's
    /// address may be another's once it is freed).
    let serial = SecretValues.serials.add(1, ordering: .relaxed).newValue
    private static let serials = Atomic<UInt64>(0)

    /// Whether a string or number is too short to be told apart from unrelated text: 1 to ``minimumLength`` − 1
    /// characters, a number as JSON writes it. An empty string, a boolean, null and a container are not.
    static func isTooShort(_ value: JSONValue) -> Bool {
        switch value {
        case .string(let text): (1..<minimumLength).contains(text.count)
        case .int, .double: JSONWriter.compact(value).count < minimumLength
        case .null, .bool, .array, .object: false
        }
    }

    /// Records every string and number inside a value. A boolean is no secret anyone could keep: it is not recorded.
    func add(_ value: JSONValue) {
        switch value {
        case .string(let text) where !text.isEmpty:
            known.withLock { $0.add(text) }
        case .int(let number) where !Self.isTooShort(value):
            known.withLock { known in
                known.add(String(number))
                known.integers.insert(number)
                if let float = Double(exactly: number) { known.floats.insert(float) }
            }
        case .double(let number) where number.isFinite && !Self.isTooShort(value):
            known.withLock { known in
                known.add(JSONWriter.compact(.double(number)))
                known.floats.insert(number)
                if let integer = Int(exactly: number) { known.integers.insert(integer) }
            }
        case .array(let elements):
            elements.forEach(add)
        case .object(let object):
            object.members.forEach { add($0.value) }
        case .null, .bool, .int, .double, .string:
            break
        }
    }

    /// The other spellings of what an onboarding payload keeps secret, when `text` is one: every code that commissions
    /// the same device by the same setup, whichever was given, as a hub or its error may quote it:
    /// - a QR code in lower case (base-38 has no lower-case letters, so it reads back whole), and its body without
    ///   `MT:`, in either case; for a QR code with optional data, the QR code without it (a parser that writes the
    ///   code again from its fields);
    /// - the manual code of each payload, as digits, in its printed groups with dashes, spaces and dots
    ///   (`34970112332`, `3497-011-2332`, `3497 011 2332`, `3497.011.2332`), and, for a payload that names its vendor
    ///   and product, the 21-digit manual code in the same spellings;
    /// - the setup passcode it carries, as digits (also padded to 8), in two groups of four (`2020-2021`,
    ///   `2020 2021`), in thousands (`20,202,021`, `20.202.021`, `20 202 021`), and as a number.
    /// None for other text, which is not decoded.
    static func onboardingPayloadForms(of given: String) -> (texts: [String], passcodes: [Int]) {
        // A code typed in full-width forms is the ASCII code too (the hub is given that form).
        let text = OnboardingPayload.halfWidthText(given)
        let digits = text.filter { $0 != "-" && $0 != " " }
        guard text.hasPrefix("MT:") || ((digits.count == 11 || digits.count == 21) && digits.allSatisfy({ $0.isASCII && $0.isNumber })),
            let payloads = try? OnboardingPayload.decode(text)
        else { return ([], []) }
        var texts = text != given ? [text] : []
        func qrForms(_ code: String) -> [String] {
            let body = String(code.dropFirst(3))
            return [code, code.lowercased(), body, body.lowercased()]
        }
        if text.hasPrefix("MT:") { texts += qrForms(text) }
        for payload in payloads {
            if text.hasPrefix("MT:"), payload.extensionData != nil {
                var plain = payload
                plain.extensionData = nil
                texts += qrForms(plain.uncheckedQRCode())
            }
            var manuals = [payload.uncheckedManualCode()]
            if payload.vendorID != nil, payload.productID != nil, !payload.needsLongManualCode {
                manuals.append(payload.uncheckedLongManualCode())
            }
            for manual in manuals {
                let grouped = OnboardingPayload.groupManualCode(manual)
                texts += [manual, grouped] + [UInt8(ascii: " "), UInt8(ascii: ".")].map { Self.replacingASCII(UInt8(ascii: "-"), with: $0, in: grouped) }
            }
            let passcode = String(payload.passcode)
            let padded = String(repeating: "0", count: max(0, 8 - passcode.count)) + passcode
            texts += [passcode, padded]
            texts += ["-", " "].map { padded.prefix(4) + $0 + padded.suffix(4) }
            texts += [",", ".", " "].map { Self.thousands(passcode, separator: $0) }
        }
        var seen = Set<String>()
        return (texts.filter { $0 != given && seen.insert($0).inserted }, payloads.map { Int($0.passcode) })
    }

    /// `text` with every ASCII character `old` replaced by the ASCII character `new` (Foundation's
    /// `replacingOccurrences` costs microseconds a call, and a run's secrets take several).
    static func replacingASCII(_ old: UInt8, with new: UInt8, in text: String) -> String {
        String(decoding: text.utf8.map { $0 == old ? new : $0 }, as: UTF8.self)
    }

    /// `digits` in groups of three from the right, joined by `separator` (`20,202,021`).
    static func thousands(_ digits: String, separator: String) -> String {
        var groups: [Substring] = []
        var end = digits.endIndex
        while end > digits.startIndex {
            let start = digits.index(end, offsetBy: -3, limitedBy: digits.startIndex) ?? digits.startIndex
            groups.insert(digits[start..<end], at: 0)
            end = start
        }
        return groups.joined(separator: separator)
    }

    /// The printed spellings of a nine-digit secret (an ePSKc, `528240781`), as a person reads it out or a hub shows
    /// it: in groups of three with dashes, spaces or dots (`528-240-781`, `528 240 781`, `528.240.781`). None for
    /// other text.
    static func epskcForms(of text: String) -> [String] {
        let digits = Array(text.utf8)
        guard digits.count == 9, digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return [] }
        let groups = [text.prefix(3), text.dropFirst(3).prefix(3), text.suffix(3)]
        return ["-", " ", "."].map { groups.joined(separator: $0) }
    }

    /// What an Operational Dataset keeps secret, when `text` is one: its Network Key and PSKc, each as a hub or its
    /// error may quote either TLV's value alone: hex in lower and upper case; bytes separated by colons, dashes or
    /// spaces (`a1:b2:...`, as border routers and tools print keys), in either case; base64 and base64url (with and
    /// without padding); as a list of bytes, each in decimal (also signed, as Java prints them), as `0x..` or as hex
    /// digits in either case, separated by `, `, `,` or a space (C, JSON, Rust, Go and Java print byte arrays so); and
    /// as Python writes the bytes (`\xa1\xb2...`, inside `b'...'` or `bytearray(b'...')`). None for other text, which
    /// is not decoded.
    static func datasetForms(of text: String) -> [String] {
        guard text.utf8.count >= 8, Hex.holdsOnlyHexCharacters(text),
            let dataset = try? OperationalDataset(hex: text)
        else { return [] }
        let secrets = [dataset.networkKey?.revealedBytes, dataset.pskc?.revealedBytes].compactMap { $0 }
        return secrets.flatMap { bytes -> [String] in
            let hex = Hex.encode(bytes)
            let pairs = bytes.map { Hex.encode([$0]) }
            let separated = [":", "-", " "].flatMap { separator -> [String] in
                let joined = pairs.joined(separator: separator)
                return [joined, joined.uppercased()]
            }
            let base64 = Data(bytes).base64EncodedString()
            let base64URL = replacingASCII(UInt8(ascii: "/"), with: UInt8(ascii: "_"), in: replacingASCII(UInt8(ascii: "+"), with: UInt8(ascii: "-"), in: base64))
            let unpadded = String(decoding: base64URL.utf8.filter { $0 != UInt8(ascii: "=") }, as: UTF8.self)
            // Each byte in decimal (signed too, as Java prints bytes), as 0x.. and as hex digits in either case, in
            // lists separated by ", ", "," or " " (JSON, C, Rust, Go and Java print byte arrays so).
            let elements: [[String]] = [
                bytes.map { String($0) }, bytes.map { String(Int8(bitPattern: $0)) }, pairs.map { "0x" + $0 },
                pairs.map { "0x" + $0.uppercased() }, pairs, pairs.map { $0.uppercased() },
            ]
            let lists = elements.flatMap { spelled in [", ", ",", " "].map { spelled.joined(separator: $0) } }
            let python = [pythonBytesBody(bytes), pythonBytesBody(bytes, bytearray: true)]
            return [hex, hex.uppercased()] + separated + [base64, base64URL, unpadded] + lists + python
        }
    }

    /// What Python writes between the quotes of `b'...'` for `bytes`: printable ASCII as it is (a backslash and the
    /// quote escaped), tab, newline and carriage return as `\t`, `\n`, `\r`, every other byte as `\xNN`. The quote is
    /// `'` unless the bytes hold one and no `"`; a `bytearray` escapes `'` whichever it is.
    static func pythonBytesBody(_ bytes: [UInt8], bytearray: Bool = false) -> String {
        let quote = bytes.contains(UInt8(ascii: "'")) && !bytes.contains(UInt8(ascii: "\"")) ? UInt8(ascii: "\"") : UInt8(ascii: "'")
        let escaped: Set<UInt8> = bytearray ? [UInt8(ascii: "\\"), quote, UInt8(ascii: "'")] : [UInt8(ascii: "\\"), quote]
        var body = ""
        for byte in bytes {
            switch byte {
            case _ where escaped.contains(byte): body += "\\" + String(UnicodeScalar(byte))
            case UInt8(ascii: "\t"): body += "\\t"
            case UInt8(ascii: "\n"): body += "\\n"
            case UInt8(ascii: "\r"): body += "\\r"
            case 0x20..<0x7F: body += String(UnicodeScalar(byte))
            default: body += "\\x" + Hex.encode([byte])
            }
        }
        return body
    }

    /// A count that grows whenever a secret is added: a holder of ``leadingQuads()`` asks again when it changed.
    var generation: Int {
        known.withLock { $0.whole.count + $0.integers.count + $0.floats.count }
    }

    /// The first four bytes of every form redaction searches inside text, each as one number (``quad(_:at:)``):
    /// text in which no four neighbouring bytes are one of them holds none of the forms (each has four bytes or more).
    ///
    /// `outsideASCII`: whether some form holds a character outside ASCII, which text may spell with other bytes, so
    /// that its quad does not show it (ASCII text spelling a Kelvin sign `K`). `readsSetupCodes`: whether some secret
    /// may be a setup passcode, so that a setup code carrying it is hidden wherever it stands (``mayHoldSetupCode(_:)``
    /// tells text that may hold one).
    func leadingQuads() -> (quads: [UInt32], outsideASCII: Bool, readsSetupCodes: Bool) {
        let matcher = known.withLock { $0.currentMatcher() }
        let quads = matcher.forms.compactMap { $0.bytes.count >= 4 ? Self.quad($0.bytes, at: 0) : nil }
        return (quads, matcher.hasFormsOutsideASCII, !matcher.passcodes.isEmpty)
    }

    /// Bytes `index` to `index + 3` of `bytes` as one number.
    static func quad(_ bytes: [UInt8], at index: Int) -> UInt32 {
        UInt32(bytes[index]) << 24 | UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3])
    }

    /// The text with every secret replaced by ``RunOptions/redacted``.
    func redacting(_ text: String) -> String {
        Self.redacting(text, with: [known.withLock { $0.currentMatcher() }]) ?? text
    }

    /// `text` with every secret of every one of `runs` replaced by ``RunOptions/redacted``, all in one pass: where
    /// one run's secret overlaps another's, or lies inside it, no part of either is left.
    static func redacting(_ text: String, across runs: [SecretValues]) -> String {
        redacting(text, with: runs.map { secrets in secrets.known.withLock { $0.currentMatcher() } }) ?? text
    }

    /// `text` with every secret of `matchers` replaced, or nil when it holds none. Every byte inside an occurrence of
    /// some form is hidden, whichever secrets the occurrences belong to and however they overlap; overlapping
    /// occurrences become one ``RunOptions/redacted``. Forms are found byte for byte, and also character for character
    /// where text may spell one with other bytes (``Form/spelledOtherwise``): all in the text as given, before any
    /// of it is replaced. A setup code whose passcode is a secret is hidden whole, however it is written
    /// (``setupCodeRanges(in:passcodes:)``).
    private static func redacting(_ text: String, with matchers: [Matcher]) -> String? {
        let holding = matchers.filter { !$0.whole.isEmpty }
        guard !holding.isEmpty else { return nil }
        let length = text.utf8.count
        if holding.contains(where: { $0.wholeLengths.contains(length) && $0.whole.contains(text) }) { return RunOptions.redacted }
        var text = text
        // The passcodes of the runs that may hold one (most hold none, and are not merged).
        let readers = holding.filter { !$0.passcodes.isEmpty }
        let passcodes = readers.count == 1 ? readers[0].passcodes : readers.reduce(into: Set<Int>()) { $0.formUnion($1.passcodes) }
        let (found, ascii) = text.withUTF8 { bytes in
            (byteOccurrences(in: bytes, matchers: holding) + setupCodeRanges(in: bytes, passcodes: passcodes), bytes.allSatisfy { $0 < 0x80 })
        }
        let other = ascii && !holding.contains(where: \.hasFormsOutsideASCII) ? [] : characterOccurrences(in: text, matchers: holding, ascii: ascii)
        guard !found.isEmpty || !other.isEmpty else { return nil }
        return text.withUTF8 { bytes in replacing(other.isEmpty ? found : found + other, in: bytes) }
    }

    /// The byte ranges of the forms of `matchers` standing in `bytes` (UTF-8), in order: at each byte where one
    /// begins, the longest that ends past those before it (``replacing(_:in:)`` merges the overlaps). Each matcher
    /// searches the whole text in turn (its tables stay in the cache).
    private static func byteOccurrences(in bytes: UnsafeBufferPointer<UInt8>, matchers: [Matcher]) -> [Range<Int>] {
        var ends: [Int] = []
        for matcher in matchers { matcher.recordLongestEnds(in: bytes, into: &ends) }
        return ends.enumerated().compactMap { start, end in end > 0 ? start..<end : nil }
    }

    /// The UTF-8 ranges of the forms of `matchers` that stand in `text` character for character with other bytes:
    /// another spelling of the same characters (`é` composed or not, the Kelvin sign for `K`). Forms that text can hold
    /// only byte for byte are left to ``byteOccurrences(in:matchers:)``.
    private static func characterOccurrences(in text: String, matchers: [Matcher], ascii: Bool) -> [Range<Int>] {
        let lookalikes = !ascii && text.unicodeScalars.contains { SecretValues.lookalikes.contains($0) }
        var looked: Set<String> = []
        var ranges: [Range<Int>] = []
        for matcher in matchers {
            for form in matcher.forms {
                switch form.spelledOtherwise {
                case .inOtherForms: break
                case .withLookalikes: guard lookalikes else { continue }
                case .onlyAsItIs: continue
                }
                guard looked.insert(form.text).inserted else { continue }
                var from = text.startIndex
                while from < text.endIndex, let range = text[from...].firstRange(of: form.text) {
                    ranges.append(text.utf8.distance(from: text.startIndex, to: range.lowerBound)..<text.utf8.distance(from: text.startIndex, to: range.upperBound))
                    from = text.index(after: range.lowerBound)
                }
            }
        }
        return ranges
    }

    /// `bytes` (UTF-8) with each run of overlapping `ranges` replaced by one ``RunOptions/redacted``.
    private static func replacing(_ ranges: [Range<Int>], in bytes: UnsafeBufferPointer<UInt8>) -> String {
        let marker = Array(RunOptions.redacted.utf8)
        let sorted = ranges.sorted { $0.lowerBound < $1.lowerBound }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + marker.count * sorted.count)
        var copied = 0
        var next = 0
        while next < sorted.count {
            var covered = sorted[next]
            next += 1
            while next < sorted.count, sorted[next].lowerBound < covered.upperBound {
                covered = covered.lowerBound..<max(covered.upperBound, sorted[next].upperBound)
                next += 1
            }
            output.append(contentsOf: bytes[copied..<covered.lowerBound])
            output.append(contentsOf: marker)
            copied = covered.upperBound
        }
        output.append(contentsOf: bytes[copied...])
        return String(decoding: output, as: UTF8.self)
    }

    /// The forms `secret` can take inside a string the run shows: itself, its JSON escaping nested up to
    /// ``nestingDepth`` times (as ``JSONWriter`` writes it, with `/` escaped as `\/` as other JSON writers do, and
    /// with every character outside letters and digits as a `\u` escape), and its percent-encoding.
    static func encodedForms(of secret: String) -> Set<String> {
        // Letters and digits alone are every one of these forms themselves (most of a setup code's spellings).
        if secret.utf8.allSatisfy(isASCIILetterOrDigit) { return secret.count >= minimumLength ? [secret] : [] }
        var forms: Set<String> = [secret]
        var nested = secret
        // Text JSON writes as it is (no quote, backslash, slash, control character or non-ASCII) is its own
        // escaping at every depth.
        let escapesNothing = secret.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x80 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") && $0 != UInt8(ascii: "/") }
        for _ in 0..<(escapesNothing ? 0 : nestingDepth) {
            nested = jsonEscaped(nested)
            forms.insert(nested)
            forms.insert(nested.split(separator: "/", omittingEmptySubsequences: false).joined(separator: "\\/"))
        }
        forms.insert(unicodeEscaped(secret, uppercase: false))
        forms.insert(unicodeEscaped(secret, uppercase: true))
        forms.insert(percentEncoded(secret, uppercase: true))
        forms.insert(percentEncoded(secret, uppercase: false))
        return forms.filter { $0.count >= minimumLength }
    }

    /// The body of the JSON string literal ``JSONWriter`` writes for `text`, without the quotes.
    static func jsonEscaped(_ text: String) -> String {
        var literal = ""
        JSONWriter.writeString(text, into: &literal)
        return String(literal.dropFirst().dropLast())
    }

    /// `text` with every scalar that is not an ASCII letter or digit written as a JSON `\u` escape (UTF-16 units).
    static func unicodeEscaped(_ text: String, uppercase: Bool) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count * 6)
        for scalar in text.unicodeScalars {
            if scalar.isASCII, isASCIILetterOrDigit(UInt8(scalar.value)) {
                result.append(UInt8(scalar.value))
                continue
            }
            for unit in String(scalar).utf16 {
                result += [UInt8(ascii: "\\"), UInt8(ascii: "u")]
                for shift in stride(from: 12, through: 0, by: -4) { result.append(hexDigit(Int(unit >> UInt16(shift)) & 0xF, uppercase: uppercase)) }
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// Whether `byte` is an ASCII letter or digit.
    static func isASCIILetterOrDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: false
        }
    }

    /// `text` percent-encoded as in a URL: every UTF-8 byte outside `A-Z a-z 0-9 - . _ ~` as `%XX`.
    static func percentEncoded(_ text: String, uppercase: Bool) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count * 3)
        for byte in text.utf8 {
            switch byte {
            case _ where isASCIILetterOrDigit(byte), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                result.append(byte)
            default:
                result += [UInt8(ascii: "%"), hexDigit(Int(byte >> 4), uppercase: uppercase), hexDigit(Int(byte & 0xF), uppercase: uppercase)]
            }
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The hexadecimal digit of `value` (0-15) as an ASCII byte.
    private static func hexDigit(_ value: Int, uppercase: Bool) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + UInt8(value) : (uppercase ? UInt8(ascii: "A") : UInt8(ascii: "a")) + UInt8(value - 10)
    }

    func redacting(_ value: JSONValue) -> JSONValue {
        Self.redacting(value, with: known.withLock { $0.currentMatcher() }) ?? value
    }

    /// `value` with every secret replaced in its strings, or nil when none holds one: a value with nothing to hide
    /// is passed on as it is, not copied.
    private static func redacting(_ value: JSONValue, with known: Matcher) -> JSONValue? {
        switch value {
        case .string(let text): return redacting(text, with: [known]).map(JSONValue.string)
        case .array(let elements):
            var redacted: [JSONValue]?
            for (index, element) in elements.enumerated() {
                guard let replaced = redacting(element, with: known) else { continue }
                if redacted == nil { redacted = elements }
                redacted?[index] = replaced
            }
            return redacted.map(JSONValue.array)
        case .object(let object):
            var redacted: [JSONObject.Member]?
            for (index, member) in object.members.enumerated() {
                guard let replaced = redacting(member.value, with: known) else { continue }
                if redacted == nil { redacted = object.members }
                redacted?[index].value = replaced
            }
            return redacted.map { .object(JSONObject($0)) }
        case .int(let number): return known.integers.contains(number) ? .string(RunOptions.redacted) : nil
        case .double(let number): return known.floats.contains(number) ? .string(RunOptions.redacted) : nil
        case .null, .bool: return nil
        }
    }

    func redacting(_ error: FlowError?) -> FlowError? {
        guard var error else { return nil }
        error.message = redacting(error.message)
        return error
    }

    /// The event with secrets removed from every text it carries.
    func redacting(_ kind: RunEvent.Kind) -> RunEvent.Kind {
        guard !known.withLock({ $0.whole.isEmpty }) else { return kind }
        switch kind {
        case .runStarted(let inputs):
            return .runStarted(inputs: redacting(.object(inputs)).objectValue ?? inputs)
        case .hubCallStarted(let state, let operation, let attempt, let arguments):
            return .hubCallStarted(
                state: state, operation: operation, attempt: attempt,
                arguments: redacting(.object(arguments)).objectValue ?? arguments)
        case .guardChecked(let state, let guardName, let error):
            return .guardChecked(state: state, guard: guardName, error: redacting(error))
        case .hubCallFinished(let state, let operation, let attempt, let duration, let error):
            return .hubCallFinished(state: state, operation: operation, attempt: attempt, duration: duration, error: redacting(error))
        case .retryScheduled(let state, let attempt, let delay, let error):
            return .retryScheduled(state: state, attempt: attempt, delaySeconds: delay, error: redacting(error) ?? error)
        case .warning(let state, let message):
            return .warning(state: state, message: redacting(message))
        case .runFinished(let outcome, let error, let holdsSession):
            return .runFinished(outcome: outcome, error: redacting(error), holdsSession: holdsSession)
        case .questionAsked(let state, var question):
            question.prompt = redacting(question.prompt)
            if case .choice(let choices) = question.schema {
                question.schema = .choice(choices.map { QuestionSchema.Choice(label: redacting($0.label), value: redacting($0.value)) })
            }
            return .questionAsked(state: state, question: question)
        case .answered(let state, let question, let value):
            return .answered(state: state, question: question, value: redacting(value))
        case .answerRejected(let state, let question, let reason):
            return .answerRejected(state: state, question: question, reason: redacting(reason))
        case .shown(let state, let value, let revealed):
            return .shown(state: state, value: redacting(value), revealed: revealed)
        case .eventReceived(let state, let event, let value, let fields):
            return .eventReceived(
                state: state, event: event, value: value, fields: redacting(.object(fields)).objectValue ?? fields)
        case .cancelRequested(let state, let reason):
            return .cancelRequested(state: state, reason: reason.map(redacting))
        case .stateEntered, .transition, .waitStarted, .delayStarted:
            return kind
        }
    }
}
