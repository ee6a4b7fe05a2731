import MatterFlowJSON

extension Timestamp {
    /// A moment as an ISO-8601 timestamp in UTC to the second, `2026-12-01T20:30:00Z` (the form `delay` states read),
    /// for messages. A moment outside the years 0 to 9999 is given in seconds since 1970 instead.
    public static func text(epochSeconds seconds: Double) -> String {
        UTCTime.iso8601Seconds(seconds) ?? "\(seconds) s after 1970"
    }
}
