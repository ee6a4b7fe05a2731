/// The values a number read from a file or the command line may take: finite, between two bounds, and whole
/// when it counts something.
///
/// Every numeric field of every format MatterFlow reads is checked against one of these when it is loaded, so
/// that nothing downstream (durations, retry sums, identifier counters) can overflow. A value outside is reported
/// with the field, the value as written and the range, as in
/// `/states/x/timeoutSeconds: 1e+18 is outside 0.001...86400 (seconds)`.
public struct NumberRange: Sendable, Hashable, CustomStringConvertible {
    /// The smallest allowed value.
    public let lowerBound: Double
    /// The largest allowed value.
    public let upperBound: Double
    /// Whether only whole numbers are allowed.
    public let wholeNumbers: Bool
    /// What the number counts, for messages: `"seconds"`, `"retries"`; nil for a plain number.
    public let unit: String?

    /// A range of fractional numbers, such as durations in seconds.
    public init(_ bounds: ClosedRange<Double>, unit: String? = nil) {
        lowerBound = bounds.lowerBound
        upperBound = bounds.upperBound
        wholeNumbers = false
        self.unit = unit
    }

    /// A range of whole numbers, such as counts and identifiers. Its bounds must lie within ±2^53, where every
    /// whole number is exact as a `Double`.
    public init(integers bounds: ClosedRange<Int>, unit: String? = nil) {
        precondition(
            bounds.lowerBound >= -Self.largestExactInteger && bounds.upperBound <= Self.largestExactInteger,
            "integer ranges must lie within ±2^53")
        lowerBound = Double(bounds.lowerBound)
        upperBound = Double(bounds.upperBound)
        wholeNumbers = true
        self.unit = unit
    }

    /// 2^53: every whole number up to this is exact as a `Double`.
    public static let largestExactInteger = 1 << 53

    /// The bounds as written in messages and documentation: `0.001...86400 (seconds)`.
    public var description: String {
        "\(Self.format(lowerBound))...\(Self.format(upperBound))" + (unit.map { " (\($0))" } ?? "")
    }

    /// Whether `value` is finite, within the bounds and, for whole-number ranges, whole.
    public func contains(_ value: Double) -> Bool {
        value.isFinite && value >= lowerBound && value <= upperBound && (!wholeNumbers || value.rounded() == value)
    }

    /// Whether `value` is within the bounds.
    public func contains(_ value: Int) -> Bool {
        // Whole-number bounds lie within ±2^53, so they convert to Int exactly; fractional bounds are compared as
        // doubles (an integer far beyond 2^53 is outside every range either way).
        guard wholeNumbers else { return contains(Double(value)) }
        return value >= Int(lowerBound) && value <= Int(upperBound)
    }

    /// Why `value` is not allowed, or nil when it is: `1e+18 is outside 0.001...86400 (seconds); use a value in
    /// that range`, or `2.5 is not a whole number; write one in 0...100 (retries)`.
    public func problem(with value: Double) -> String? {
        guard !contains(value) else { return nil }
        if value.isFinite, value >= lowerBound, value <= upperBound {
            return "\(Self.format(value)) is not a whole number; write one in \(self)"
        }
        return "\(Self.format(value)) is outside \(self); use a value in that range"
    }

    /// Whether `text`, a number as written, read as `value` lost it to underflow: `value` is 0 though the digits
    /// before its exponent are not all 0 (`1e-400`, too close to 0 for a 64-bit float).
    public static func underflows(_ text: some StringProtocol, readAs value: Double) -> Bool {
        value == 0 && text.prefix { $0 != "e" && $0 != "E" }.contains { ("1"..."9").contains($0) }
    }

    /// Why `value` is not allowed, or nil when it is.
    public func problem(with value: Int) -> String? {
        contains(value) ? nil : "\(value) is outside \(self); use a value in that range"
    }

    /// A number as people write it: whole numbers up to 2^53 without a fraction, others in Swift's shortest
    /// exact form (`1e+18`, `0.001`, `nan`).
    public static func format(_ value: Double) -> String {
        if value.isFinite, value == value.rounded(), abs(value) <= Double(largestExactInteger) {
            return String(Int(value))
        }
        return String(value)
    }
}
