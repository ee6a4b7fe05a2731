import MatterFlow
import MatterFlowJSON

/// A span of time on the command line: a whole number and one of s, m, h, d (`90d`, `12h`, `30m`, `45s`), up to a
/// century; and a moment: such a span back from now, or an ISO-8601 timestamp.
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

    /// Seconds since the Unix epoch of `text` when it is an ISO-8601 timestamp; nil otherwise.
    private static func timestamp(_ text: String) -> Double? {
        guard text.first?.isASCIIDigit == true, text.count >= 10, case .success(let seconds) = Timestamp.epochSeconds(of: .string(text)) else {
            return nil
        }
        return seconds
    }

    /// Seconds since the Unix epoch of a moment given to `--OPTION`: a span back from `now` (`2h`), or an ISO-8601
    /// timestamp (`2026-12-05T09:00:00Z`).
    static func moment(_ text: String, option: String, command: String, now: Double) throws(UsageError) -> Double {
        if let seconds = timestamp(text) { return seconds }
        do throws(UsageError) {
            return now - (try seconds(text, option: option, command: command))
        } catch {
            throw UsageError(
                message: "--\(option) must be a time back from now (90d, 12h, 30m, 45s) or an ISO-8601 timestamp (2026-12-05T09:00:00Z), not '\(text)'",
                command: command)
        }
    }
}

extension Character {
    /// Whether this is one of 0...9.
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
