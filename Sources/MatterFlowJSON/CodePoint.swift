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

extension StringProtocol {
    /// The code points of the text outside ASCII, `U+0065 U+0301`, or `ASCII only`: what tells apart two spellings
    /// of the same characters (`é` composed, or `e` and a combining accent), which print alike.
    public var codePointsOutsideASCII: String {
        let outside = unicodeScalars.filter { !$0.isASCII }.map(\.codePoint)
        return outside.isEmpty ? "ASCII only" : outside.joined(separator: " ")
    }
}
