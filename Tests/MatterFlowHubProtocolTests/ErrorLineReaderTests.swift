import Foundation
@testable import MatterFlowHubProtocol
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The reader of a hub command's standard error: what a worker logs, line by line, of what its hub writes there.
@Suite struct ErrorLineReaderTests {
    /// The lines the reader hands on for `bytes` written to a pipe in `chunks` writes, once the writer closed it.
    static func lines(of bytes: [UInt8], chunks: Int = 1) async throws -> [String] {
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let delivered = Mutex<[String]>([])
        let end = ErrorLineReader.start(ends[0]) { line in delivered.withLock { $0.append(line) } }
        let size = max(1, (bytes.count + chunks - 1) / chunks)
        for start in stride(from: 0, to: bytes.count, by: size) {
            let chunk = Array(bytes[start..<min(bytes.count, start + size)])
            var written = 0
            while written < chunk.count {
                let count = chunk[written...].withUnsafeBytes { write(ends[1], $0.baseAddress, $0.count) }
                try #require(count > 0)
                written += count
            }
        }
        close(ends[1])
        let deadline = ContinuousClock.now + .seconds(30)
        while !end.isDone {
            try #require(ContinuousClock.now < deadline, "the reader never saw the pipe's end")
            try await Task.sleep(for: .milliseconds(2))
        }
        return delivered.withLock { $0 }
    }

    @Test("each line is handed on without its line end, a CR LF's carriage return too, and a last line without a newline as well")
    func lineEnds() async throws {
        #expect(try await Self.lines(of: Array("first\nsecond\r\n\nlast words".utf8)) == ["first", "second", "", "last words"])
    }

    @Test("a line split across writes, or across the reader's 4096-byte reads, is handed on whole")
    func linesAcrossReads() async throws {
        let long = String(repeating: "x", count: 3000)
        let text = (0..<5).map { "\($0) \(long)" }.joined(separator: "\n") + "\n"
        let expected = (0..<5).map { "\($0) \(long)" }
        #expect(try await Self.lines(of: Array(text.utf8), chunks: 7) == expected)
        #expect(try await Self.lines(of: Array(text.utf8), chunks: 1) == expected)
    }

    @Test("a line longer than 4096 bytes is cut there, marked so, and the line after it is whole")
    func overlongLine() async throws {
        let text = String(repeating: "a", count: 10_000) + "\nnext\n"
        #expect(try await Self.lines(of: Array(text.utf8), chunks: 3) == [String(repeating: "a", count: ErrorLineReader.longestLine) + "…", "next"])
    }

    @Test("a cut line loses the word the cut fell in: a secret cut in two is not left half written, where redaction would not know it")
    func cutWordIsDropped() async throws {
        let head = String(repeating: "x", count: ErrorLineReader.longestLine - 30)
        let text = head + " sent {\"onboardingPayload\":\"MT:Y.K9042C00KA0648G00\"} and more\n"
        let lines = try await Self.lines(of: Array(text.utf8))
        #expect(lines == [head + " sent {\"onboardingPayload\":\"…"], "\(lines.map { $0.suffix(40) })")
    }

    @Test("bytes that are not UTF-8 are replaced, and the rest of the line kept")
    func invalidBytes() async throws {
        #expect(try await Self.lines(of: [0x61, 0xFF, 0x62, 0x0A]) == ["a\u{FFFD}b"])
    }

    @Test("nothing written, nothing handed on: the reader still ends")
    func nothingWritten() async throws {
        #expect(try await Self.lines(of: []) == [])
    }
}
