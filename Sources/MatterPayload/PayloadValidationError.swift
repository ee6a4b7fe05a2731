/// Everything that stops a payload from being used: one parse error, or every validation rule that failed.
///
/// Thrown by ``OnboardingPayload/decode(_:)`` and by the generators (``OnboardingPayload/qrCode()``,
/// ``OnboardingPayload/manualCode(grouped:)``), which refuse to encode fields that break a rule.
public struct PayloadValidationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The problems, in the order found. Never empty.
    public var errors: [PayloadError]

    /// Wraps a non-empty list of problems.
    public init(_ errors: [PayloadError]) {
        self.errors = errors
    }

    /// The stable codes of all problems, in order.
    public var codes: [PayloadError.Code] { errors.map(\.code) }

    /// The first problem, which is the one a one-line report should show.
    public var first: PayloadError? { errors.first }

    /// One problem per line.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }
}
