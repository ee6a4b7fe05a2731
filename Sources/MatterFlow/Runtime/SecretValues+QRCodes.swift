import MatterPayload

extension SecretValues {
    /// The numbers a setup code standing in text is checked against: every secret number a setup passcode can be (1 to
    /// 99,999,998), and every secret string of 1 to 8 digits read as one. An onboarding payload's passcode is among
    /// them, once its spellings are worked out.
    static func possiblePasscodes(integers: Set<Int>, strings: Set<String>) -> Set<Int> {
        var passcodes = Set(integers.filter { passcodeRange.contains($0) })
        for text in strings where text.utf8.count <= 8 && text.utf8.allSatisfy(isDigit) {
            if let number = Int(text), passcodeRange.contains(number) { passcodes.insert(number) }
        }
        return passcodes
    }

    /// The numbers a setup passcode can be.
    static let passcodeRange = 1...Int(OnboardingPayload.maximumPasscode)

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
    /// joined by `*` (or `%2A`, `%252A`). Each payload's passcode is read from its first 19 or 20 characters, which
    /// hold the fixed fields, so a code cut short, or run into the text after it (`MT:...and`, `MT:....`), is read
    /// too; the whole run of code characters is hidden.
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
                } else if let star = starLength(in: bytes, at: end) {
                    segments.append(segmentStart..<end)
                    end += star
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
                let payload = OnboardingPayload.unpackingQRBytes(first + second.prefix(2))
            else { return nil }
            return Int(payload.passcode)
        }
    }

    /// What may stand between `MT` and a QR code's body: `:` as it is, percent-encoded once or twice, JSON-escaped,
    /// and as an HTML entity (decimal, hexadecimal or named; letters compared in lower case).
    private static let qrPrefixTails: [[UInt8]] = [":", "%3a", "%253a", "\\u003a", "&#58;", "&#x3a;", "&colon;"].map { Array($0.utf8) }

    /// The length of the QR code prefix at `index` (`MT` in either case and one of ``qrPrefixTails``), or nil.
    private static func qrPrefixLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        guard index + 2 < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "m"), bytes[index + 1] | 0x20 == UInt8(ascii: "t") else { return nil }
        tails: for tail in qrPrefixTails where index + 2 + tail.count <= bytes.count {
            for (offset, expected) in tail.enumerated() where lowercased(bytes[index + 2 + offset]) != expected { continue tails }
            return 2 + tail.count
        }
        return nil
    }

    /// The length of the `*` joining payloads at `index` (as it is, or percent-encoded once or twice: `%2A`,
    /// `%252A`, in either case), or nil.
    private static func starLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        if bytes[index] == UInt8(ascii: "*") { return 1 }
        for encoded in starEncodings where index + encoded.count <= bytes.count {
            if encoded.indices.allSatisfy({ lowercased(bytes[index + $0]) == encoded[$0] }) { return encoded.count }
        }
        return nil
    }

    private static let starEncodings: [[UInt8]] = ["%2a", "%252a"].map { Array($0.utf8) }

    /// `byte` in lower case when it is an ASCII capital letter.
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    /// Whether `byte` is base-38 (`0-9 A-Z - .`), here in either case.
    private static func isBase38Byte(_ byte: UInt8) -> Bool {
        isASCIILetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// Where a manual pairing code carrying one of `passcodes` stands: 11 or 21 digits, as one number or in the groups
    /// codes are printed in (4-3-4, 4-4-4-4-5) separated by a dash, space or dot, not inside a longer number
    /// (`34970112332`, `3497-011-2332`, `7497 0112 3304 6600 00011`), whatever numbers stand around it. Its first digit must say its length and its
    /// check digit must hold before it is decoded, so a number that only happens to be that long seldom is; a code
    /// whose passcode is no secret stays.
    static func manualCodeRanges(in bytes: UnsafeBufferPointer<UInt8>, passcodes: Set<Int>) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 0
        while index < bytes.count {
            guard isDigit(bytes[index]), index == 0 || !isDigit(bytes[index - 1]) else {
                index += 1
                continue
            }
            // The groups from here, as long as a code's: each separator between two digits.
            var groups: [Range<Int>] = []
            var end = index
            while groups.count < 5 {
                let start = end
                while end < bytes.count, isDigit(bytes[end]) { end += 1 }
                groups.append(start..<end)
                guard isGroupSeparator(in: bytes, at: end) else { break }
                end += 1
            }
            let lengths = groups.map(\.count)
            if let shape = Self.manualCodeShapes.first(where: lengths.starts(with:)),
                manualPasscode(in: bytes, groups: groups.prefix(shape.count)).map(passcodes.contains) == true
            {
                ranges.append(groups[0].lowerBound..<groups[shape.count - 1].upperBound)
                index = groups[shape.count - 1].upperBound
            } else {
                index = groups[0].upperBound
            }
        }
        return ranges
    }

    /// The lengths of the digit groups a manual code is written in: whole, or as printed.
    private static let manualCodeShapes = [[11], [21], [4, 3, 4], [4, 4, 4, 4, 5]]

    /// Whether a dash, space or dot standing between two digits is at `index`.
    private static func isGroupSeparator(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Bool {
        guard index > 0, index + 1 < bytes.count, isDigit(bytes[index - 1]), isDigit(bytes[index + 1]) else { return false }
        return bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: ".")
    }

    /// The passcode of the manual code whose digits stand in `groups`; nil when its first digit says another length
    /// (4 to 7 for 21 digits, 0 to 3 for 11; 8 and 9 never begin one) or its check digit does not hold.
    private static func manualPasscode(in bytes: UnsafeBufferPointer<UInt8>, groups: ArraySlice<Range<Int>>) -> Int? {
        let values = groups.flatMap { group in bytes[group].map { Int($0 - UInt8(ascii: "0")) } }
        guard let first = values.first, first < 8, (first >= 4) == (values.count == 21),
            Verhoeff.checkDigit(forDigitValues: Array(values.dropLast())) == values.last,
            let payload = try? OnboardingPayload.parseManualCode(String(decoding: values.map { UInt8($0) + UInt8(ascii: "0") }, as: UTF8.self))
        else { return nil }
        return Int(payload.passcode)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

    /// Whether text may hold a setup code ``setupCodeRanges(in:passcodes:)`` reads: a QR code's prefix, or 11 digits
    /// in a row of digit groups. A line with neither is not read.
    static func mayHoldSetupCode(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var digits = 0
        for index in bytes.indices {
            if isDigit(bytes[index]) {
                digits += 1
                if digits >= 11 { return true }
            } else if !isGroupSeparator(in: bytes, at: index) {
                digits = 0
                if qrPrefixLength(in: bytes, at: index) != nil { return true }
            }
        }
        return false
    }
}
