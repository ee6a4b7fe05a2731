import Foundation

/// Wall-clock times as people and logs read them, always in UTC.
public enum UTCTime {
    /// `seconds` since the Unix epoch written with `format` (a `DateFormatter` pattern) in UTC, with the POSIX locale
    /// so that it reads the same on every machine.
    public static func text(_ seconds: Double, format: String) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = format
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }
}
