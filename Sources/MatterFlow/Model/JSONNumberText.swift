/// The number grammar of JSON (RFC 8259, section 6) for text given outside a JSON document, such as
/// `--input NAME=VALUE`: an optional `-`, an integer part without a leading zero (`0` alone is fine), an optional
/// fraction of one or more digits, an optional exponent (`e` or `E`, an optional sign, one or more digits).
enum JSONNumberText {
    /// Whether `text` is, all of it, a number as JSON writes one: `0`, `-1`, `1.5`, `1e3`, `-0.25E-2`; not `+1`,
    /// `.5`, `1.`, `01`, `inf` or `0x10`.
    static func isNumber(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        /// Drops the digits at the front of `bytes`; how many there were.
        func dropDigits() -> Int {
            let count = bytes.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }.count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        if bytes.first == UInt8(ascii: "0") {
            bytes = bytes.dropFirst()
        } else if dropDigits() == 0 {
            return false
        }
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            guard dropDigits() > 0 else { return false }
        }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "+") || bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            guard dropDigits() > 0 else { return false }
        }
        return bytes.isEmpty
    }

    /// The JSON spelling of a number written in one of the other decimal spellings `Double(_:)` reads: a leading
    /// `+` dropped, leading zeros of the integer part dropped, `0` before a bare `.`, a `.` without digits after it
    /// dropped (`+1` → `1`, `01` → `1`, `.5` → `0.5`, `1.` → `1`). Nil when `text` is no decimal number at all.
    static func spelling(of text: String) -> String? {
        guard text.unicodeScalars.allSatisfy({ "+-0123456789.eE".unicodeScalars.contains($0) }), Double(text) != nil else {
            return nil
        }
        var rest = Substring(text)
        var sign = ""
        if rest.first == "+" {
            rest = rest.dropFirst()
        } else if rest.first == "-" {
            sign = "-"
            rest = rest.dropFirst()
        }
        let exponentStart = rest.firstIndex { $0 == "e" || $0 == "E" } ?? rest.endIndex
        let mantissa = rest[..<exponentStart]
        let point = mantissa.firstIndex(of: ".")
        let whole = String(mantissa[..<(point ?? mantissa.endIndex)].drop { $0 == "0" })
        let fraction = point.map { String(mantissa[mantissa.index(after: $0)...]) } ?? ""
        let exponent = String(rest[exponentStart...])
        let spelled = sign + (whole.isEmpty ? "0" : whole) + (fraction.isEmpty ? "" : "." + fraction) + exponent
        return isNumber(spelled) ? spelled : nil
    }

    /// What a JSON number's text is as a whole number, worked out on its digits, never through a `Double` (which
    /// would round `9007199254740993.0` and take `-9223372036854775809` for the smallest `Int`).
    enum WholeNumber: Equatable {
        case integer(Int)
        /// The number has a fraction (`1.5`, `1e-1`).
        case fraction
        /// A whole number out of `Int`'s range.
        case outOfRange
    }

    /// `text`, a number as JSON writes one (``isNumber(_:)``), as a whole number.
    static func wholeNumber(_ text: String) -> WholeNumber {
        var rest = Substring(text)
        let negative = rest.first == "-"
        if negative { rest = rest.dropFirst() }
        let exponentStart = rest.firstIndex { $0 == "e" || $0 == "E" } ?? rest.endIndex
        let mantissa = rest[..<exponentStart]
        var exponent = 0
        if exponentStart < rest.endIndex {
            let written = rest[rest.index(after: exponentStart)...]
            let digits = written.drop { $0 == "+" || $0 == "-" }.drop { $0 == "0" }
            // An exponent of more than 6 digits puts any number but 0 out of range, or makes it a fraction.
            exponent = digits.count > 6 ? 1_000_000 : Int(digits) ?? 0
            if written.first == "-" { exponent = -exponent }
        }
        let point = mantissa.firstIndex(of: ".")
        let fraction = point.map { mantissa[mantissa.index(after: $0)...] } ?? ""
        var digits = String(mantissa[..<(point ?? mantissa.endIndex)]) + fraction
        exponent -= fraction.count
        // Trailing zeros move into the exponent, leading ones go: `120.0` is 12 × 10^1.
        while digits.count > 1, digits.last == "0" {
            digits.removeLast()
            exponent += 1
        }
        digits = String(digits.drop { $0 == "0" })
        if digits.isEmpty { return .integer(0) }
        if exponent < 0 { return .fraction }
        guard digits.count + exponent <= 19 else { return .outOfRange }
        let spelled = (negative ? "-" : "") + digits + String(repeating: "0", count: exponent)
        return Int(spelled).map(WholeNumber.integer) ?? .outOfRange
    }
}
