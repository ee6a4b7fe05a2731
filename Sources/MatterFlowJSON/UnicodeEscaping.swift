/// Writing chosen Unicode scalars of a text as `\uXXXX` escapes, the escape JSON uses, so the text shows them
/// instead of acting on them (a line break that would start a new line, a control character a terminal obeys).
public enum UnicodeEscaping {
    /// `text` with every scalar for which `needsEscape` is true written as `\uXXXX` (lowercase hex, at least four
    /// digits); the text itself when none is.
    public static func escaping(_ text: String, where needsEscape: (Unicode.Scalar) -> Bool) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            result.append(contentsOf: "\\u\(String(repeating: "0", count: max(0, 4 - hex.count)))\(hex)".unicodeScalars)
        }
        return String(result)
    }
}
