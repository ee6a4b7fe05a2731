/// Serializes ``JSONValue`` back to text, keeping object members in order.
///
/// Every form is written by one byte writer: ``compact(_:)`` and ``pretty(_:)`` decode its bytes into a string,
/// ``appendCompact(_:to:)`` hands them over as they are (the journal's frames, the run store's batches), so the
/// texts are the same whichever form a reader was given.
public enum JSONWriter {
    /// Compact text on one line.
    public static func compact(_ value: JSONValue) -> String {
        text(of: value, indent: nil)
    }

    /// Indented text, two spaces a level.
    public static func pretty(_ value: JSONValue) -> String {
        text(of: value, indent: 2)
    }

    /// Appends the compact text of `value` as UTF-8 bytes to `bytes`: exactly the bytes of ``compact(_:)``'s
    /// string, written without making a string.
    public static func appendCompact(_ value: JSONValue, to bytes: inout [UInt8]) {
        append(value, to: &bytes, indent: nil, level: 0)
    }

    /// Appends a quoted, escaped JSON string.
    public static func writeString(_ text: String, into output: inout String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        appendString(text, to: &bytes)
        output += String(decoding: bytes, as: UTF8.self)
    }

    private static func text(of value: JSONValue, indent: Int?) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        append(value, to: &bytes, indent: indent, level: 0)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `value`; with an indent, each element and member goes on its own line, `indent` spaces a level.
    fileprivate static func append(_ value: JSONValue, to bytes: inout [UInt8], indent: Int?, level: Int) {
        switch value {
        case .null: appendASCII("null", to: &bytes)
        case .bool(let flag): appendASCII(flag ? "true" : "false", to: &bytes)
        case .int(let number): appendInteger(number, to: &bytes)
        case .double(let number):
            if !number.isFinite {
                appendASCII("null", to: &bytes)
            } else if number == number.rounded() && abs(number) < 1e15 {
                appendInteger(Int(number), to: &bytes)
            } else {
                bytes.append(contentsOf: String(number).utf8)
            }
        case .string(let text): appendString(text, to: &bytes)
        case .array(let elements):
            guard !elements.isEmpty else { return appendASCII("[]", to: &bytes) }
            bytes.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                appendNewline(to: &bytes, indent: indent, level: level + 1)
                append(element, to: &bytes, indent: indent, level: level + 1)
            }
            appendNewline(to: &bytes, indent: indent, level: level)
            bytes.append(UInt8(ascii: "]"))
        case .object(let object):
            guard !object.isEmpty else { return appendASCII("{}", to: &bytes) }
            bytes.append(UInt8(ascii: "{"))
            for (offset, member) in object.members.enumerated() {
                if offset > 0 { bytes.append(UInt8(ascii: ",")) }
                appendNewline(to: &bytes, indent: indent, level: level + 1)
                appendString(member.key, to: &bytes)
                appendASCII(indent == nil ? ":" : ": ", to: &bytes)
                append(member.value, to: &bytes, indent: indent, level: level + 1)
            }
            appendNewline(to: &bytes, indent: indent, level: level)
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// A line break and the indentation of `level`; nothing in compact text.
    fileprivate static func appendNewline(to bytes: inout [UInt8], indent: Int?, level: Int) {
        guard let indent else { return }
        bytes.append(UInt8(ascii: "\n"))
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * level))
    }

    /// Appends a quoted, escaped JSON string: runs of bytes that need no escape are copied whole (a UTF-8
    /// sequence of a non-ASCII character never holds a byte below 0x80).
    private static func appendString(_ text: String, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                appendEscape(byte, to: &bytes)
                start = index + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// How many bytes `text` takes inside a JSON string as this writer writes it, without the quotes: its UTF-8 bytes,
    /// a quote, a backslash and `\n`, `\r`, `\t`, `\b`, `\f` escaped in two, other control characters in six.
    public static func escapedLength(of text: String) -> Int {
        var length = 0
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x0D, 0x09, 0x08, 0x0C: length += 2
            case 0..<0x20: length += 6
            default: length += 1
            }
        }
        return length
    }

    /// The escape of a quote, a backslash or a control character.
    private static func appendEscape(_ byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        default:
            appendASCII("u00", to: &bytes)
            bytes.append(hexDigit(byte >> 4))
            bytes.append(hexDigit(byte & 0x0F))
        }
    }

    /// The lowercase hex digit of a nibble, in ASCII.
    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") &+ nibble : UInt8(ascii: "a") &+ nibble &- 10
    }

    /// Appends an integer's decimal digits (as `String(number)` writes them).
    private static func appendInteger(_ number: Int, to bytes: inout [UInt8]) {
        guard number != 0 else { return bytes.append(UInt8(ascii: "0")) }
        if number < 0 { bytes.append(UInt8(ascii: "-")) }
        // The magnitude as unsigned, so Int.min has one too.
        var magnitude = number.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            while magnitude > 0 {
                buffer[count] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[index]) }
        }
    }

    private static func appendASCII(_ text: StaticString, to bytes: inout [UInt8]) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }
}

/// Writes the text of ``JSONWriter/pretty(_:)`` for an array an element at a time, handing it on in pieces of about
/// `pieceBytes` bytes, each ending between elements: a listing of many runs goes out without its whole text, or
/// all its values, in memory at once.
public struct PrettyArrayWriter {
    private var bytes: [UInt8] = [UInt8(ascii: "[")]
    private var empty = true
    private let pieceBytes: Int
    private let write: (String) -> Void

    /// A writer handing its pieces to `write`.
    public init(pieceBytes: Int = 1 << 16, write: @escaping (String) -> Void) {
        self.pieceBytes = pieceBytes
        self.write = write
        bytes.reserveCapacity(pieceBytes + 4096)
    }

    /// Writes the next element.
    public mutating func append(_ element: JSONValue) {
        if !empty { bytes.append(UInt8(ascii: ",")) }
        empty = false
        JSONWriter.appendNewline(to: &bytes, indent: 2, level: 1)
        JSONWriter.append(element, to: &bytes, indent: 2, level: 1)
        if bytes.count >= pieceBytes {
            write(String(decoding: bytes, as: UTF8.self))
            bytes.removeAll(keepingCapacity: true)
        }
    }

    /// Closes the array and hands on what is left; call it once, after the last element.
    public mutating func finish() {
        if !empty { JSONWriter.appendNewline(to: &bytes, indent: 2, level: 0) }
        bytes.append(UInt8(ascii: "]"))
        write(String(decoding: bytes, as: UTF8.self))
        bytes.removeAll()
    }
}
