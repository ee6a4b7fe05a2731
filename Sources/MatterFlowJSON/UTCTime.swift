/// Wall-clock times as people and logs read them, always in UTC, in the proleptic Gregorian calendar.
///
/// Written by arithmetic rather than by a `DateFormatter`: making one costs tens of microseconds (it loads a
/// locale's calendar and number formats), which a listing of many runs paid on every row.
public enum UTCTime {
    /// The first second of year 1 and the first second of year 10000, in seconds since the Unix epoch: the range of
    /// times ``dateTime(_:)`` and ``iso8601Milliseconds(_:)`` write as dates.
    static let writable: Range<Double> = -62_135_596_800..<253_402_300_800
    /// The first second of year 0 and the first second of year 10000: every time with a four-digit year.
    static let fourDigitYears: Range<Double> = -62_167_219_200..<253_402_300_800

    /// `seconds` since the Unix epoch as `2025-01-31 12:00:00`, the fraction dropped (times before the epoch round
    /// down, so that 1969-12-31 23:59:59.5 stays in its second).
    public static func dateTime(_ seconds: Double) -> String {
        guard writable.contains(seconds), let parts = Parts(seconds) else { return outOfRange(seconds) }
        return parts.date + " " + parts.time
    }

    /// `seconds` since the Unix epoch as ISO 8601 with milliseconds, `2025-01-31T12:00:00.250Z`, the rest of the
    /// fraction dropped.
    public static func iso8601Milliseconds(_ seconds: Double) -> String {
        guard writable.contains(seconds), let parts = Parts(seconds) else { return outOfRange(seconds) }
        return parts.date + "T" + parts.time + "." + digits(parts.milliseconds, 3) + "Z"
    }

    /// `seconds` since the Unix epoch as ISO 8601 to the second, `2025-01-31T12:00:00Z`, the fraction dropped; nil for
    /// a time outside the years 0 to 9999 (NaN included), which the caller words as it needs.
    public static func iso8601Seconds(_ seconds: Double) -> String? {
        Parts(seconds).map { $0.date + "T" + $0.time + "Z" }
    }

    /// What is written for a time no four-digit year holds (a damaged record, say): the number itself, marked, so
    /// that it is never taken for a date.
    private static func outOfRange(_ seconds: Double) -> String {
        "\(seconds) s since 1970 (out of range)"
    }

    /// A time split into calendar date and time of day.
    private struct Parts {
        var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, milliseconds: Int

        init?(_ seconds: Double) {
            guard UTCTime.fourDigitYears.contains(seconds) else { return nil }  // also false for NaN
            let wholeMilliseconds = Int((seconds * 1000).rounded(.down))
            let (wholeSeconds, milliseconds) = Self.floorDivision(wholeMilliseconds, 1000)
            let (days, secondOfDay) = Self.floorDivision(wholeSeconds, 86_400)
            (year, month, day) = Self.civil(daysSinceEpoch: days)
            hour = secondOfDay / 3600
            minute = secondOfDay / 60 % 60
            second = secondOfDay % 60
            self.milliseconds = milliseconds
        }

        var date: String { digits(year, 4) + "-" + digits(month, 2) + "-" + digits(day, 2) }
        var time: String { digits(hour, 2) + ":" + digits(minute, 2) + ":" + digits(second, 2) }

        /// Quotient and remainder rounded towards minus infinity: the remainder is never negative.
        static func floorDivision(_ value: Int, _ divisor: Int) -> (Int, Int) {
            let remainder = value % divisor
            return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
        }

        /// The Gregorian date `days` after 1970-01-01. Counts in 400-year eras starting on 1 March, so that the
        /// leap day is the last day of an era's year and every month but February has a fixed place.
        static func civil(daysSinceEpoch days: Int) -> (year: Int, month: Int, day: Int) {
            let shifted = days + 719_468  // days from 0000-03-01 to 1970-01-01
            let (era, dayOfEra) = floorDivision(shifted, 146_097)  // days in 400 years
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)  // from 1 March
            let monthFromMarch = (5 * dayOfYear + 2) / 153
            let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
            let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
            let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
            return (year, month, day)
        }
    }

    /// `value` (not negative) in decimal, zero-padded to at least `width` digits.
    private static func digits(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}
