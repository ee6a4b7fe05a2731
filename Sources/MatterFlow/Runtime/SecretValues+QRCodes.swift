import MatterPayload

extension SecretValues {
    /// The numbers a QR code standing in text is checked against: every secret number a setup passcode can be (1 to
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

    /// Where a QR code carrying one of `passcodes` stands in `bytes` (UTF-8), whatever else it sets: its flow,
    /// discovery bits, vendor, product, optional data. A code the run never saw commissions the same device all the
    /// same (a hub writing the code again with other bits, a tool adding its vendor), so each is read, not matched
    /// against known spellings. A code is `MT:` (in either case, or percent-encoded as `MT%3A`) and the base-38 text
    /// after it, in either case; a `.` or `-` ending it is tried as the text's own (a sentence's full stop) too.
    static func qrCodeRanges(in bytes: UnsafeBufferPointer<UInt8>, passcodes: Set<Int>) -> [Range<Int>] {
        // The shortest code: the prefix and 19 base-38 characters.
        guard !passcodes.isEmpty, bytes.count >= 22 else { return [] }
        var ranges: [Range<Int>] = []
        var index = 0
        while index + 22 <= bytes.count {
            guard let prefixLength = qrPrefixLength(in: bytes, at: index) else {
                index += 1
                continue
            }
            let bodyStart = index + prefixLength
            var end = bodyStart
            while end < bytes.count, end - bodyStart < OnboardingPayload.maximumQRCodeLength, isQRCodeByte(bytes[end]) { end += 1 }
            var found: Int?
            var bodyEnd = end
            while bodyEnd - bodyStart >= 19 {
                let body = String(decoding: UnsafeBufferPointer(rebasing: bytes[bodyStart..<bodyEnd]), as: UTF8.self).uppercased()
                if let payloads = try? OnboardingPayload.parseQRCode("MT:" + body),
                    payloads.contains(where: { passcodes.contains(Int($0.passcode)) })
                {
                    found = bodyEnd
                    break
                }
                guard end - bodyEnd < 2, bytes[bodyEnd - 1] == UInt8(ascii: ".") || bytes[bodyEnd - 1] == UInt8(ascii: "-") else { break }
                bodyEnd -= 1
            }
            if let found { ranges.append(index..<found) }
            // Neither `:` nor `%` is base-38: no other code begins inside this one's text.
            index = max(end, index + 1)
        }
        return ranges
    }

    /// The length of the QR code prefix at `index` (`MT:` 3, `MT%3A` 5, in either case), or nil.
    private static func qrPrefixLength(in bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        guard bytes[index] | 0x20 == UInt8(ascii: "m"), bytes[index + 1] | 0x20 == UInt8(ascii: "t") else { return nil }
        if bytes[index + 2] == UInt8(ascii: ":") { return 3 }
        guard bytes[index + 2] == UInt8(ascii: "%"), bytes[index + 3] == UInt8(ascii: "3"), bytes[index + 4] | 0x20 == UInt8(ascii: "a")
        else { return nil }
        return 5
    }

    /// Whether `byte` may stand in a QR code's text after its prefix: base-38 (`0-9 A-Z - .`, here in either case)
    /// and `*`, which joins the payloads of several devices.
    private static func isQRCodeByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "*"):
            true
        default:
            false
        }
    }

    /// The first four bytes of every QR code prefix as ``quad(_:at:)`` reads them: `MT:` and a base-38 character, and
    /// `MT%3`, with `MT` in either case. Text with none of them holds no QR code.
    static let qrCodeQuads: [UInt32] = {
        let letters: [UInt8] = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-.*".utf8)
        var quads: [UInt32] = []
        for m in [UInt8(ascii: "M"), UInt8(ascii: "m")] {
            for t in [UInt8(ascii: "T"), UInt8(ascii: "t")] {
                quads.append(quad([m, t, UInt8(ascii: "%"), UInt8(ascii: "3")], at: 0))
                for letter in letters { quads.append(quad([m, t, UInt8(ascii: ":"), letter], at: 0)) }
            }
        }
        return quads
    }()
}
