/// One finding about an input file: a stable code, a severity, where it is, and what to do.
public struct Diagnostic: Sendable, Hashable, CustomStringConvertible {
    /// How serious a finding is. Errors make a file unusable; warnings do not.
    public enum Severity: String, Sendable, Hashable, Comparable {
        case error
        case warning

        /// Errors sort before warnings.
        public static func < (lhs: Severity, rhs: Severity) -> Bool {
            lhs == .error && rhs == .warning
        }
    }

    /// Whether the finding is an error, which makes the file unusable, or a warning.
    public var severity: Severity
    /// A stable, camel-case code (``DiagnosticCode``) that scripts and tests may rely on.
    public var code: String
    /// What is wrong and what to do about it.
    public var message: String
    /// The file the finding is about, when it came from a file.
    public var file: String?
    /// JSON pointer to the offending value or member (`""` for the whole document).
    public var pointer: String
    /// Line and column, when known.
    public var location: SourceLocation?

    /// Creates a finding; `file` is nil for input that did not come from a file, `pointer` `""` for the whole document,
    /// and `location` nil when the position is not known.
    public init(
        severity: Severity, code: String, message: String, file: String? = nil, pointer: String = "",
        location: SourceLocation? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.file = file
        self.pointer = pointer
        self.location = location
    }

    /// Compiler-style rendering: `path:line:col: error[code]: /pointer: message`, always one line.
    ///
    /// The path, pointer and message may hold text from the user's files (a file name, a member name), and a line
    /// break in one of them would start a line that looks like another diagnostic. Each line break (LF, CR, VT, FF,
    /// NEL, U+2028, U+2029) is shown as its `\u` escape (`\u000a`), the escape JSON and the CLI's terminal output
    /// use. ``jsonValue`` keeps the values as they are: a JSON writer escapes them.
    public var description: String {
        var prefix = Self.singleLine(file ?? "<input>")
        if let location { prefix += ":\(location.line):\(location.column)" }
        let at = pointer.isEmpty ? "" : "\(Self.singleLine(pointer)): "
        return "\(prefix): \(severity.rawValue)[\(code)]: \(at)\(Self.singleLine(message))"
    }

    /// `text` with every line break written as a `\uXXXX` escape.
    private static func singleLine(_ text: String) -> String {
        UnicodeEscaping.escaping(text) { scalar in
            switch scalar.value {
            case 0x0A...0x0D, 0x85, 0x2028, 0x2029: return true
            default: return false
            }
        }
    }

    /// The diagnostic as a JSON object for `--json` output.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["severity"] = .string(severity.rawValue)
        object["code"] = .string(code)
        object["message"] = .string(message)
        object["file"] = file.map(JSONValue.string) ?? .null
        object["pointer"] = .string(pointer)
        object["line"] = location.map { .int($0.line) } ?? .null
        object["column"] = location.map { .int($0.column) } ?? .null
        return .object(object)
    }
}

extension Array where Element == Diagnostic {
    /// Whether any finding is an error.
    public var hasErrors: Bool { contains { $0.severity == .error } }

    /// The findings ordered by file, then position, then code.
    public func sortedByLocation() -> [Diagnostic] {
        enumerated().sorted { lhs, rhs in
            let (left, right) = (lhs.element, rhs.element)
            if left.file != right.file { return (left.file ?? "") < (right.file ?? "") }
            let leftLocation = left.location ?? SourceLocation(line: .max, column: .max)
            let rightLocation = right.location ?? SourceLocation(line: .max, column: .max)
            if leftLocation != rightLocation { return leftLocation < rightLocation }
            return lhs.offset < rhs.offset
        }.map(\.element)
    }
}

/// A thrown wrapper for findings that stop a file from being used.
public struct DiagnosticsError: Error, Sendable, CustomStringConvertible {
    /// The findings the error carries, in the order they were given.
    public var diagnostics: [Diagnostic]

    /// Wraps `diagnostics` to be thrown.
    public init(_ diagnostics: [Diagnostic]) {
        self.diagnostics = diagnostics
    }

    /// Each finding's one-line ``Diagnostic/description``, joined by line feeds.
    public var description: String {
        diagnostics.map(\.description).joined(separator: "\n")
    }
}
