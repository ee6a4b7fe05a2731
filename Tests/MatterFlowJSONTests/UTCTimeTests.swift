import Foundation
import Testing

@testable import MatterFlowJSON

/// Times in `runs` listings and JSON worker logs: written by arithmetic, they must read exactly as the POSIX-locale
/// `DateFormatter` in UTC writes them. Before 15 October 1582 that formatter's Gregorian calendar turns Julian,
/// where ISO 8601 (and this writer) keeps counting Gregorian days: the comparison starts there.
@Suite struct UTCTimeTests {
    static func formatter(_ pattern: String) -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.calendar = Calendar(identifier: .gregorian)
        formatter.dateFormat = pattern
        return formatter
    }

    static let dateTime = formatter("yyyy-MM-dd HH:mm:ss")
    static let iso = formatter("yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")

    @Test func knownTimes() {
        #expect(UTCTime.dateTime(0) == "1970-01-01 00:00:00")
        #expect(UTCTime.dateTime(1_738_324_800) == "2025-01-31 12:00:00")
        #expect(UTCTime.dateTime(951_782_400) == "2000-02-29 00:00:00")  // a leap day of a century divisible by 400
        #expect(UTCTime.dateTime(-2_203_891_200) == "1900-03-01 00:00:00")  // 1900 has no 29 February
        #expect(UTCTime.dateTime(-0.5) == "1969-12-31 23:59:59")  // before the epoch the fraction rounds down
        #expect(UTCTime.iso8601Milliseconds(-0.0005) == "1969-12-31T23:59:59.999Z")
        #expect(UTCTime.iso8601Milliseconds(1_738_324_800.25) == "2025-01-31T12:00:00.250Z")
        #expect(UTCTime.dateTime(-62_135_596_800) == "0001-01-01 00:00:00")
        #expect(UTCTime.dateTime(253_402_300_799) == "9999-12-31 23:59:59")
    }

    /// A damaged record's time (a journal file edited by hand, say) is shown as the number it is, never as a date
    /// and never a trap.
    @Test func timesNoFourDigitYearHolds() {
        for seconds in [253_402_300_800, -62_135_596_801, 1e300, -1e300, .infinity, -.infinity, .nan] as [Double] {
            #expect(UTCTime.dateTime(seconds).hasSuffix("s since 1970 (out of range)"), "\(seconds)")
            #expect(UTCTime.iso8601Milliseconds(seconds).hasSuffix("s since 1970 (out of range)"), "\(seconds)")
        }
        // To the second (session holders' messages): the years 0 to 9999, nil outside for the caller to word.
        #expect(UTCTime.iso8601Seconds(-62_167_219_200) == "0000-01-01T00:00:00Z")
        #expect(UTCTime.iso8601Seconds(253_402_300_799.9) == "9999-12-31T23:59:59Z")
        for seconds in [-62_167_219_201, 253_402_300_800, .nan, .infinity] as [Double] {
            #expect(UTCTime.iso8601Seconds(seconds) == nil, "\(seconds)")
        }
    }

    /// Every 97th day boundary from 1582 to 2627 and the last millisecond before it, and 20,000 random times.
    /// Fractions sit 0.4 ms into their millisecond: a time a rounding error away from a millisecond's edge may be
    /// written either side of it.
    @Test func agreesWithDateFormatter() {
        for day in stride(from: -141_426, through: 240_000, by: 97) {
            let seconds = Double(day) * 86_400
            for offset in [0.0, -0.0006, 86_399.9994, 0.5, 0.25] {
                let date = Date(timeIntervalSince1970: seconds + offset)
                #expect(UTCTime.dateTime(seconds + offset) == Self.dateTime.string(from: date))
                #expect(UTCTime.iso8601Milliseconds(seconds + offset) == Self.iso.string(from: date))
            }
        }
        var random = SplitMix(seed: 20_261_206)
        for _ in 0..<20_000 {
            let milliseconds = Int64.random(in: -5_000_000_000_000...6_000_000_000_000, using: &random)
            let seconds = Double(milliseconds) / 1000 + 0.0004
            let date = Date(timeIntervalSince1970: seconds)
            #expect(UTCTime.dateTime(seconds) == Self.dateTime.string(from: date), "\(seconds)")
            #expect(UTCTime.iso8601Milliseconds(seconds) == Self.iso.string(from: date), "\(seconds)")
        }
    }
}

/// A seeded generator, so that a failure can be replayed.
private struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
