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
}
