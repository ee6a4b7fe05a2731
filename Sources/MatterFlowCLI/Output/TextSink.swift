import Foundation
import Synchronization

/// Where the CLI writes text: standard output, standard error, or a buffer in tests.
public protocol TextSink: Sendable {
    func write(_ text: String)
}

extension TextSink {
    /// Writes a line.
    public func line(_ text: String) { write(text + "\n") }
}

/// A process stream, written through `FileHandle` (no global C state is touched).
public struct StandardStream: TextSink {
    private let handle: FileHandle

    /// Standard output.
    public static var output: StandardStream { StandardStream(handle: .standardOutput) }
    /// Standard error.
    public static var error: StandardStream { StandardStream(handle: .standardError) }

    public func write(_ text: String) {
        handle.write(Data(text.utf8))
    }
}

/// Collects text in memory, for testing the CLI in-process.
public final class CapturedText: TextSink {
    private let buffer = Mutex("")

    public init() {}

    public func write(_ text: String) {
        buffer.withLock { $0 += text }
    }

    /// Everything written so far.
    public var text: String { buffer.withLock { $0 } }
}
