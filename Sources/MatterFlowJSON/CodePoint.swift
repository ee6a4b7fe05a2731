extension Unicode.Scalar {
    /// The code point as Unicode writes it: `U+00E9`, `U+1F600`.
    public var codePoint: String {
        let hex = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// The code point and the scalar's Unicode name, `U+200B ZERO WIDTH SPACE`: what names a character that looks
    /// like another, or like nothing, in a message. The code point alone for a scalar without a name.
    public var codePointAndName: String {
        properties.name.map { codePoint + " " + $0 } ?? codePoint
    }
}
