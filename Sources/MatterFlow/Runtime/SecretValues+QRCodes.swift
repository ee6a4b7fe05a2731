import MatterPayload

extension SecretValues {
    /// The numbers a setup code standing in text is checked against: every secret number a setup passcode can be (1 to
    /// 99,999,998), and every secret string of 1 to 8 digits read as one. An onboarding payload's passcode is among
    /// them, once its spellings are worked out.
    static func possiblePasscodes(integers: Set<Int>, strings: Set<String>) -> Set<Int> {
        var passcodes = Set(integers.filter { passcodeRange.contains($0) })
        for text in strings where text.utf8.count <= 8 && text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) {
            if let number = Int(text), passcodeRange.contains(number) { passcodes.insert(number) }
        }
        return passcodes
    }

    /// The numbers a setup passcode can be.
    static let passcodeRange = 1...99_999_998

    /// Where a setup code carrying one of `passcodes` stands in `bytes` (UTF-8), whatever else it sets: a QR code's
    /// flow, discovery bits, vendor, product or optional data, a manual code's discriminator, vendor or product. A
    /// code the run never saw commissions the same device all the same (a hub writing the code again with other bits,
    /// a tool adding its vendor), so each is read, not matched against known spellings.
    static func setupCodeRanges(in bytes: UnsafeBufferPointer<UInt8>, passcodes: Set<Int>) -> [Range<Int>] {
        guard !passcodes.isEmpty, bytes.count >= 11 else { return [] }
        return qrCodeRanges(in: bytes, passcodes: passcodes) + manualCodeRanges(in: bytes, passcodes: passcodes)
    }

    /// Where a QR code carrying one of `passcodes` stands: `MT:` in either case (also percent-encoded once or twice,
    /// JSON-escaped or as an HTML entity, and with a space after it), then base-38 text in either case, payloads
    /// joined by `*` (or `%2A`). Each payload's passcode is read from its first 19 or 20 characters, which hold the fixed
    /// fields, so a code cut short, or run into the text after it (`MT:...and`, `MT:....`), is read too; the whole run
    /// of code characters is hidden.
    static func qrCodeRanges(in bytes: UnsafeBufferPointer<UInt8>, passcodes: Set<Int>) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 0
        while index + 22 <= bytes.count {
            guard let prefixLength = qrPrefixLength(in: bytes, at: index) else {
                index += 1
                continue
            }
            var bodyStart = index + prefixLength
            if bodyStart < bytes.count, bytes[bodyStart] == UInt8(ascii: " ") || bytes[bodyStart] == UInt8(ascii: "\t") {
                bodyStart += 1
            } else if bodyStart + 1 < bytes.count, bytes[bodyStart] == 0xC2, bytes[bodyStart + 1] == 0xA0 {
                bodyStart += 2  // a no-break space
            }
            var segments: [Range<Int>] = []
            var segmentStart = bodyStart
            var end = bodyStart
            while end < bytes.count, end - bodyStart < OnboardingPayload.maximumQRCodeLength {
                if end > bodyStart, qrPrefixLength(in: bytes, at: end) != nil {
                    break  // another code follows at once (`MT:...MT:...`)
                } else if isBase38Byte(bytes[end]) {
                    end += 1
                } else if bytes[end] == UInt8(ascii: "*") || startsPercentStar(bytes, at: end) {
                    segments.append(segmentStart..<end)
                    end += bytes[end] == UInt8(ascii: "*") ? 1 : 3
                    segmentStart = end
                } else {
                    break
                }
            }
            segments.append(segmentStart..<end)
            if segments.contains(where: { qrPasscodes(in: bytes, $0).contains(where: passcodes.contains) }) {
                ranges.append(index..<codeEnd(in: bytes, body: bodyStart..<end))
                index = end
            } else {
                index += 1
            }
        }
        return ranges
    }

    /// Where the code read in `body` ends: before a `.` or `-` (up to three) ending the text that is the text's own (a
    /// sentence's full stop), when the code reads whole without it; else at the end of `body`.
    private static func codeEnd(in bytes: UnsafeBufferPointer<UInt8>, body: Range<Int>) -> Int {
        var end = body.upperBound
        while end > body.lowerBound, body.upperBound - end < 3, bytes[end - 1] == UInt8(ascii: ".") || bytes[end - 1] == UInt8(ascii: "-") {
            end -= 1
            if (try? OnboardingPayload.parseQRCode("MT:" + upper(bytes, body.lowerBound..<end))) != nil { return end }
        }
        return body.upperBound
    }

    /// The bytes of `range` as text, ASCII letters in upper case.
    private static func upper(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: bytes[range].map { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) ? $0 - 0x20 : $0 }, as: UTF8.self)
    }

    /// The passcodes the QR payload whose text begins `segment` may carry, read from its fixed fields: 11 bytes, in
    /// its first 15 characters (9 bytes) and the next chunk: 5 characters in a longer code, 4 in a code of 19, both
    /// read when 20 or more stand there (a code of 19 followed by a full stop). None where they are not base-38.
    private static func qrPasscodes(in bytes: UnsafeBufferPointer<UInt8>, _ segment: Range<Int>) -> [Int] {
        guard segment.count >= 19, let first = try? Base38.decode(upper(bytes, segment.lowerBound..<(segment.lowerBound + 15))) else { return [] }
        return [20, 19].compactMap { length -> Int? in
            guard segment.count >= length,
                let second = try? Base38.decode(upper(bytes, (segment.lowerBound + 15)..<(segment.lowerBound + length))), second.count >= 2,
                let payload = try? OnboardingPayload.parseQRCode("MT:" + Base38.encode(first + second.prefix(2))).first
            else { return nil }
            return Int(payload.passcode)
        }
    }

    /// What may stand between `MT` and a QR code's body: `:` as it is, percent-encoded once or twice, JSON-escaped,
    /// and as an HTML entity (letters compared in lower case).
    private static let qrPrefixTails: [[UInt8]] = [":", "%3a", "%253a", "\\u003a", "&#58;"].map { Array($0.utf8) }

    /// The length of the QR code prefix at `index` (`MT` in either case and one of ``qrPrefixTails``), or nil.
    private static func qrPrefixLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        guard index + 2 < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "m"), bytes[index + 1] | 0x20 == UInt8(ascii: "t") else { return nil }
        tails: for tail in qrPrefixTails where index + 2 + tail.count <= bytes.count {
            for (offset, expected) in tail.enumerated() where lowercased(bytes[index + 2 + offset]) != expected { continue tails }
            return 2 + tail.count
        }
        return nil
    }

    /// Whether `%2A` (a percent-encoded `*`, in either case) stands at `index`.
    private static func startsPercentStar(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        index + 3 <= bytes.count && bytes[index] == UInt8(ascii: "%") && bytes[index + 1] == UInt8(ascii: "2")
            && lowercased(bytes[index + 2]) == UInt8(ascii: "a")
    }

    /// `byte` in lower case when it is an ASCII capital letter.
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    /// Whether `byte` is base-38 (`0-9 A-Z - .`), here in either case.
    private static func isBase38Byte(_ byte: UInt8) -> Bool {
        isASCIILetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// Where a manual pairing code carrying one of `passcodes` stands: 11 or 21 digits, alone or in groups separated
    /// by one dash, space or dot (`3497-011-2332`, `7497 0112 3304 6600 00011`), not inside a longer group of digits.
    /// Neighbouring numbers may be separated so too (`34970112332 20202021`): each run of groups whose digits add up
    /// to 11 or 21 is read. Its check digit must hold, so a number that only happens to be that long is seldom
    /// decoded, and then kept unless its passcode is a secret.
    static func manualCodeRanges(in bytes: UnsafeBufferPointer<UInt8>, passcodes: Set<Int>) -> [Range<Int>] {
        let separators: [UInt8] = [UInt8(ascii: "-"), UInt8(ascii: " "), UInt8(ascii: ".")]
        var ranges: [Range<Int>] = []
        var index = 0
        while index < bytes.count {
            guard isDigit(bytes[index]) else {
                index += 1
                continue
            }
            // The groups of digits from here on, each separator standing between two digits.
            var groups: [Range<Int>] = []
            var groupStart = index
            var end = index
            while true {
                while end < bytes.count, isDigit(bytes[end]) { end += 1 }
                groups.append(groupStart..<end)
                guard end + 1 < bytes.count, separators.contains(bytes[end]), isDigit(bytes[end + 1]) else { break }
                end += 1
                groupStart = end
            }
            var first = 0
            while first < groups.count {
                var count = 0
                var matched: Int?
                for last in first..<groups.count {
                    count += groups[last].count
                    if count > 21 { break }
                    guard count == 11 || count == 21 else { continue }
                    let digits = groups[first...last].flatMap { Array(bytes[$0]) }
                    if let payload = try? OnboardingPayload.parseManualCode(String(decoding: digits, as: UTF8.self)),
                        passcodes.contains(Int(payload.passcode))
                    {
                        matched = last
                    }
                }
                if let matched {
                    ranges.append(groups[first].lowerBound..<groups[matched].upperBound)
                    first = matched + 1
                } else {
                    first += 1
                }
            }
            index = end
        }
        return ranges
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// Whether text may hold a setup code ``setupCodeRanges(in:passcodes:)`` reads: `MT` in either case, or 11
    /// digits. A line with neither is not read.
    static func mayHoldSetupCode(_ bytes: [UInt8]) -> Bool {
        var digits = 0
        for (index, byte) in bytes.enumerated() {
            if isDigit(byte) {
                digits += 1
                if digits >= 11 { return true }
            } else if byte | 0x20 == UInt8(ascii: "m"), index + 1 < bytes.count, bytes[index + 1] | 0x20 == UInt8(ascii: "t") {
                return true
            }
        }
        return false
    }
}
