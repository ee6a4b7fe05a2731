import Foundation

/// A 1-based line and column in a text file. Columns count characters (Unicode scalars), not bytes.
public struct SourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The line, counted from 1.
    public var line: Int
    /// The column, counted from 1 in Unicode scalars.
    public var column: Int

    /// Creates a location from a 1-based line and column.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`, such as `12:5`.
    public var description: String { "\(line):\(column)" }

    /// Whether `lhs` comes before `rhs` in the text: by line, then by column.
    public static func < (lhs: SourceLocation, rhs: SourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }

    /// The location of a byte offset in UTF-8 text.
    public static func of(byteOffset: Int, in utf8: some Collection<UInt8>) -> SourceLocation {
        var line = 1
        var column = 1
        for byte in utf8.prefix(byteOffset) {
            if byte == 0x0A {
                line += 1
                column = 1
            } else if byte & 0xC0 != 0x80 {
                column += 1
            }
        }
        return SourceLocation(line: line, column: column)
    }
}

/// JSON Pointer (RFC 6901) helpers. Pointers are kept as strings: `""` is the root, `/states/prepare` a member.
public enum JSONPointer {
    /// Appends an object key or array index to a pointer, escaping `~` and `/`.
    public static func appending(_ token: String, to pointer: String) -> String {
        // Almost no key holds `~` or `/`: such a token is used as it is, without walking its characters.
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else {
            var appended = pointer
            appended.reserveCapacity(pointer.utf8.count + 1 + token.utf8.count)
            appended += "/"
            appended += token
            return appended
        }
        var escaped = ""
        escaped.reserveCapacity(token.utf8.count)
        for character in token {
            switch character {
            case "~": escaped += "~0"
            case "/": escaped += "~1"
            default: escaped.append(character)
            }
        }
        return pointer + "/" + escaped
    }

    /// Appends an array index to a pointer.
    public static func appending(_ index: Int, to pointer: String) -> String {
        pointer + "/" + String(index)
    }

    /// Splits a pointer into its unescaped tokens.
    public static func tokens(of pointer: String) -> [String] {
        guard !pointer.isEmpty else { return [] }
        return pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
    }
}
