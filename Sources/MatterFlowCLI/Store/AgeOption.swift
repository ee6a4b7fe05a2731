import MatterFlow
import MatterFlowJSON

/// A span of time on the command line: a whole number and one of s, m, h, d (`90d`, `12h`, `30m`, `45s`), up to a
/// century; and a moment: such a span back from now, an ISO-8601 timestamp, a date, or a UTC time as `runs` prints it.
enum AgeOption {
    /// The longest span: about a century.
    static let maximum: Double = 36_500 * 86_400

    /// Seconds in a span given to `--OPTION`.
    static func seconds(_ text: String, option: String, command: String) throws(UsageError) -> Double {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), text.dropLast().allSatisfy(\.isASCIIDigit),
            let count = Int(text.dropLast()), Double(count) * unit <= maximum
        else {
            throw UsageError(
                message: "--\(option) must be a whole number of s, m, h or d (90d, 12h, 30m, 45s) up to 36500d, not '\(text)'",
                command: command)
        }
        return Double(count) * unit
    }

    /// The seconds of `text` when it is a span back from now (`2h`), nil when it is a timestamp or not a moment at
    /// all (``moment(_:option:command:now:)`` says why).
    static func span(_ text: String) -> Double? {
        timestamp(text) == nil ? try? seconds(text, option: "", command: "") : nil
    }

    /// Seconds since the Unix epoch of `text` when it is a moment in one of the forms ``iso8601(_:)`` reads; nil
    /// otherwise.
    private static func timestamp(_ text: String) -> Double? {
        guard text.first?.isASCIIDigit == true, let iso = iso8601(text),
            case .success(let seconds) = Timestamp.epochSeconds(of: .string(iso))
        else {
            return nil
        }
        return seconds
    }

    /// `text` in the ISO-8601 form ``Timestamp`` reads: a date alone (midnight UTC) and a time as `runs` and
    /// `workers` print it (`2026-12-05 09:00:00`, UTC, to be pasted back) rewritten, a compact offset (`+0100`) given
    /// its colon, anything else as it is, for ``Timestamp`` to take or refuse (a date and time with no zone,
    /// `2026-12-05T09:00:00`, is refused there: its zone cannot be told). Nil when it is no moment of those shapes.
    static func iso8601(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        let isDate = bytes.count >= 10 && bytes[4] == UInt8(ascii: "-") && bytes[7] == UInt8(ascii: "-")
        func piece(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        if bytes.count == 10 { return isDate ? text + "T00:00:00Z" : nil }
        guard bytes.count >= 19, isDate else { return nil }
        if bytes[10] == UInt8(ascii: " ") {
            return bytes.count == 19 ? piece(0..<10) + "T" + piece(11..<19) + "Z" : nil
        }
        // A compact offset, `+0100`: the colon added.
        let tail = bytes.suffix(5)
        if bytes.count >= 24, let sign = tail.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-"),
            tail.dropFirst().allSatisfy({ (48...57).contains($0) }), bytes[bytes.count - 6] != UInt8(ascii: ":")
        {
            return piece(0..<(bytes.count - 2)) + ":" + piece((bytes.count - 2)..<bytes.count)
        }
        return text
    }

    /// Seconds since the Unix epoch of a moment given to `--OPTION`: a span back from `now` (`2h`), or an ISO-8601
    /// timestamp (`2026-12-05T09:00:00Z`).
    static func moment(_ text: String, option: String, command: String, now: Double) throws(UsageError) -> Double {
        if let seconds = timestamp(text) { return seconds }
        do throws(UsageError) {
            return now - (try seconds(text, option: option, command: command))
        } catch {
            throw UsageError(
                message: "--\(option) must be a time back from now (90d, 12h, 30m, 45s) or a moment: an ISO-8601 timestamp (2026-12-05T09:00:00Z, "
                    + "2026-12-05T10:00:00+01:00), a date (2026-12-05, midnight UTC) or a UTC time as runs prints it ('2026-12-05 09:00:00'), not '\(text)'",
                command: command)
        }
    }
}

extension Character {
    /// Whether this is one of 0...9.
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
