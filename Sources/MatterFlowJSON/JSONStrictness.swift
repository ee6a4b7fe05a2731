/// What json-c's strict mode still accepts that JSON (RFC 8259) does not, found in a text json-c has accepted.
///
/// json-c 0.16 in strict mode takes an object's key in single quotes (`{'a': 1}`), raw control characters inside a
/// string (a tab or a line break typed between the quotes), a number with a leading zero after its minus sign
/// (`-01`), one whose decimal point has no digit after it (`1.`, `1.e5`) or, after a minus sign, before it (`-.5`). It also keeps an object's keys as
/// C strings, so a key holding the escape `\u0000` is cut short there and two different keys can become one. Every
/// other JSON tool refuses such a text or reads it otherwise, so MatterFlow refuses it too, where it stands.
enum JSONStrictness {
    /// The first place in `bytes` that is not JSON, with what to write instead; nil when there is none.
    ///
    /// One pass over the bytes; it trusts nothing about them (any text is read to its end without trapping), but
    /// it is meant for a text json-c accepted, where a quote always opens or closes a string.
    static func firstViolation(
        in bytes: UnsafeBufferPointer<UInt8>, refusingLoneSurrogates: Bool = true
    ) -> JSONCBridge.SyntaxFailure? {
        let count = bytes.count
        var offset = 0
        while offset < count {
            switch bytes[offset] {
            case UInt8(ascii: "\""):
                let opening = offset
                var holdsNull = false
                offset += 1
                while offset < count {
                    let byte = bytes[offset]
                    if byte == UInt8(ascii: "\"") { break }
                    if byte == UInt8(ascii: "\\") {
                        if isNullEscape(bytes, at: offset) { holdsNull = true }
                        if refusingLoneSurrogates, let unit = escapedUnit(bytes, at: offset), (0xD800...0xDFFF).contains(unit) {
                            // A UTF-16 surrogate is half a character: only a high one followed by a low one is whole.
                            guard unit <= 0xDBFF, let low = escapedUnit(bytes, at: offset + 6), (0xDC00...0xDFFF).contains(low) else {
                                return loneSurrogate(unit, at: offset)
                            }
                            offset += 12
                            continue
                        }
                        offset += 2
                        continue
                    }
                    if byte < 0x20 { return controlCharacter(byte, at: offset) }
                    offset += 1
                }
                offset += 1
                if holdsNull && nextSignificantByte(bytes, from: offset) == UInt8(ascii: ":") {
                    return JSONCBridge.SyntaxFailure(
                        byteOffset: opening,
                        reason: "a key holding the escape \\u0000, which MatterFlow cannot keep apart from other keys; "
                            + "rename the key")
                }
            case UInt8(ascii: "'"):
                return JSONCBridge.SyntaxFailure(
                    byteOffset: offset, reason: "a key in single quotes (JSON needs double quotes around every key)")
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                if let failure = numberViolation(bytes, from: &offset) { return failure }
            default:
                offset += 1
            }
        }
        return nil
    }

    /// Reads the number starting at `offset` (JSON's grammar: `-? int frac? exp?`), moving `offset` past it, its
    /// exponent included (whose digits may start with zeros); the refusal of a leading zero or of a decimal point
    /// without digits after it.
    private static func numberViolation(
        _ bytes: UnsafeBufferPointer<UInt8>, from offset: inout Int
    ) -> JSONCBridge.SyntaxFailure? {
        let start = offset
        if bytes[offset] == UInt8(ascii: "-") {
            offset += 1
            // `-Infinity` is left to the number checks after parsing, which name it; `-.5` is refused here.
            if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
                return JSONCBridge.SyntaxFailure(
                    byteOffset: start, reason: "a number with no digit before its decimal point; write a 0 before it (-0.5)")
            }
        }
        if offset + 1 < bytes.count, bytes[offset] == UInt8(ascii: "0"), isDigit(bytes[offset + 1]) {
            return JSONCBridge.SyntaxFailure(
                byteOffset: start,
                reason: "a number with a leading zero (JSON writes 0 alone before a point or an exponent); remove the zero")
        }
        skipDigits(bytes, &offset)
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard offset < bytes.count, isDigit(bytes[offset]) else {
                return JSONCBridge.SyntaxFailure(
                    byteOffset: start,
                    reason: "a number with no digit after its decimal point; write a digit after it (1.0) or drop the point")
            }
            skipDigits(bytes, &offset)
        }
        if offset < bytes.count, bytes[offset] | 0x20 == UInt8(ascii: "e") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") { offset += 1 }
            skipDigits(bytes, &offset)
        }
        return nil
    }

    private static func skipDigits(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: inout Int) {
        while offset < bytes.count, isDigit(bytes[offset]) { offset += 1 }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// The code unit of the `\uXXXX` escape at `offset`, when one is there.
    private static func escapedUnit(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt16? {
        guard offset + 5 < bytes.count, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u") else { return nil }
        var unit: UInt16 = 0
        for index in offset + 2...offset + 5 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// The refusal of an escaped surrogate without its other half, which json-c would turn into U+FFFD.
    private static func loneSurrogate(_ unit: UInt16, at offset: Int) -> JSONCBridge.SyntaxFailure {
        let hex = String(unit, radix: 16)
        let half = unit <= 0xDBFF ? "a high surrogate not followed by a low one (\\udc00 to \\udfff)" : "a low surrogate without a high one before it"
        return JSONCBridge.SyntaxFailure(
            byteOffset: offset,
            reason: "the escape \\u\(hex) is \(half): half of a UTF-16 pair, no character on its own; write both halves "
                + "(\\ud83d\\udca1 for U+1F4A1) or the character itself")
    }

    /// Whether the escape at `offset` (a backslash) is `\u0000`.
    private static func isNullEscape(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        guard offset + 5 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u") else { return false }
        return (offset + 2...offset + 5).allSatisfy { bytes[$0] == UInt8(ascii: "0") }
    }

    /// The first byte at or after `offset` that is not JSON whitespace.
    private static func nextSignificantByte(_ bytes: UnsafeBufferPointer<UInt8>, from offset: Int) -> UInt8? {
        var offset = offset
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            case let byte: return byte
            }
        }
        return nil
    }

    /// The refusal of the raw control character `byte` inside a string, naming the escape to write instead.
    private static func controlCharacter(_ byte: UInt8, at offset: Int) -> JSONCBridge.SyntaxFailure {
        let escape: String
        switch byte {
        case 0x09: escape = "a tab; write it as \\t"
        case 0x0A: escape = "a line break; write it as \\n"
        case 0x0D: escape = "a carriage return; write it as \\r"
        default:
            let hex = String(byte, radix: 16, uppercase: true)
            escape = "U+\(hex.count < 2 ? "000" : "00")\(hex); write it as \\u\(hex.count < 2 ? "000" : "00")\(hex)"
        }
        return JSONCBridge.SyntaxFailure(
            byteOffset: offset, reason: "a control character inside a string (\(escape)), which JSON needs escaped")
    }
}
