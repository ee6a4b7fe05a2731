/// What to write instead, for the mistakes people make most in JSON they write by hand: a comma before `}` or `]`, a
/// comment, a key without quotes, a number with a leading zero. Read from the bytes around where the parser stopped;
/// nil when none of them is there.
enum JSONSyntaxAdvice {
    /// `reason` is the parser's: a missing separator is told apart from a missing colon by it.
    static func advice(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>, reason: String = "") -> String? {
        guard offset >= 0, offset <= bytes.count else { return nil }
        let here = offset < bytes.count ? bytes[offset] : nil
        let before = previousSignificant(bytes, before: offset)
        if here == UInt8(ascii: "/"), offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "/") || bytes[offset + 1] == UInt8(ascii: "*") {
            return "JSON has no comments; remove it"
        }
        if here == UInt8(ascii: "}") || here == UInt8(ascii: "]"), let before, bytes[before] == UInt8(ascii: ",") {
            return "JSON allows no comma after the last member or element; remove the comma before this \(here == UInt8(ascii: "}") ? "}" : "]")"
        }
        // A bare word where a key goes, and followed by a colon (in an array, a bare word is no key).
        if let here, isLetter(here) || here == UInt8(ascii: "_"), let before,
            bytes[before] == UInt8(ascii: "{") || bytes[before] == UInt8(ascii: ","), colonFollowsWord(at: offset, in: bytes)
        {
            return "a key needs double quotes around it (\"name\": ...)"
        }
        if reason.contains("invalid string sequence"), let escape = escapeAdvice(at: offset, in: bytes) { return escape }
        if let number = numberBefore(offset, in: bytes) { return number }
        if let pasted = pastedCharacter(at: offset, in: bytes) { return pasted }
        if !bytes.contains(where: { !isWhitespace($0) }) {
            return "the file is empty (or only white space); write the JSON value it should hold"
        }
        guard let before else { return nil }
        if here == nil || offset > before, !bytes[(before + 1)...].contains(where: { !isWhitespace($0) }),
            let opener = unclosed(in: bytes, before: bytes.count)
        {
            let (line, column) = position(of: opener, in: bytes)
            let closing = bytes[opener] == UInt8(ascii: "{") ? "}" : "]"
            return "the text ends before the \(closing == "}" ? "object" : "array") opened at \(line):\(column) is closed; add \(closing) (or the rest of the file, if it was cut)"
        }
        // A closing bracket of the wrong kind: the one still open is named.
        if let here, here == UInt8(ascii: "}") || here == UInt8(ascii: "]"), let opener = unclosed(in: bytes, before: offset),
            bytes[opener] != (here == UInt8(ascii: "}") ? UInt8(ascii: "{") : UInt8(ascii: "["))
        {
            let (line, column) = position(of: opener, in: bytes)
            let open = bytes[opener] == UInt8(ascii: "{") ? "object" : "array"
            return "this \(here == UInt8(ascii: "}") ? "}" : "]") meets the \(open) opened at \(line):\(column), which \(open == "object" ? "}" : "]") closes; close it first"
        }
        if reason.contains("separator ',' expected"), endsValue(bytes[before]), let here, startsValue(here) {
            let (line, column) = position(of: before, in: bytes)
            return "a comma is missing after the value that ends at \(line):\(column); add one there"
        }
        return nil
    }

    /// What is wrong with the escape the parser stopped in: a letter that starts no JSON escape (`\x`, `\'`), or a
    /// `\u` without four hexadecimal digits. `offset` is the byte after the backslash, or a digit of a `\u`.
    private static func escapeAdvice(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard offset < bytes.count else { return nil }
        // The backslash that starts the escape: the nearest one to five bytes back.
        guard let backslash = (max(0, offset - 5)..<offset).reversed().first(where: { bytes[$0] == UInt8(ascii: "\\") }),
            backslash + 1 < bytes.count
        else { return nil }
        let letter = bytes[backslash + 1]
        if letter == UInt8(ascii: "u") {
            return "\\u takes four hexadecimal digits (\\u00e9 for é); write a backslash itself as \\\\"
        }
        let shown: String
        if (0x21..<0x7F).contains(letter) {
            shown = "\\" + String(UnicodeScalar(letter))
        } else if letter == 0x20 {
            shown = "a backslash before a space"
        } else if let scalar = String(decoding: bytes[(backslash + 1)..<min(bytes.count, backslash + 5)], as: UTF8.self).unicodeScalars.first,
            scalar != "\u{FFFD}", !scalar.isASCII
        {
            shown = "\\\(Character(scalar)) (a backslash before \(scalar.codePointAndName))"
        } else {
            shown = "a backslash before byte 0x" + String(letter, radix: 16, uppercase: true)
        }
        return "\(shown) is no JSON escape: JSON has \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX; write a backslash itself as \\\\"
    }

    /// Whether a value can end with this byte (`"`, a digit, `}`, `]`, or the last letter of `true`, `false`, `null`).
    private static func endsValue(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "\"") || isDigit(byte) || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
            || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "l")
    }

    /// Whether a value can start with this byte.
    private static func startsValue(_ byte: UInt8) -> Bool {
        [UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "-"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n")]
            .contains(byte) || isDigit(byte)
    }

    /// The offset of the innermost `{` or `[` left open before `end`, strings skipped; nil when none is.
    private static func unclosed(in bytes: UnsafeBufferPointer<UInt8>, before end: Int) -> Int? {
        var open: [Int] = []
        var index = 0
        var inString = false
        while index < min(end, bytes.count) {
            let byte = bytes[index]
            if inString {
                if byte == UInt8(ascii: "\\") { index += 1 } else if byte == UInt8(ascii: "\"") { inString = false }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["): open.append(index)
                case UInt8(ascii: "}"), UInt8(ascii: "]"): _ = open.popLast()
                default: break
                }
            }
            index += 1
        }
        return open.last
    }

    /// The 1-based line and column of the byte at `offset`, the column counted in characters (UTF-8 sequences).
    private static func position(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for index in 0..<offset {
            if bytes[index] == 0x0A {
                line += 1
                column = 1
            } else if bytes[index] & 0xC0 != 0x80 {
                column += 1
            }
        }
        return (line, column)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool { [0x20, 0x0A, 0x0D, 0x09].contains(byte) }

    /// The advice for characters that text pasted from a document or a chat brings and an editor hardly shows: a
    /// single quote, a typographic quote, a no-break space, a byte order mark inside the file.
    private static func pastedCharacter(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        func starts(_ sequence: [UInt8]) -> Bool {
            offset + sequence.count <= bytes.count && sequence.indices.allSatisfy { bytes[offset + $0] == sequence[$0] }
        }
        if starts([UInt8(ascii: "'")]) { return "JSON strings and keys take double quotes (\"), not single ones (')" }
        for (sequence, name) in [
            ([0xE2, 0x80, 0x9C], "“"), ([0xE2, 0x80, 0x9D], "”"), ([0xE2, 0x80, 0x98], "‘"), ([0xE2, 0x80, 0x99], "’"),
        ] as [([UInt8], String)] where starts(sequence) {
            return "\(name) is a typographic quote, where JSON needs a plain double quote (\"); replace the curly quotes (a word processor or chat app puts them in)"
        }
        if starts([0xC2, 0xA0]) { return "a no-break space (U+00A0), which JSON does not take as white space; replace it with an ordinary space" }
        if starts([0xEF, 0xBB, 0xBF]) { return "a byte order mark (U+FEFF) inside the file; remove it" }
        return nil
    }

    /// The advice for a number with a leading zero that ends where the parser stopped (`01`, `-007`): digits that
    /// start a value, not those of a fraction or an exponent (`1.02`, `1e05`).
    private static func numberBefore(_ offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var start = min(offset, bytes.count)
        while start > 0, isDigit(bytes[start - 1]) { start -= 1 }
        guard start < min(offset, bytes.count), bytes[start] == UInt8(ascii: "0"), start + 1 < bytes.count, isDigit(bytes[start + 1])
        else { return nil }
        var sign = start
        if sign > 0, bytes[sign - 1] == UInt8(ascii: "-") { sign -= 1 }
        if let previous = previousSignificant(bytes, before: sign) {
            guard [UInt8(ascii: ":"), UInt8(ascii: "["), UInt8(ascii: ",")].contains(bytes[previous]) else { return nil }
        }
        return "JSON numbers have no leading zero; write the number without it"
    }

    /// Whether the word starting at `offset` is followed, past spaces, by a colon.
    private static func colonFollowsWord(at offset: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = offset
        while index < bytes.count, isLetter(bytes[index]) || isDigit(bytes[index]) || bytes[index] == UInt8(ascii: "_") || bytes[index] == UInt8(ascii: "-") {
            index += 1
        }
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        return index < bytes.count && bytes[index] == UInt8(ascii: ":")
    }

    private static func previousSignificant(_ bytes: UnsafeBufferPointer<UInt8>, before offset: Int) -> Int? {
        var index = min(offset, bytes.count) - 1
        while index >= 0 {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index -= 1
            default: return index
            }
        }
        return nil
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
    }
}
