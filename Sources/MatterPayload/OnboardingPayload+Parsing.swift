extension OnboardingPayload {
    /// The code as ASCII text: characters typed in full-width forms (`３４９７`, as a Japanese or Chinese input method
    /// types them) become the ASCII they stand for, and the rest stays as it is. Parsing reads a code so already; a
    /// hub that parses codes itself should be given this form.
    public static func halfWidthText(_ text: String) -> String {
        guard text.utf8.contains(where: { $0 >= 0x80 }) else { return text }
        return String(text.map(PayloadText.halfWidth))
    }

    /// Decodes a QR code or a manual pairing code into its payloads, without checking the specification's rules.
    ///
    /// - A QR code starts with `MT:`; several payloads may be joined with `*` (`MT:<p1>*<p2>`), giving one element
    ///   each, in order.
    /// - A manual pairing code is 11 or 21 digits; dashes and spaces between digits are ignored, so label groupings
    ///   such as `3497-011-2332` and `3497 011 2332` are accepted.
    ///
    /// Whitespace around the code is ignored, and full-width forms read as their ASCII (``halfWidthText(_:)``).
    /// Positions in errors (``PayloadError/position``) are 0-based character offsets into `text` as given; messages
    /// name them counting from 1 (`character 4` for offset 3). Text that would be a valid QR code with `MT:` in
    /// front is refused as `unrecognizedFormat` saying so. Parsing never traps, whatever the input.
    ///
    /// Use ``validate()`` on each result to check the rules, or ``decode(_:)`` to do both.
    ///
    /// - Throws: ``PayloadError`` for the first structural problem: an unknown format, a bad base-38 character or
    ///   length, a wrong check digit, and so on. For a `*`-joined QR code, ``PayloadError/payloadIndex`` says which
    ///   payload failed.
    public static func parse(_ text: String) throws(PayloadError) -> [OnboardingPayload] {
        let input = TrimmedInput(text)
        switch try input.kind() {
        case .qr: return try parseQR(input)
        case .manual:
            do throws(PayloadError) {
                return [try parseManual(input)]
            } catch {
                // A QR code whose base-38 text starts with a digit, copied without its `MT:`.
                throw input.missingPrefixError() ?? error
            }
        }
    }

    /// Decodes a QR code (`MT:` followed by one or more `*`-joined base-38 payloads).
    ///
    /// - Throws: ``PayloadError``; `unrecognizedFormat` if `text` does not start with `MT:`.
    public static func parseQRCode(_ text: String) throws(PayloadError) -> [OnboardingPayload] {
        let input = TrimmedInput(text)
        guard try input.kind() == .qr else {
            throw input.missingPrefixError() ?? input.formatError(expected: "a QR code starting with 'MT:'")
        }
        return try parseQR(input)
    }

    /// Decodes a manual pairing code of 11 or 21 digits (dashes and spaces between digits allowed).
    ///
    /// - Throws: ``PayloadError``; `unrecognizedFormat` if `text` is a QR code.
    public static func parseManualCode(_ text: String) throws(PayloadError) -> OnboardingPayload {
        let input = TrimmedInput(text)
        guard try input.kind() == .manual else {
            throw input.formatError(expected: "a manual pairing code of 11 or 21 digits")
        }
        return try parseManual(input)
    }

    /// Parses `text` and checks every payload against the rules for its kind.
    ///
    /// - Returns: The payloads, all valid.
    /// - Throws: ``PayloadValidationError`` holding the parse error, or every rule broken by every payload (each
    ///   error's ``PayloadError/payloadIndex`` is set when the input held several payloads).
    public static func decode(_ text: String) throws(PayloadValidationError) -> [OnboardingPayload] {
        let payloads: [OnboardingPayload]
        do {
            payloads = try parse(text)
        } catch {
            throw PayloadValidationError([error])
        }
        var problems: [PayloadError] = []
        for (index, payload) in payloads.enumerated() {
            let found = payload.validate()
            problems += payloads.count > 1 ? found.map { $0.inPayload(index) } : found
        }
        guard problems.isEmpty else { throw PayloadValidationError(problems) }
        return payloads
    }

    /// The kind of code `text` looks like, or `nil`: QR for an `MT:` prefix, manual for text that starts with a
    /// digit or holds only digits, dashes and spaces (surrounding whitespace ignored).
    ///
    /// This does not check that the code decodes.
    public static func kind(of text: String) -> PayloadKind? {
        try? TrimmedInput(text).kind()
    }

    /// The payload the bytes of a QR code's body hold (its base-38 text decoded), read from their fixed fields (the
    /// first 11 bytes; optional data after them is kept as it is); nil when there are fewer. Nothing is validated:
    /// ``decode(_:)`` does that for text.
    public static func unpackingQRBytes(_ bytes: [UInt8]) -> OnboardingPayload? {
        QRPayloadLayout.unpack(bytes)
    }

    /// The most characters a QR code symbol holds in its alphanumeric mode (version 40, error correction L).
    public static let maximumQRCodeLength = 4_296

    private static func parseQR(_ input: TrimmedInput) throws(PayloadError) -> [OnboardingPayload] {
        guard input.end - input.start <= maximumQRCodeLength else {
            throw PayloadError(
                code: .qrCodeTooLong,
                message: "the QR code text has \(input.end - input.start) characters, more than any QR code holds (\(maximumQRCodeLength)); copy the code as printed",
                position: input.start + maximumQRCodeLength)
        }
        let bodyStart = input.start + QRPayloadLayout.prefix.utf8.count
        let separator = UInt8(ascii: QRPayloadLayout.separator)
        let isJoined = (bodyStart..<input.end).contains { input.text.ascii(at: $0) == separator }

        var payloads: [OnboardingPayload] = []
        var segmentStart = bodyStart
        for index in bodyStart...input.end where index == input.end || input.text.ascii(at: index) == separator {
            do throws(PayloadError) {
                payloads.append(try parseQRSegment(input.text, segmentStart..<index))
            } catch {
                throw isJoined ? error.inPayload(payloads.count) : error
            }
            segmentStart = index + 1
        }
        return payloads
    }

    private static func parseQRSegment(_ text: PayloadText, _ segment: Range<Int>) throws(PayloadError)
        -> OnboardingPayload
    {
        guard !segment.isEmpty else {
            throw PayloadError(
                code: .emptyQRPayload, message: "there is no payload text at \(characterPlace(segment.lowerBound))",
                position: segment.lowerBound)
        }
        let bytes = try Base38.decode(text, segment)
        guard let payload = QRPayloadLayout.unpack(bytes) else {
            throw PayloadError(
                code: .qrPayloadTooShort,
                message: "the payload at \(characterPlace(segment.lowerBound)) decodes to \(bytes.count) bytes; a QR payload "
                    + "needs at least \(QRPayloadLayout.fixedByteCount) (19 base-38 characters)",
                position: segment.lowerBound, expected: String(QRPayloadLayout.fixedByteCount),
                found: String(bytes.count))
        }
        return payload
    }

    private static func parseManual(_ input: TrimmedInput) throws(PayloadError) -> OnboardingPayload {
        var digits: [ManualCodeLayout.Digit] = []
        digits.reserveCapacity(ManualCodeLayout.longLength)
        for index in input.start..<input.end {
            if let value = input.text.digitValue(at: index) {
                digits.append(ManualCodeLayout.Digit(value: value, position: index))
            } else if !input.isManualSeparator(at: index) {
                let character = input.text[index]
                throw PayloadError(
                    code: .invalidManualCodeCharacter,
                    message: "\(characterKind(character)) at \(characterPlace(index)) is not allowed in a manual pairing "
                        + "code (only digits, dashes and spaces)",
                    position: index)
            }
        }
        return try ManualCodeLayout.decode(digits)
    }
}

/// Input text with surrounding whitespace located (not removed, so positions stay those of the original text).
private struct TrimmedInput {
    let text: PayloadText
    /// Offset of the first character that is not whitespace.
    let start: Int
    /// Offset just past the last character that is not whitespace.
    let end: Int

    init(_ text: String) {
        self.text = PayloadText(text)
        var first = 0
        while first < self.text.count, self.text.isWhitespace(at: first) { first += 1 }
        var last = self.text.count
        while last > first, self.text.isWhitespace(at: last - 1) { last -= 1 }
        start = first
        end = last
    }

    /// Whether the character at `index` may separate the digits of a manual code: a dash or a space.
    func isManualSeparator(at index: Int) -> Bool {
        let ascii = text.ascii(at: index)
        return ascii == UInt8(ascii: "-") || ascii == UInt8(ascii: " ")
    }

    /// Whether the character at `index` is a digit, dash or space.
    private func fitsManualCode(at index: Int) -> Bool {
        text.digitValue(at: index) != nil || isManualSeparator(at: index)
    }

    /// QR when the text starts with `MT:`; manual when it starts with a digit, or holds only digits, dashes and
    /// spaces.
    func kind() throws(PayloadError) -> PayloadKind {
        guard start < end else {
            throw PayloadError(code: .emptyInput, message: "the payload text is empty")
        }
        let prefix = QRPayloadLayout.prefix.utf8
        if end - start >= prefix.count, zip(start..., prefix).allSatisfy({ text.ascii(at: $0) == $1 }) {
            return .qr
        }
        // The prefix in another case ("mt:", "Mt:"): the code was retyped, not copied.
        if end - start >= prefix.count, zip(start..., prefix).allSatisfy({ (text.ascii(at: $0) ?? 0) | 0x20 == $1 | 0x20 }) {
            throw PayloadError(
                code: .unrecognizedFormat,
                message: "a QR code starts with \"MT:\" in capitals, and its other letters are case-sensitive too (base-38); copy the code as printed",
                position: start)
        }
        // Starting with a digit is enough to call it a manual code, so that a stray letter in one is reported
        // as a bad character of a manual code, at its index.
        let body = start..<end
        if text.digitValue(at: start) != nil
            || (body.contains { text.digitValue(at: $0) != nil } && body.allSatisfy { fitsManualCode(at: $0) })
        {
            return .manual
        }
        throw missingPrefixError()
            ?? formatError(expected: "a QR code starting with 'MT:' or a manual pairing code of 11 or 21 digits")
    }

    /// An `unrecognizedFormat` error saying to put `MT:` in front, when the text is a valid QR code with it; nil
    /// otherwise. The code is not quoted with its prefix, as a suggestion would: it encodes the setup passcode.
    func missingPrefixError() -> PayloadError? {
        let body = String((start..<end).map { text[$0] })
        guard (try? OnboardingPayload.decode(QRPayloadLayout.prefix + body)) != nil else { return nil }
        return PayloadError(
            code: .unrecognizedFormat,
            message: "a QR code starts with 'MT:', and this text is a valid QR code without it; add 'MT:' in front",
            position: start)
    }

    /// An `unrecognizedFormat` error pointing at the first character that fits neither format.
    func formatError(expected: String) -> PayloadError {
        if let offending = (start..<end).first(where: { !fitsManualCode(at: $0) }) {
            return PayloadError(
                code: .unrecognizedFormat,
                message: "expected \(expected); \(characterKind(text[offending])) at \(characterPlace(offending)) "
                    + "is not a digit, dash or space",
                position: offending)
        }
        return PayloadError(code: .unrecognizedFormat, message: "expected \(expected)", position: start)
    }
}
