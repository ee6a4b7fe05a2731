import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads a hub child's standard error on a thread of its own and hands on each line, until every process holding
/// the pipe's other end has closed it (the hub and whatever it started); then closes its end.
enum ErrorLineReader {
    /// The longest line handed on, in bytes; the rest of a longer line is dropped, with the word the cut fell in
    /// (``cut(_:)``).
    static let longestLine = 4096

    /// Whether a reader has handed on its last line.
    final class End: Sendable {
        private let done = Mutex(false)

        var isDone: Bool { done.withLock { $0 } }

        func finish() { done.withLock { $0 = true } }
    }

    /// Starts reading `descriptor`, which it then owns; the returned end says when the last line was handed on.
    static func start(_ descriptor: Int32, _ deliver: @escaping @Sendable (String) -> Void) -> End {
        let end = End()
        let thread = Thread {
            var line: [UInt8] = []
            var cut = false
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                for byte in buffer[..<count] {
                    if byte == UInt8(ascii: "\n") {
                        deliver(cut ? Self.cut(line) : text(line))
                        line.removeAll(keepingCapacity: true)
                        cut = false
                    } else if line.count < longestLine {
                        line.append(byte)
                    } else {
                        cut = true
                    }
                }
            }
            if !line.isEmpty { deliver(cut ? Self.cut(line) : text(line)) }
            close(descriptor)
            end.finish()
        }
        thread.start()
        return end
    }

    /// A line cut at ``longestLine``, as text: without the word the cut fell in (back to the last space, quote or
    /// punctuation), which may be the start of a secret that redaction, seeing only part of it, would not know;
    /// then `…`. A line that is one word is kept as cut.
    static func cut(_ bytes: [UInt8]) -> String {
        let delimiters = Set(" \t\"',:;=()[]{}<>".utf8)
        guard let last = bytes.lastIndex(where: delimiters.contains) else { return text(bytes) + "…" }
        return text(Array(bytes[...last])) + "…"
    }

    /// A line's bytes as text: a carriage return before the end dropped, bytes that are not UTF-8 replaced.
    static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.last == UInt8(ascii: "\r") ? bytes.dropLast() : bytes[...], as: UTF8.self)
    }
}
