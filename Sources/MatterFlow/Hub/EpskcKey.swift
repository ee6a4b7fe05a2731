import MatterPayload

/// An ephemeral PSKc (ePSKc): the one-time key a border router issues so that a commissioner can fetch the Thread
/// network's credentials.
///
/// The key is what OpenThread and OTBR call a TAP: nine decimal digits, eight drawn at random and a ninth that is
/// their Verhoeff check digit, so that a mistyped key is caught before a connection is even tried.
///
/// The key is a secret: ``description`` never shows it. Read ``revealedDigits`` to hand it to the user.
public struct EpskcKey: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The number of digits of a key, check digit included (`OT_BORDER_AGENT_EPHEMERAL_KEY_TAP_STRING_LENGTH`).
    public static let length = 9
    /// The number of random digits; the last digit is their check digit.
    public static let randomDigits = 8

    /// The nine digits. A secret: show it only to the person who shares the credentials.
    public let revealedDigits: String

    /// Checks a key typed or received as text.
    /// - Throws: ``FlowError`` `invalidArgumentValue` when the text is not nine ASCII digits, or when its last digit
    ///   is not the Verhoeff check digit of the first eight. The message never repeats the key.
    public init(validating text: String) throws(FlowError) {
        guard text.utf8.count == Self.length, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            throw FlowError(
                .invalidArgumentValue,
                "an ePSKc is \(Self.length) decimal digits (\(Self.randomDigits) random digits and a Verhoeff check digit)")
        }
        guard Verhoeff.isValid(text) else {
            throw FlowError(
                .invalidArgumentValue,
                "the ePSKc's last digit is not the Verhoeff check digit of the first \(Self.randomDigits); check for a mistyped digit")
        }
        revealedDigits = text
    }

    private init(checkedDigits: String) {
        revealedDigits = checkedDigits
    }

    /// Draws a new key: eight digits, each uniform in 0...9 without modulo bias (``RandomSource/uniform(below:)``
    /// rejects the top of the word range), then the Verhoeff check digit.
    ///
    /// - Parameter random: The source of the digits. Border routers use a cryptographically secure one
    ///   (``SystemRandomSource``); tests pass a seeded or scripted one.
    public static func generate(using random: any RandomSource) -> EpskcKey {
        let values = (0..<randomDigits).map { _ in Int(random.uniform(below: 10)) }
        guard let check = Verhoeff.checkDigit(forDigitValues: values) else {
            preconditionFailure("digits drawn below 10 always have a Verhoeff check digit")
        }
        return EpskcKey(checkedDigits: (values + [check]).map(String.init).joined())
    }

    /// Whether a key offered by a commissioner is this one. Compares every digit, whatever the first difference,
    /// so the time taken does not tell how much of a guess was right.
    public func matches(_ candidate: String) -> Bool {
        let mine = Array(revealedDigits.utf8)
        let theirs = Array(candidate.utf8)
        guard mine.count == theirs.count else { return false }
        var difference: UInt8 = 0
        for (left, right) in zip(mine, theirs) { difference |= left ^ right }
        return difference == 0
    }

    /// Always `<redacted>`: the key is a secret.
    public var description: String { RunOptions.redacted }

    /// Always `EpskcKey(<redacted>)`: the key is a secret.
    public var debugDescription: String { "EpskcKey(\(RunOptions.redacted))" }
}
