import Foundation
import Testing

@testable import MatterFlowJSON

/// `JSONDocument.readText` reads files with the system's calls; what it answers must be what Foundation's
/// `FileManager.contents(atPath:)` and `String(data:encoding: .utf8)` answer for the same file.
@Suite struct ReadTextTests {
    /// A new directory for one test's files.
    static func directory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mf-read-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Foundation's reading of a file as UTF-8 text, nil when it reads none.
    static func foundationText(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).flatMap { String(data: $0, encoding: .utf8) }
    }

    @Test("a device never ends: it is refused before it is read, whatever the limit")
    func aDeviceIsRefused() throws {
        let error = #expect(throws: DiagnosticsError.self) { try JSONDocument.readText(path: "/dev/zero") }
        #expect(error?.diagnostics.first?.code == DiagnosticCode.unreadableFile)
        #expect(error?.diagnostics.first?.message == "this is a device or a socket, not a file; name a JSON file")
        #expect(FileBytes.contents(of: "/dev/zero") == .failure(.notAFile), "without a limit too (journals)")
    }

    @Test("a FIFO without a writer reads as empty at once instead of blocking; one with a writer is read to its end")
    func aFIFOIsReadWithoutWaitingForAWriter() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/pipe.json"
        #expect(mkfifo(path, 0o600) == 0)
        #expect(FileBytes.contents(of: path) == .success([]))
        #expect(FileBytes.contents(of: path, regularOnly: true) == .failure(.notAFile), "where only a file will do")
        // A pipe as `<(command)` gives one, /dev/fd/N, whose writer is there.
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        _ = Array(#"{"a": 1}"#.utf8).withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
        close(ends[1])
        #expect(try JSONDocument.readText(path: "/dev/fd/\(ends[0])") == #"{"a": 1}"#)
    }

    @Test func textsReadAsFoundationReadsThem() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let contents: [[UInt8]] = [
            [],
            Array(#"{"a": 1}"#.utf8),
            [0xEF, 0xBB, 0xBF] + Array(#"{"a": 1}"#.utf8),
            [0xEF, 0xBB, 0xBF],
            Array("{\"é\": \"\u{1F600}\"}\n".utf8),
            [0x7B, 0x00, 0x7D],
            Array(repeating: UInt8(ascii: " "), count: 70_000) + Array("{}".utf8),
        ]
        for (index, bytes) in contents.enumerated() {
            let path = directory + "/\(index).json"
            #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
            let expected = Self.foundationText(path)
            #expect(expected != nil)
            #expect(try JSONDocument.readText(path: path) == expected, "file \(index)")
        }
    }

    @Test func invalidUTF8IsASyntaxError() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/bad.json"
        #expect(FileManager.default.createFile(atPath: path, contents: Data([0x7B, 0xFF, 0x7D])))
        #expect(Self.foundationText(path) == nil)
        #expect(throws: DiagnosticsError.self) { try JSONDocument.readText(path: path) }
        do {
            _ = try JSONDocument.readText(path: path)
        } catch {
            #expect(error.diagnostics.map(\.code) == [DiagnosticCode.syntaxError])
            #expect(error.diagnostics.first?.message == "the file is not valid UTF-8 text: byte 0xFF is no part of a UTF-8 character (in Latin-1 or Windows-1252, \"ÿ\"); save the file as UTF-8")
            #expect(error.diagnostics.first?.location == SourceLocation(line: 1, column: 2))
        }
    }

    @Test("a file saved as Windows-1252 is located at its first byte that is no UTF-8, after the characters before it; UTF-16 is named")
    func locatedEncodingProblems() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/latin.json"
        // {"name": "Küche", "room": "K\xFCche"}: the first ü is UTF-8, the second Windows-1252.
        let bytes = Array("{\n  \"name\": \"Küche\",\n  \"room\": \"K".utf8) + [0xFC] + Array("che\"\n}".utf8)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        do {
            _ = try JSONDocument.readText(path: path)
            Issue.record("Windows-1252 text was read")
        } catch {
            #expect(error.diagnostics.first?.location == SourceLocation(line: 3, column: 13), "\(error.diagnostics)")
            #expect(error.diagnostics.first?.message.contains("byte 0xFC") == true)
            #expect(error.diagnostics.first?.message.contains("\"ü\"") == true)
        }
        let utf16 = directory + "/utf16.json"
        #expect(FileManager.default.createFile(atPath: utf16, contents: Data([0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00])))
        do {
            _ = try JSONDocument.readText(path: utf16)
            Issue.record("UTF-16 text was read")
        } catch {
            #expect(error.diagnostics.first?.message == "the file is UTF-16 text (it starts with a UTF-16 byte order mark), not UTF-8; save it as UTF-8")
        }
    }

    @Test func unreadablePathsAreReported() throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Data("{}".utf8).write(to: URL(fileURLWithPath: directory + "/present.json"))
        let cases: [(path: String, code: String)] = [
            (directory + "/missing.json", DiagnosticCode.fileNotFound),
            (directory, DiagnosticCode.unreadableFile),
            // Cut at its NUL, the path would name a file that is there.
            (directory + "/present.json\u{0}", DiagnosticCode.fileNotFound),
        ]
        for (path, code) in cases {
            do {
                _ = try JSONDocument.readText(path: path)
                Issue.record("\(path) was read")
            } catch {
                #expect(error.diagnostics.map(\.code) == [code], "\(path)")
            }
        }
    }
}

@Suite struct NULByteTests {
    @Test("a NUL byte in the text is named, with what usually puts it there, at its own place")
    func aNULByteIsNamed() {
        for (text, column) in [("{\"a\":\u{0} 1}", 6), ("{\u{0}\"\u{0}a\u{0}\"\u{0}:\u{0}1\u{0}}\u{0}", 2)] {
            let error = #expect(throws: DiagnosticsError.self) { try JSONDocument.parse(text, file: "f.json") }
            let diagnostic = error?.diagnostics.first
            #expect(diagnostic?.message.hasPrefix("invalid JSON: a NUL byte, which JSON text never holds") == true, "\(String(describing: diagnostic))")
            #expect(diagnostic?.location == SourceLocation(line: 1, column: column))
        }
        let other = #expect(throws: DiagnosticsError.self) { try JSONDocument.parse("{\"a\": 1,}", file: "f.json") }
        #expect(other?.diagnostics.first?.message.contains("NUL") == false)
    }
}
