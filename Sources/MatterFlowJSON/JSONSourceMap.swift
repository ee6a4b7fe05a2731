/// Where each value and key of a JSON text stands, and which keys were repeated in one object.
///
/// json-c keeps only the last of two equal keys and reports no positions, so this scanner walks the same text
/// (already accepted by json-c) to recover both. It never decides whether the text is valid.
public struct JSONSourceMap: Sendable {
    /// A key that occurs more than once in the same object.
    public struct DuplicateKey: Sendable, Hashable {
        /// Pointer to the member (object pointer plus the key).
        public var pointer: String
        public var key: String
        /// Where the key first occurs.
        public var first: SourceLocation
        /// Where it occurs again.
        public var repeated: SourceLocation
    }

    /// Start of each value, by JSON pointer.
    public private(set) var valueLocations: [String: SourceLocation] = [:]
    /// Start of each member's key, by the member's JSON pointer.
    public private(set) var keyLocations: [String: SourceLocation] = [:]
    /// Every repeated key, in document order.
    public private(set) var duplicateKeys: [DuplicateKey] = []

    /// An empty map (for values that did not come from a text).
    public init() {}

    /// Scans a JSON text that json-c has accepted.
    public init(scanning text: String) {
        var scanner = Scanner(bytes: Array(text.utf8))
        scanner.skipWhitespace()
        scanner.scanValue(pointer: "", into: &self)
    }

    /// The best location for a pointer: its key when it names a member, else its value, else its nearest parent.
    public func location(of pointer: String, preferKey: Bool = false) -> SourceLocation? {
        var current = pointer
        while true {
            if preferKey, let key = keyLocations[current] { return key }
            if let value = valueLocations[current] { return value }
            if let key = keyLocations[current] { return key }
            guard let slash = current.lastIndex(of: "/") else { return nil }
            current = String(current[..<slash])
        }
    }

    private struct Scanner {
        let bytes: [UInt8]
        var offset = 0
        var line = 1
        var column = 1

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

        mutating func skipWhitespace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { advance() }
        }

        mutating func scanValue(pointer: String, into map: inout JSONSourceMap) {
            map.valueLocations[pointer] = location
            switch current {
            case UInt8(ascii: "{"):
                advance()
                var seen: [String: SourceLocation] = [:]
                skipWhitespace()
                while let byte = current, byte != UInt8(ascii: "}") {
                    if byte == UInt8(ascii: ",") {
                        advance()
                        skipWhitespace()
                        continue
                    }
                    let keyLocation = location
                    let key = scanString()
                    let memberPointer = JSONPointer.appending(key, to: pointer)
                    if let first = seen[key] {
                        map.duplicateKeys.append(
                            DuplicateKey(pointer: memberPointer, key: key, first: first, repeated: keyLocation))
                    } else {
                        seen[key] = keyLocation
                        map.keyLocations[memberPointer] = keyLocation
                    }
                    skipWhitespace()
                    if current == UInt8(ascii: ":") { advance() }
                    skipWhitespace()
                    // For a repeated key the later value is the one json-c keeps, so it overwrites the location.
                    scanValue(pointer: memberPointer, into: &map)
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
                    scanValue(pointer: JSONPointer.appending(index, to: pointer), into: &map)
                    index += 1
                    skipWhitespace()
                }
                advance()
            case UInt8(ascii: "\""):
                _ = scanString()
            default:
                while let byte = current,
                    !(byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]")
                        || byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09)
                {
                    advance()
                }
            }
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
