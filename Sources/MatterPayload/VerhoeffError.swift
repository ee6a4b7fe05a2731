/// Why a string failed a ``Verhoeff`` computation or check.
public struct VerhoeffError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The failed rule, as a stable string.
    public var code: Code
    /// What is wrong and where.
    public var message: String
    /// The 0-based character offset of the problem, when there is one.
    public var position: Int?
    /// The correct check digit, for a mismatch.
    public var expected: Character?
    /// The check digit that was found, for a mismatch.
    public var found: Character?

    /// Creates an error from its parts.
    public init(
        code: Code, message: String, position: Int?, expected: Character? = nil, found: Character? = nil
    ) {
        self.code = code
        self.message = message
        self.position = position
        self.expected = expected
        self.found = found
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }

    /// A stable identifier for a Verhoeff failure.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code as a string.
        public var rawValue: String

        /// Creates a code from its string; use the static members.
        public init(rawValue: String) { self.rawValue = rawValue }

        /// The same as ``rawValue``.
        public var description: String { rawValue }

        /// The string to check is empty.
        public static let empty = Code(rawValue: "verhoeffEmpty")
        /// A character is not an ASCII decimal digit.
        public static let nonDigit = Code(rawValue: "verhoeffNonDigit")
        /// The last digit is not the check digit of the others.
        public static let checkDigitMismatch = Code(rawValue: "verhoeffCheckDigitMismatch")
    }
}
