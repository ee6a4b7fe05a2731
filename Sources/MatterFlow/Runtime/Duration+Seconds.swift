extension Duration {
    /// The duration in seconds, as the fractional number JSON output, journals and reports use.
    public var secondsValue: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// A duration from seconds as written in workflow and home files, to the millisecond.
    public static func seconds(rounding seconds: Double) -> Duration {
        .milliseconds(Int64((seconds * 1000).rounded()))
    }
}
