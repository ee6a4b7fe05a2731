#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// A parsed JSON file: the value, where each part of it stands, and the file's name for messages.
public struct JSONDocument: Sendable {
    /// The file path or a label such as `<inputs>`, used in every diagnostic about this document.
    public var file: String
    /// The parsed value.
    public var value: JSONValue
    /// Where each value and key stands in the text, and which keys were repeated in one object.
    public var sourceMap: JSONSourceMap

    /// A document of `value` named `file`; with the default empty source map, its findings carry no positions.
    public init(file: String, value: JSONValue, sourceMap: JSONSourceMap = JSONSourceMap()) {
        self.file = file
        self.value = value
        self.sourceMap = sourceMap
    }

    /// Parses JSON text; a syntax error becomes a `syntaxError` diagnostic with line and column. An escaped UTF-16
    /// surrogate without its other half (`"\ud800"`) is one unless `refusingLoneSurrogates` is false: then it reads
    /// as U+FFFD, as for a peer's messages, which JSON's grammar allows to hold one.
    public static func parse(_ text: String, file: String, refusingLoneSurrogates: Bool = true) throws(DiagnosticsError) -> JSONDocument {
        let (document, numberProblems) = try parseKeepingNumberProblems(text, file: file, refusingLoneSurrogates: refusingLoneSurrogates)
        if !numberProblems.isEmpty { throw DiagnosticsError(numberProblems) }
        return document
    }

    /// Whether `text`, which parses with `refusingLoneSurrogates: false`, holds an escaped UTF-16 surrogate without its
    /// other half (`"\ud800"`): what parsing it with `refusingLoneSurrogates: true` would refuse, found without
    /// parsing it again. A text with no `\u` escape of a surrogate (`\uD8`–`\uDF`, the case of most requests) is
    /// passed over in one byte scan, without the strictness check's walk.
    public static func holdsLoneSurrogate(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard escapesSurrogate(bytes) else { return false }
            return JSONStrictness.firstViolation(in: bytes, refusingLoneSurrogates: true) != nil
        }
    }

    /// Whether `bytes` hold `\u` followed by `d` or `D` and one of `8`–`9`, `a`–`f`, `A`–`F`: a surrogate's escape.
    private static func escapesSurrogate(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 4 else { return false }
        for offset in 0..<(bytes.count - 3) where bytes[offset] == UInt8(ascii: "\\") && bytes[offset + 1] == UInt8(ascii: "u") {
            guard bytes[offset + 2] | 0x20 == UInt8(ascii: "d") else { continue }
            switch bytes[offset + 3] | 0x20 {
            case UInt8(ascii: "8"), UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): return true
            default: continue
            }
        }
        return false
    }

    /// Parses JSON text like ``parse(_:file:)``, but returns the document even when it holds numbers no Swift number
    /// can (json-c's clamped or non-finite reading of them), with one `numberOutOfRange` diagnostic per such number.
    /// For readers that must answer the rest of the message, such as a request whose id is still needed.
    public static func parseKeepingNumberProblems(
        _ text: String, file: String, refusingLoneSurrogates: Bool = true
    ) throws(DiagnosticsError) -> (document: JSONDocument, numberProblems: [Diagnostic]) {
        var unusualNumbers = false
        let value: JSONValue
        do {
            value = try JSONCBridge.parse(text, unusualNumbers: &unusualNumbers, refusingLoneSurrogates: refusingLoneSurrogates)
        } catch {
            // json-c stops at a NUL byte as at the end of the text: say what it is, and what usually puts it there.
            let nul = text.utf8.firstIndex(of: 0).map { text.utf8.distance(from: text.utf8.startIndex, to: $0) }
            let offset = nul.map { min($0, error.byteOffset) } ?? error.byteOffset
            let message =
                nul.map { $0 <= error.byteOffset } == true
                ? "invalid JSON: a NUL byte, which JSON text never holds; a file saved as UTF-16 has one in every other byte: save it as UTF-8"
                : "invalid JSON: \(error.reason); \(error.advice)"
            throw DiagnosticsError([
                Diagnostic(
                    severity: .error, code: DiagnosticCode.syntaxError, message: message, file: file,
                    location: SourceLocation.of(byteOffset: offset, in: text.utf8))
            ])
        }
        let sourceMap = JSONSourceMap(scanning: text, parsed: value)
        let problems = unusualNumbers ? unrepresentableNumbers(in: sourceMap, file: file) : []
        return (JSONDocument(file: file, value: value, sourceMap: sourceMap), problems)
    }

    /// Numbers the text holds that no Swift number can: `NaN`, `Infinity`, numbers beyond ±1.8e308 and integers
    /// beyond 64 bits (json-c reads them as non-finite or clamps them, which would silently change the value).
    private static func unrepresentableNumbers(in sourceMap: JSONSourceMap, file: String) -> [Diagnostic] {
        sourceMap.numberTokens().compactMap { token in
            let text = token.text
            let shown = text.count > 40 ? "\(text.prefix(20))… (\(text.count) characters)" : text
            let message: String
            if let first = text.first(where: { $0 != "-" }), !first.isNumber {
                message = "\(shown) is not a number JSON allows; write a finite number"
            } else if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                guard Int64(text) == nil else { return nil }
                message = "\(shown) is outside the range of a 64-bit integer (\(Int64.min)...\(Int64.max)); write a number within it"
            } else {
                guard let number = Double(text) else { return nil }
                if number == 0 {
                    // A number too small for a double reads as 0: it is not what the file says unless it says 0.
                    guard NumberRange.underflows(text, readAs: number) else { return nil }
                    message = "\(shown) is closer to 0 than the smallest number a file may hold (±4.9e-324); write 0, or a larger number"
                } else {
                    guard !number.isFinite else { return nil }
                    message = "\(shown) is beyond the largest number a file may hold (±1.8e308); write a smaller number"
                }
            }
            return Diagnostic(
                severity: .error, code: DiagnosticCode.numberOutOfRange, message: message, file: file,
                pointer: token.pointer, location: token.location)
        }
    }

    /// Reads and parses a file; a missing or unreadable file becomes a `fileNotFound` or `unreadableFile` diagnostic.
    public static func load(path: String) throws(DiagnosticsError) -> JSONDocument {
        let text = try readText(path: path)
        return try parse(text, file: path)
    }

    /// Reads and parses a file like ``load(path:)``, but returns the document even when it holds numbers no Swift
    /// number can, with their diagnostics, as ``parseKeepingNumberProblems(_:file:)`` does: for a decoder that
    /// reports them with the file's other findings (`replacingFindings(at:)` on its diagnostics).
    public static func loadKeepingNumberProblems(
        path: String
    ) throws(DiagnosticsError) -> (document: JSONDocument, numberProblems: [Diagnostic]) {
        try parseKeepingNumberProblems(try readText(path: path), file: path)
    }

    /// Reads a UTF-8 text file, reporting a missing or unreadable file as a diagnostic. A leading byte order mark
    /// is not part of the text.
    public static func readText(path: String) throws(DiagnosticsError) -> String {
        try readStampedText(path: path).text
    }

    /// The most bytes a JSON file may hold: far more than any workflow, home or fixture needs (a generated workflow
    /// of 10,000 states is about 1 MiB), and a bound on what reading a file that never ends (`/dev/zero`) takes.
    public static let maximumFileBytes = 64 << 20

    /// The text of a UTF-8 file (see ``readText(path:)``), with the file's stamp taken before it was read.
    public static func readStampedText(path: String) throws(DiagnosticsError) -> (text: String, stamp: FileStamp) {
        // A readable file is the usual case: read it first, and find out what is wrong only when that fails.
        let bytes: [UInt8]
        let stamp: FileStamp
        switch FileBytes.stampedContents(of: path, limit: maximumFileBytes) {
        case .success(let read): (bytes, stamp) = read
        case .failure(let failure): throw unreadable(path: path, failure)
        }
        return (try text(of: bytes, path: path), stamp)
    }

    /// The UTF-8 text an open descriptor gives until its end (standard input: a file, a pipe or a socket), its
    /// findings named `name`. A leading byte order mark is not part of the text.
    public static func readText(descriptor: Int32, name: String) throws(DiagnosticsError) -> String {
        switch FileBytes.contents(ofDescriptor: descriptor, limit: maximumFileBytes) {
        case .success(let bytes): return try text(of: bytes, path: name)
        case .failure(let failure): throw unreadable(path: name, failure)
        }
    }

    /// `bytes` as UTF-8 text without a leading byte order mark, or the finding that says where they are not.
    private static func text(of bytes: [UInt8], path: String) throws(DiagnosticsError) -> String {
        let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]
        let body = bytes.starts(with: byteOrderMark) ? bytes[byteOrderMark.count...] : bytes[...]
        guard let text = String(validating: body, as: UTF8.self) else {
            throw DiagnosticsError([notUTF8(body, path: path)])
        }
        return text
    }

    /// The offset of the first byte of `bytes` that is no part of a UTF-8 character (`bytes.count` when there is none).
    public static func firstNonUTF8Byte(in bytes: some Collection<UInt8>) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while case .valid(let scalar) = parser.parseScalar(from: &iterator) { offset += scalar.count }
        return offset
    }

    /// Where text that is not UTF-8 goes wrong: a UTF-16 file as such, else its first byte that is no part of a
    /// UTF-8 character, at its line and column, with the character it is in Latin-1 (what an editor saving as
    /// Windows-1252 or Latin-1 wrote).
    static func notUTF8(_ bytes: ArraySlice<UInt8>, path: String) -> Diagnostic {
        if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
            return Diagnostic(
                severity: .error, code: DiagnosticCode.syntaxError,
                message: "the file is UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8; save it as UTF-8", file: path)
        }
        let offset = firstNonUTF8Byte(in: bytes)
        let byte = bytes[bytes.startIndex + min(offset, bytes.count - 1)]
        let latin1 = byte >= 0xA0 ? " (in Latin-1 or Windows-1252, \"\(Character(Unicode.Scalar(byte)))\")" : ""
        return Diagnostic(
            severity: .error, code: DiagnosticCode.syntaxError,
            message: "the file is not valid UTF-8 text: byte 0x\(String(byte, radix: 16, uppercase: true)) is no part of a UTF-8 character\(latin1); save the file as UTF-8",
            file: path, location: SourceLocation.of(byteOffset: offset, in: bytes))
    }

    /// Why a file cannot be read, from the system's own answer: it is missing, a symbolic link loop, a directory,
    /// or not readable.
    private static func unreadable(path: String, _ failure: FileBytes.Failure) -> DiagnosticsError {
        func finding(_ code: String, _ message: String) -> DiagnosticsError {
            DiagnosticsError([Diagnostic(severity: .error, code: code, message: message, file: path)])
        }
        let reason: Int32
        switch failure {
        case .cannotOpen(let openError): reason = openError
        case .cannotRead(let readError) where readError == EISDIR: reason = EISDIR
        case .tooLarge(let limit):
            return finding(
                DiagnosticCode.unreadableFile,
                "the file holds more than \(limit >> 20) MiB, more than MatterFlow reads as one JSON document; name a "
                    + "regular JSON file (a device such as /dev/zero never ends), or split the document")
        case .cannotRead:
            return finding(DiagnosticCode.unreadableFile, "the file cannot be read; check it is a regular file")
        case .notAFile:
            return finding(DiagnosticCode.unreadableFile, "this is a device or a socket, not a file; name a JSON file")
        }
        switch reason {
        case ENOENT, ENOTDIR:
            return finding(
                DiagnosticCode.fileNotFound,
                "no such file; check the path (relative paths are resolved from the current directory)")
        case ELOOP:
            return finding(
                DiagnosticCode.unreadableFile,
                "this path is a symbolic link loop (a link that leads back to itself); point the link at a file")
        case EACCES, EPERM:
            return finding(DiagnosticCode.unreadableFile, "permission denied; check the file's permissions")
        case EISDIR:
            return finding(DiagnosticCode.unreadableFile, "this is a directory; name a JSON file")
        default:
            return finding(
                DiagnosticCode.unreadableFile, "the file cannot be read (\(String(cString: strerror(reason))))")
        }
    }

    /// Diagnostics for keys repeated within one object (json-c would silently keep the last).
    public func duplicateKeyDiagnostics() -> [Diagnostic] {
        sourceMap.duplicateKeys.map { duplicate in
            Diagnostic(
                severity: .error, code: DiagnosticCode.duplicateKey,
                message: duplicate.firstSpelling.map { first in
                    "key \"\(duplicate.key)\" appears again (first at \(duplicate.first)), spelled with other bytes for the same characters (\(first.codePointsOutsideASCII) there, \(duplicate.key.codePointsOutsideASCII) here: composed and decomposed Unicode), which name one key; rename one of them, or remove it: only one of the values would be used"
                } ?? "key \"\(duplicate.key)\" appears again (first at \(duplicate.first)); remove one of them, only the last would be used",
                file: file, pointer: duplicate.pointer, location: duplicate.repeated)
        }
    }
}

/// Stable diagnostic codes shared by every file MatterFlow reads.
public enum DiagnosticCode {
    /// The file is not valid JSON, or not UTF-8 text.
    public static let syntaxError = "syntaxError"
    /// A named file does not exist.
    public static let fileNotFound = "fileNotFound"
    /// A named path is not a file that can be read: a directory, a device or socket, a symbolic link loop, or a file
    /// that cannot be read or is larger than ``JSONDocument/maximumFileBytes``.
    public static let unreadableFile = "unreadableFile"
    /// A key appears twice in one object (json-c would silently keep the last).
    public static let duplicateKey = "duplicateKey"
    /// A key the file's format does not define in that place (often a typo).
    public static let unknownKey = "unknownKey"
    /// A required key is absent.
    public static let missingKey = "missingKey"
    /// A value has the wrong JSON type.
    public static let wrongType = "wrongType"
    /// A value is malformed or not allowed in that place.
    public static let invalidValue = "invalidValue"
    /// A number outside the range its field allows, or one JSON cannot hold (NaN, Infinity, an integer beyond
    /// 64 bits, a number beyond ±1.8e308).
    public static let numberOutOfRange = "numberOutOfRange"
    /// The file is written for a newer version of its format than this MatterFlow reads.
    public static let unsupportedVersion = "unsupportedVersion"
}
