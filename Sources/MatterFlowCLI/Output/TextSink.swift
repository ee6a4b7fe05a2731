import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the CLI writes text: standard output, standard error, or a buffer in tests.
public protocol TextSink: Sendable {
    func write(_ text: String)
    /// Why text could not be written (a full disk, a closed pipe), once it could not; nil while it can.
    var writeFailure: String? { get }
}

extension TextSink {
    /// Writes a line.
    public func line(_ text: String) { write(text + "\n") }

    /// Nil: the default never reports a failed write.
    public var writeFailure: String? { nil }
}

/// A process stream, written with `write(2)`. A write that fails (no space left, a reader that went away) is not
/// retried and the text after it is dropped: the command goes on and ends, and its exit code says the output was
/// lost (``MatterflowTool/main(arguments:environment:)``).
public final class StandardStream: TextSink {
    private let descriptor: Int32
    private let failure = Mutex<String?>(nil)

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Standard output.
    public static let output = StandardStream(descriptor: 1)
    /// Standard error.
    public static let error = StandardStream(descriptor: 2)

    /// The system's reason (`strerror`) the first failed write gave; nil while every write has succeeded.
    public var writeFailure: String? { failure.withLock { $0 } }

    /// Writes all of `text`, one writer at a time so that concurrent lines do not interleave; drops it once a write
    /// has failed.
    public func write(_ text: String) {
        // One writer at a time, so lines from concurrent tasks do not interleave.
        failure.withLock { failure in
            guard failure == nil else { return }
            var text = text
            text.withUTF8 { bytes in
                guard let base = bytes.baseAddress else { return }
                var offset = 0
                while offset < bytes.count {
                    let written = Self.systemWrite(descriptor, base + offset, bytes.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR || errno == EAGAIN {
                        var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                        _ = poll(&ready, 1, 1000)
                    } else {
                        failure = String(cString: strerror(written < 0 ? errno : EIO))
                        return
                    }
                }
            }
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafePointer<UInt8>, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, bytes, count)
        #else
            Darwin.write(descriptor, bytes, count)
        #endif
    }
}

/// Collects text in memory, for testing the CLI in-process.
public final class CapturedText: TextSink {
    private let buffer = Mutex("")

    /// An empty buffer.
    public init() {}

    /// Appends `text` to the buffer.
    public func write(_ text: String) {
        buffer.withLock { $0 += text }
    }

    /// Everything written so far.
    public var text: String { buffer.withLock { $0 } }
}
