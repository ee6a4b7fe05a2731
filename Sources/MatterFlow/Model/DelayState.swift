import MatterFlowJSON

/// Wait a fixed time, or until a moment taken from a variable, on the run's clock (so virtual time passes it at
/// once); a cancel during the delay takes the cancel path.
public struct DelayState: Sendable {
    /// How long the delay lasts.
    public enum Length: Sendable {
        /// A fixed number of seconds.
        case seconds(Double)
        /// Until a moment: an ISO-8601 timestamp (`2026-12-01T20:30:00Z`, an offset such as `+01:00` instead of `Z`,
        /// optional fraction of a second) or seconds since 1970, from a template; `maxSeconds` bounds the wait, so
        /// the verifier can bound every path.
        case until(Template, maxSeconds: Double)
    }

    /// How long the delay lasts: a fixed time, or until a moment.
    public var length: Length
    /// The state after the delay.
    public var next: String
    /// Where a moment that does not evaluate, is malformed, or lies further than `maxSeconds` ahead leads
    /// (`invalidArgument`/`invalidArgumentValue`); without a matching route the level fails with it.
    public var onError: [ErrorRoute]

    /// The longest the delay can last.
    public var maxSeconds: Double {
        switch length {
        case .seconds(let seconds): seconds
        case .until(_, let maxSeconds): maxSeconds
        }
    }
}

/// Why a value is not a moment.
public struct TimestampError: Error, Sendable {
    /// What is wrong with the value.
    public var message: String

    init(_ message: String) {
        self.message = message
    }
}

/// Reads moments for `delay` states: ISO-8601 timestamps and seconds since 1970.
public enum Timestamp {
    /// Seconds since 1970 of a JSON value, or why it is not a moment.
    public static func epochSeconds(of value: JSONValue) -> Result<Double, TimestampError> {
        switch value {
        case .int(let seconds): return check(Double(seconds))
        case .double(let seconds): return check(seconds)
        case .string(let text): return parse(text).flatMap(check)
        case .null, .bool, .array, .object:
            return .failure(TimestampError("a moment is an ISO-8601 timestamp (\"2026-12-01T20:30:00Z\") or seconds since 1970, not \(value.typeName)"))
        }
    }

    private static func check(_ seconds: Double) -> Result<Double, TimestampError> {
        NumberLimits.epochSeconds.contains(seconds)
            ? .success(seconds) : .failure(TimestampError("\(seconds) is outside \(NumberLimits.epochSeconds) seconds since 1970"))
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
    static func parse(_ text: String) -> Result<Double, TimestampError> {
        let failure = Result<Double, TimestampError>.failure(TimestampError(
            "\"\(text.prefix(64))\" is not an ISO-8601 timestamp such as \"2026-12-01T20:30:00Z\" (a date, \"T\", a time and \"Z\" or an offset)"))
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40 else { return failure }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard index < bytes.count, (48...57).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 48)
            }
            return value
        }
        func byte(_ index: Int, _ expected: Character) -> Bool { index < bytes.count && bytes[index] == expected.asciiValue }
        guard let year = number(0..<4), byte(4, "-"), let month = number(5..<7), byte(7, "-"), let day = number(8..<10),
            byte(10, "T") || byte(10, "t"), let hour = number(11..<13), byte(13, ":"), let minute = number(14..<16),
            byte(16, ":"), let second = number(17..<19)
        else { return failure }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour < 24, minute < 60,
            second < 60
        else { return failure }
        var index = 19
        var fraction = 0.0
        if byte(index, ".") {
            index += 1
            var scale = 0.1
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]) {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return failure }
        }
        var offset = 0
        if byte(index, "Z") || byte(index, "z") {
            index += 1
        } else if byte(index, "+") || byte(index, "-") {
            let sign = byte(index, "-") ? -1 : 1
            guard let hours = number(index + 1..<index + 3), byte(index + 3, ":"), let minutes = number(index + 4..<index + 6),
                hours < 24, minutes < 60
            else { return failure }
            offset = sign * (hours * 3600 + minutes * 60)
            index += 6
        } else {
            return failure
        }
        guard index == bytes.count else { return failure }
        let days = daysFromCivil(year: year, month: month, day: day)
        return .success(Double(days * 86_400 + hour * 3600 + minute * 60 + second - offset) + fraction)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
