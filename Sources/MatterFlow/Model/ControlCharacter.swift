import MatterFlowJSON

/// A control character in text a device is to keep (a name bounded by `maxBytes`): a device refuses one, and it is
/// most often the CR a file with CRLF line ends left at the end of a line.
public struct ControlCharacter: Sendable, Equatable {
    /// Its place in the text, counting code points from 1.
    public var position: Int
    /// Its code point.
    public var scalar: Unicode.Scalar

    /// `U+000D`.
    public var code: String { scalar.codePoint }

    /// What to do about one.
    public static let remedy = "remove it (a line read from a file with CRLF line ends keeps its CR: strip it, as `tr -d '\\r'` does)"

    /// The first C0 or C1 control character of `text` (U+0000...U+001F, U+007F...U+009F), or nil.
    public static func first(in text: String) -> ControlCharacter? {
        var position = 0
        for scalar in text.unicodeScalars {
            position += 1
            if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return ControlCharacter(position: position, scalar: scalar) }
        }
        return nil
    }
}
