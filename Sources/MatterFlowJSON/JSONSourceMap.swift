/// Where each value and key of a JSON text stands, and which keys were repeated in one object.
///
/// json-c keeps only the last of two equal keys and reports no positions, so this scanner walks the same text
/// (already accepted by json-c) to recover both. It never decides whether the text is valid.
///
/// Repeated keys are found when the map is made, since every load reports them. Positions are only needed for
/// findings, so they are found by scanning the text again when asked for (``locations()``): a valid file never
/// pays for a map of every value.
public struct JSONSourceMap: Sendable {
    /// A key that occurs more than once in the same object.
    public struct DuplicateKey: Sendable, Hashable {
        /// Pointer to the member (object pointer plus the key).
        public var pointer: String
        /// The repeated key, its escapes decoded.
        public var key: String
        /// Where the key first occurs.
        public var first: SourceLocation
        /// Where it occurs again.
        public var repeated: SourceLocation
        /// The first occurrence's spelling when it has other bytes than ``key`` for the same characters (`é` composed
        /// once, decomposed once): the two name one member all the same, as Swift compares strings.
        public var firstSpelling: String?
    }

    /// The text scanned (its UTF-8 bytes are scanned in place); nil for a map of no text.
    private let text: String?
    /// Every repeated key, in document order.
    public private(set) var duplicateKeys: [DuplicateKey] = []

    /// An empty map (for values that did not come from a text).
    public init() {
        text = nil
    }

    /// Scans a JSON text that json-c has accepted.
    public init(scanning text: String) {
        self.text = text
        duplicateKeys = Self.withBytes(of: text) { bytes in
            var scanner = Scanner(bytes: bytes, recordsLocations: false)
            scanner.scanDocument()
            return scanner.duplicateKeys
        }
    }

    /// Scans a JSON text that json-c has accepted as `value`.
    ///
    /// json-c keeps one member per key, so the text has more keys than `value` has members exactly when a key is
    /// repeated; counting them is much cheaper than scanning for the repeats, which only happens when they differ
    /// (or when a `\u` escape could make json-c and this scanner read two keys differently).
    init(scanning text: String, parsed value: JSONValue) {
        self.text = text
        duplicateKeys = Self.withBytes(of: text) { bytes in
            if let keys = Self.keyCount(bytes), keys == value.memberCountIncludingNested { return [] }
            var scanner = Scanner(bytes: bytes, recordsLocations: false)
            scanner.scanDocument()
            return scanner.duplicateKeys
        }
    }

    /// Calls `body` with the text's UTF-8 bytes, in place (a copy only for a string not stored as UTF-8).
    private static func withBytes<Result>(of text: String, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
        var text = text
        return text.withUTF8(body)
    }

    /// The number of object keys in a JSON text (strings followed by a colon), or nil when a string holds a
    /// `\u` escape.
    private static func keyCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var count = 0
        var offset = 0
        while offset < bytes.count {
            guard bytes[offset] == UInt8(ascii: "\"") else {
                offset += 1
                continue
            }
            // Skip the string, escapes included.
            offset += 1
            while offset < bytes.count, bytes[offset] != UInt8(ascii: "\"") {
                guard bytes[offset] == UInt8(ascii: "\\") else {
                    offset += 1
                    continue
                }
                if offset + 1 < bytes.count, bytes[offset + 1] == UInt8(ascii: "u") { return nil }
                offset += 2
            }
            offset += 1
            var next = offset
            while next < bytes.count, Scanner.isWhitespace(bytes[next]) { next += 1 }
            if next < bytes.count, bytes[next] == UInt8(ascii: ":") { count += 1 }
        }
        return count
    }

    /// The position of every value and key, from a scan of the text.
    ///
    /// Each call scans the text; keep the result when asking for many positions.
    public func locations() -> JSONSourceLocations {
        guard let text else { return JSONSourceLocations() }
        return Self.withBytes(of: text) { bytes in
            var scanner = Scanner(bytes: bytes, recordsLocations: true)
            scanner.scanDocument()
            return JSONSourceLocations(valueLocations: scanner.valueLocations, keyLocations: scanner.keyLocations)
        }
    }

    /// A number token of the text, with the pointer and position of its value.
    public struct NumberToken: Sendable, Hashable {
        /// JSON pointer to the number's value.
        public var pointer: String
        /// The token as written: `1e999`, `NaN`, `123456789012345678901234`.
        public var text: String
        /// Where the token starts in the text.
        public var location: SourceLocation
    }

    /// Every number token of the text (`NaN` and `Infinity` included), in document order.
    ///
    /// Each call scans the text; it is meant for the rare text with a number json-c cannot hold exactly.
    public func numberTokens() -> [NumberToken] {
        guard let text else { return [] }
        return Self.withBytes(of: text) { bytes in
            var scanner = Scanner(bytes: bytes, recordsLocations: false)
            scanner.recordsNumbers = true
            scanner.scanDocument()
            return scanner.numbers
        }
    }

    /// Start of each value, by JSON pointer.
    public var valueLocations: [String: SourceLocation] { locations().valueLocations }
    /// Start of each member's key, by the member's JSON pointer.
    public var keyLocations: [String: SourceLocation] { locations().keyLocations }

    /// The best location for a pointer: its key when it names a member, else its value, else its nearest parent.
    ///
    /// This scans the text; use ``locations()`` once for many pointers.
    public func location(of pointer: String, preferKey: Bool = false) -> SourceLocation? {
        locations().location(of: pointer, preferKey: preferKey)
    }

    private struct Scanner {
        /// One step of the pointer to the value being scanned.
        enum Token {
            case key(String)
            case index(Int)
        }

        /// The text's bytes, valid while the scan runs (see ``withBytes(of:_:)``).
        let bytes: UnsafeBufferPointer<UInt8>
        /// Whether to record the position of every value and key, or only find repeated keys.
        let recordsLocations: Bool
        var offset = 0
        var line = 1
        var column = 1
        /// The pointer to the value being scanned, as tokens: it is only spelled out when needed.
        var path: [Token] = []
        var valueLocations: [String: SourceLocation] = [:]
        var keyLocations: [String: SourceLocation] = [:]
        var duplicateKeys: [DuplicateKey] = []
        /// Whether to record every number token in ``numbers``.
        var recordsNumbers = false
        var numbers: [NumberToken] = []

        init(bytes: UnsafeBufferPointer<UInt8>, recordsLocations: Bool) {
            self.bytes = bytes
            self.recordsLocations = recordsLocations
        }

        /// The pointer to the value being scanned.
        var pointer: String {
            path.reduce(into: "") { pointer, token in
                switch token {
                case .key(let key): pointer = JSONPointer.appending(key, to: pointer)
                case .index(let index): pointer = JSONPointer.appending(index, to: pointer)
                }
            }
        }

        mutating func scanDocument() {
            skipWhitespace()
            scanValue()
        }

        var location: SourceLocation { SourceLocation(line: line, column: column) }

        mutating func advance() {
            guard offset < bytes.count else { return }
            let byte = bytes[offset]
            offset += 1
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }

        var current: UInt8? { offset < bytes.count ? bytes[offset] : nil }

        /// JSON white space: space, line feed, carriage return, tab.
        static func isWhitespace(_ byte: UInt8) -> Bool {
            byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09
        }

        mutating func skipWhitespace() {
            while let byte = current, Self.isWhitespace(byte) { advance() }
        }

        mutating func scanValue() {
            if recordsLocations { valueLocations[pointer] = location }
            switch current {
            case UInt8(ascii: "{"):
                advance()
                var seen: [String: (location: SourceLocation, key: String)] = [:]
                skipWhitespace()
                while let byte = current, byte != UInt8(ascii: "}") {
                    if byte == UInt8(ascii: ",") {
                        advance()
                        skipWhitespace()
                        continue
                    }
                    let start = offset
                    defer { skipUnreadByte(after: start) }
                    let keyLocation = location
                    let key = scanString()
                    path.append(.key(key))
                    if let first = seen[key] {
                        duplicateKeys.append(
                            DuplicateKey(
                                pointer: pointer, key: key, first: first.location, repeated: keyLocation,
                                firstSpelling: first.key.utf8.elementsEqual(key.utf8) ? nil : first.key))
                    } else {
                        seen[key] = (keyLocation, key)
                        if recordsLocations { keyLocations[pointer] = keyLocation }
                    }
                    skipWhitespace()
                    if current == UInt8(ascii: ":") { advance() }
                    skipWhitespace()
                    // For a repeated key the later value is the one json-c keeps, so it overwrites the location.
                    scanValue()
                    path.removeLast()
                    skipWhitespace()
                }
                advance()
            case UInt8(ascii: "["):
                advance()
                var index = 0
                skipWhitespace()
                while let byte = current, byte != UInt8(ascii: "]") {
                    if byte == UInt8(ascii: ",") {
                        advance()
                        skipWhitespace()
                        continue
                    }
                    let start = offset
                    defer { skipUnreadByte(after: start) }
                    path.append(.index(index))
                    scanValue()
                    path.removeLast()
                    index += 1
                    skipWhitespace()
                }
                advance()
            case UInt8(ascii: "\""):
                _ = scanString()
            default:
                let start = offset
                let startLocation = location
                while let byte = current,
                    !(byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
                        || byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09)
                {
                    advance()
                }
                if recordsNumbers, start < offset, bytes[start] != UInt8(ascii: "t"), bytes[start] != UInt8(ascii: "f"),
                    bytes[start] != UInt8(ascii: "n")
                {
                    let token = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<offset]), as: UTF8.self)
                    numbers.append(NumberToken(pointer: pointer, text: token, location: startLocation))
                }
            }
        }

        /// Steps over one byte when a member or element read from `start` consumed nothing: a byte this scanner does
        /// not read where json-c found a value (a closing bracket of the other kind, say). Every turn of a container's
        /// loop then consumes at least one byte, so any text ends the scan.
        mutating func skipUnreadByte(after start: Int) {
            if offset == start { advance() }
        }

        /// Reads a string token at the current position and returns its decoded text.
        mutating func scanString() -> String {
            guard current == UInt8(ascii: "\"") else { return "" }
            advance()
            var decoded: [UInt8] = []
            var pendingHighSurrogate: UInt32?
            while let byte = current, byte != UInt8(ascii: "\"") {
                if byte == UInt8(ascii: "\\") {
                    advance()
                    guard let escape = current else { break }
                    advance()
                    switch escape {
                    case UInt8(ascii: "n"): decoded.append(0x0A)
                    case UInt8(ascii: "t"): decoded.append(0x09)
                    case UInt8(ascii: "r"): decoded.append(0x0D)
                    case UInt8(ascii: "b"): decoded.append(0x08)
                    case UInt8(ascii: "f"): decoded.append(0x0C)
                    case UInt8(ascii: "u"):
                        var scalarValue: UInt32 = 0
                        for _ in 0..<4 {
                            guard let digit = current, let nibble = Self.hexValue(digit) else { break }
                            scalarValue = scalarValue << 4 | nibble
                            advance()
                        }
                        if (0xD800...0xDBFF).contains(scalarValue) {
                            pendingHighSurrogate = scalarValue
                            continue
                        }
                        if let high = pendingHighSurrogate, (0xDC00...0xDFFF).contains(scalarValue) {
                            scalarValue = 0x10000 + ((high - 0xD800) << 10) + (scalarValue - 0xDC00)
                        }
                        pendingHighSurrogate = nil
                        let scalar = Unicode.Scalar(scalarValue) ?? "\u{FFFD}"
                        decoded.append(contentsOf: Array(String(Character(scalar)).utf8))
                    default: decoded.append(escape)
                    }
                } else {
                    decoded.append(byte)
                    advance()
                }
            }
            advance()
            return String(decoding: decoded, as: UTF8.self)
        }

        static func hexValue(_ byte: UInt8) -> UInt32? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte - UInt8(ascii: "A") + 10)
            default: nil
            }
        }
    }
}
