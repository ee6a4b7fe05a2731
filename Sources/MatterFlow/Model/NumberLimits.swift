import MatterFlowJSON

/// The documented range of every kind of number MatterFlow reads from a workflow, home, fixture or the command
/// line.
///
/// Each numeric field is checked against one of these when its file is loaded, and a value outside is reported
/// as `numberOutOfRange` with the field's pointer and the range. The bounds keep everything computed from them
/// finite and exact: a retry's delays, a path's worst-case duration, a `Duration` in milliseconds, the simulated
/// hub's identifier counter. The tables in docs/workflow-language.md, docs/home-format.md and docs/fixtures.md list
/// the same ranges.
public enum NumberLimits {
    /// One day, the longest single span of time any file may describe.
    public static let longestSeconds: Double = 86_400

    /// Timeouts, retry intervals and delay caps, wait timeouts, deadlines, leases: 1 ms to one day.
    public static let duration = NumberRange(0.001...longestSeconds, unit: "seconds")

    /// Spans that may be zero: simulated latencies, commissioner times, fixture event times and delays, an
    /// expected elapsed time. 0 to one day.
    public static let elapsed = NumberRange(0...longestSeconds, unit: "seconds")

    /// `maxRetries` of a retry entry.
    public static let retries = NumberRange(integers: 0...100, unit: "retries")

    /// `backoffRate` of a retry entry: each delay is at most 10 times the one before.
    public static let backoffRate = NumberRange(1...10, unit: "factor")

    /// Counts of things and of calls: wrong keys, expected call counts, attempt numbers.
    public static let count = NumberRange(integers: 0...1_000_000, unit: "count")

    /// `maxBytes` of a catalog's string argument: 1 byte to 1 MiB of UTF-8.
    public static let argumentBytes = NumberRange(integers: 1...1_048_576, unit: "bytes")

    /// A point in time in seconds since 1970, up to the year 3000 (a persisted lease deadline).
    public static let epochSeconds = NumberRange(0...32_503_680_000, unit: "seconds since 1970")
}
