import MatterFlowJSON

extension Duration {
    /// The duration in seconds, as the fractional number JSON output, journals and reports use.
    public var secondsValue: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// The seconds as a message names them: `5` for a whole number, `0.25` otherwise (as JSON writes the number).
    public var secondsText: String {
        JSONWriter.compact(.double(secondsValue))
    }

    /// A duration from seconds as written in workflow and home files, to the millisecond.
    ///
    /// Files are range-checked when loaded (``NumberLimits``), so the seconds given here are at most a day, or a
    /// retry's delay computed from such numbers. Anything else is still converted without trapping: NaN and
    /// negative seconds give zero, and seconds beyond `Int64.max` milliseconds (292 million years) give that.
    public static func seconds(rounding seconds: Double) -> Duration {
        let milliseconds = (seconds * 1000).rounded()
        guard milliseconds > 0 else { return .zero }
        guard milliseconds < 9.2e18 else { return .milliseconds(Int64.max) }
        return .milliseconds(Int64(milliseconds))
    }
}
