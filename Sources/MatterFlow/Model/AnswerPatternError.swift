/// Why a text answer's `pattern` was refused: where in the pattern, and what to write instead.
///
/// The loader reports it at the pattern's JSON pointer as `invalidValue`; ``description`` names the position (the
/// 1-based character of the pattern), the construct and a way to say the same thing in the supported subset.
public struct AnswerPatternError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The 1-based position in the pattern (counted in Unicode scalars) where the problem starts.
    public var position: Int
    /// What is wrong and what to write instead.
    public var message: String

    /// An error at the 1-based `position` of the pattern (in Unicode scalars); `message` says what is wrong and what to
    /// write instead.
    public init(position: Int, _ message: String) {
        self.position = position
        self.message = message
    }

    /// `at character N of the pattern: message`.
    public var description: String { "at character \(position) of the pattern: \(message)" }
}
