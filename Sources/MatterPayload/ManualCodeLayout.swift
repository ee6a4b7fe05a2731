/// The digit layout of manual pairing codes.
///
/// | digits | content                                                                                |
/// |--------|----------------------------------------------------------------------------------------|
/// | 1      | bit 3 version (0), bit 2 VID/PID present, bits 1–0 short discriminator bits 3–2          |
/// | 2–6    | 16 bits: short discriminator bits 1–0 in bits 15–14, passcode bits 13–0 in bits 13–0    |
/// | 7–10   | 13 bits: passcode bits 26–14                                                            |
/// | 11–15  | vendor ID, zero-padded (21-digit form only)                                            |
/// | 16–20  | product ID, zero-padded (21-digit form only)                                           |
/// | last   | Verhoeff check digit of all digits before it                                           |
enum ManualCodeLayout {
    /// Digits in the short form, check digit included.
    static let shortLength = 11
    /// Digits in the long form (with vendor and product IDs), check digit included.
    static let longLength = 21

    /// A digit of the input and where it was.
    struct Digit {
        var value: Int
        var position: Int
    }

    /// The digits of `payload` as a code without separators; 21 digits when `long`.
    ///
    /// Fields wider than their digits are masked; callers validate first.
    static func encode(_ payload: OnboardingPayload, long: Bool) -> String {
        let short = Int(payload.discriminator.shortValue)
        let passcode = Int(payload.passcode & 0x7FF_FFFF)
        let chunk1 = (long ? 1 << 2 : 0) | (short >> 2)
        let chunk2 = ((short & 0x3) << 14) | (passcode & 0x3FFF)
        let chunk3 = passcode >> 14
        var text = padded(chunk1, width: 1) + padded(chunk2, width: 5) + padded(chunk3, width: 4)
        if long {
            text += padded(Int(payload.vendorID ?? 0), width: 5) + padded(Int(payload.productID ?? 0), width: 5)
        }
        // `text` is all digits, so the check digit always exists.
        let values = text.compactMap(asciiDigitValue)
        let check = Verhoeff.checkDigit(forDigitValues: values) ?? 0
        return text + String(check)
    }

    /// Decodes 11 or 21 digits (check digit included) into a manual-kind payload.
    static func decode(_ digits: [Digit]) throws(PayloadError) -> OnboardingPayload {
        guard digits.count == shortLength || digits.count == longLength, let checkDigit = digits.last else {
            throw PayloadError(
                code: .invalidManualCodeLength,
                message: "a manual pairing code has 11 or 21 digits, found \(digits.count)",
                position: digits.first?.position, found: String(digits.count))
        }

        let body = Array(digits.dropLast())
        let expected = Verhoeff.checkDigit(forDigitValues: body.map(\.value)) ?? 0
        guard expected == checkDigit.value else {
            throw PayloadError(
                code: .checkDigitMismatch,
                message: "the check digit at \(characterPlace(checkDigit.position)) does not match the digits before it "
                    + "(Verhoeff); a digit was probably mistyped or two were swapped",
                position: checkDigit.position, field: .checkDigit)
        }

        let first = body[0]
        guard first.value <= 7 else {
            throw PayloadError(
                code: .unsupportedManualCodeVersion,
                message: "the first digit (\(characterPlace(first.position))) marks a manual-code version newer than 0 (it must "
                    + "be 0-7)",
                position: first.position, field: .version, expected: "0-7")
        }
        let isLong = first.value & 0b100 != 0
        let expectedLength = isLong ? longLength : shortLength
        guard digits.count == expectedLength else {
            throw PayloadError(
                code: .manualCodeLengthMismatch,
                message: "the first digit (\(characterPlace(first.position))) says the vendor and product IDs are "
                    + (isLong ? "present" : "absent") + ", which needs \(expectedLength) digits, but the code has "
                    + "\(digits.count)",
                position: first.position, expected: String(expectedLength), found: String(digits.count))
        }

        let chunk2 = try number(body, 1..<6, limit: 0xFFFF, code: .manualChunkOutOfRange, what: "digits 2-6")
        let chunk3 = try number(body, 6..<10, limit: 0x1FFF, code: .manualChunkOutOfRange, what: "digits 7-10")
        let short = ((first.value & 0b11) << 2) | (chunk2 >> 14)
        let passcode = (chunk3 << 14) | (chunk2 & 0x3FFF)

        var vendorID: UInt16?
        var productID: UInt16?
        if isLong {
            vendorID = UInt16(
                truncatingIfNeeded: try number(
                    body, 10..<15, limit: 0xFFFF, code: .vendorIDOutOfRange, what: "vendor ID digits 11-15"))
            productID = UInt16(
                truncatingIfNeeded: try number(
                    body, 15..<20, limit: 0xFFFF, code: .productIDOutOfRange, what: "product ID digits 16-20"))
        }
        return OnboardingPayload(
            kind: .manual, version: 0, vendorID: vendorID, productID: productID,
            commissioningFlow: isLong ? .custom : .standard, discoveryCapabilities: nil,
            discriminator: .short(UInt8(truncatingIfNeeded: short)), passcode: UInt32(truncatingIfNeeded: passcode))
    }

    /// The decimal number in `digits[range]`, which must not exceed `limit`.
    ///
    /// The message names the digits' place, never their value: they are digits of the code.
    private static func number(
        _ digits: [Digit], _ range: Range<Int>, limit: Int, code: PayloadError.Code, what: String
    ) throws(PayloadError) -> Int {
        let value = digits[range].reduce(0) { $0 * 10 + $1.value }
        guard value <= limit else {
            let position = digits[range.lowerBound].position
            let field: PayloadError.Field? =
                switch code {
                case .vendorIDOutOfRange: .vendorID
                case .productIDOutOfRange: .productID
                default: nil
                }
            throw PayloadError(
                code: code,
                message: "\(what) starting at \(characterPlace(position)) hold a number more than the maximum \(limit)",
                position: position, field: field, expected: "0-\(limit)")
        }
        return value
    }

    /// `value` in decimal, zero-padded to `width` digits.
    static func padded(_ value: Int, width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }
}
