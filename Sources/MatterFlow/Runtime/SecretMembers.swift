/// Takes out of free text the values written after the names of secret members: `"epskc": "123456789"` in JSON,
/// `'epskc': '123456789'` as Python prints a dictionary, `epskc=123456789` in a log line. For text whose secrets no
/// run knows yet (a hub's log line about a key it has just made, written before the run has read the answer that
/// carries it), or never will (the answer to a call the run gave up on).
///
/// A name counts where it stands as a whole word, in quotes or not (`\"name\"` inside JSON written into a string
/// too), followed by `:` or `=`. The value after it is replaced by ``RunOptions/redacted``: a quoted string's
/// contents, or an unquoted word up to the next space or punctuation. An object or array after the name is left as it
/// is (what it holds is found by value, when known).
struct SecretMembers: Sendable {
    /// The names, as UTF-8, longest first.
    private let names: [[UInt8]]

    init(_ names: Set<String>) {
        self.names = names.filter { !$0.isEmpty }.map { Array($0.utf8) }.sorted { $0.count > $1.count }
    }

    var isEmpty: Bool { names.isEmpty }

    /// `text` with the value after each secret member's name replaced, or `text` itself when it has none.
    func redacting(_ text: String) -> String {
        guard !names.isEmpty else { return text }
        var bytes = Array(text.utf8)
        var changed = false
        for name in names {
            var from = 0
            while let at = Self.find(name, in: bytes, from: from) {
                from = at + 1
                guard let value = Self.valueRange(after: at, name: name, in: bytes) else { continue }
                let marker = Array(RunOptions.redacted.utf8)
                bytes.replaceSubrange(value, with: marker)
                from = value.lowerBound + marker.count
                changed = true
            }
        }
        return changed ? String(decoding: bytes, as: UTF8.self) : text
    }

    /// Where the value of the member whose name starts at `at` stands, or nil when the name is not a member's there
    /// (part of a longer word, no `:` or `=` after it) or its value is empty, an object or an array.
    private static func valueRange(after at: Int, name: [UInt8], in bytes: [UInt8]) -> Range<Int>? {
        var index = at + name.count
        // The name's own quotes: `"name"`, `'name'`, `\"name\"`; or none, as a whole word.
        let opening = at > 0 && (bytes[at - 1] == quote || bytes[at - 1] == apostrophe) ? bytes[at - 1] : nil
        if let opening {
            if index < bytes.count, bytes[index] == opening {
                index += 1
            } else if index + 1 < bytes.count, bytes[index] == backslash, bytes[index + 1] == opening {
                index += 2
            } else {
                return nil
            }
        } else if (at > 0 && isWordByte(bytes[at - 1])) || (index < bytes.count && isWordByte(bytes[index])) {
            return nil
        }
        index = skippingSpaces(bytes, from: index)
        guard index < bytes.count, bytes[index] == colon || bytes[index] == equals else { return nil }
        index = skippingSpaces(bytes, from: index + 1)
        guard index < bytes.count else { return nil }
        // A quoted value, its quote escaped too (`\"value\"`, inside JSON written into a string).
        var close: [UInt8]?
        if bytes[index] == quote || bytes[index] == apostrophe {
            close = [bytes[index]]
            index += 1
        } else if index + 1 < bytes.count, bytes[index] == backslash, bytes[index + 1] == quote || bytes[index + 1] == apostrophe {
            close = [backslash, bytes[index + 1]]
            index += 2
        }
        let start = index
        if let close {
            while index < bytes.count, !bytes[index...].starts(with: close) {
                index += bytes[index] == backslash && close.count == 1 ? 2 : 1
            }
            index = min(index, bytes.count)
        } else {
            guard bytes[index] != openBrace, bytes[index] != openBracket else { return nil }
            while index < bytes.count, !endsWord(bytes[index]) { index += 1 }
        }
        return start < index ? start..<index : nil
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == first, bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private static func skippingSpaces(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        while index < bytes.count, bytes[index] == space || bytes[index] == tab { index += 1 }
        return index
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
    }

    /// Whether `byte` ends an unquoted value: a space or punctuation that does not occur inside a code or a key.
    private static func endsWord(_ byte: UInt8) -> Bool {
        [space, tab, 0x2C, 0x3B, 0x7D, 0x5D, 0x29, 0x26, quote, apostrophe, backslash].contains(byte)
    }

    private static let quote = UInt8(ascii: "\"")
    private static let apostrophe = UInt8(ascii: "'")
    private static let backslash = UInt8(ascii: "\\")
    private static let colon = UInt8(ascii: ":")
    private static let equals = UInt8(ascii: "=")
    private static let space = UInt8(ascii: " ")
    private static let tab = UInt8(ascii: "\t")
    private static let openBrace = UInt8(ascii: "{")
    private static let openBracket = UInt8(ascii: "[")
}
