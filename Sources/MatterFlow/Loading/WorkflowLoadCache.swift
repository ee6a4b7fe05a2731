import Foundation
import MatterFlowJSON
import Synchronization

/// Outcomes of earlier loads of workflow files, each with the exact bytes of every file it read, so that loading
/// an unchanged workflow again (as a service does for every device it commissions) skips decoding, validation
/// and verification.
///
/// An outcome is reused only when every file it read still has the same bytes: a change to any file of the tree
/// (the named one or a sub-workflow, at any depth) means a fresh load. A file is known unchanged without reading
/// it when its stamp (which file, its size, its modification and change times: ``FileStamp``) is the one it had
/// when its bytes were read, and those times were already ``settledSeconds`` old then; otherwise its bytes are
/// read again and compared in full. (A file system's clock ticks coarsely: a file written twice within one tick
/// can keep its stamp, so only a stamp from before the latest ticks vouches for the bytes, as in Git's index.)
/// A load that could not read some file (missing, a directory, unreadable) is never kept, so creating or fixing
/// that file is always seen. Relative paths are kept with the current directory they were resolved from.
///
/// The outcome of a load depends only on those bytes, the paths and the operation catalog; the cache belongs to
/// one ``WorkflowEngine`` and is replaced when its catalog is.
final class WorkflowLoadCache: Sendable {
    /// A file a load read, with its bytes.
    struct FileRead: Sendable {
        var path: String
        var text: String
        /// The file's stamp taken before `text` was read; kept only while it vouches for `text` (``settled(_:)``).
        var stamp: FileStamp?
    }

    private struct Entry: Sendable {
        var outcome: WorkflowLoader.Outcome
        var files: [FileRead]
    }

    private struct Key: Hashable, Sendable {
        var path: String
        /// The current directory, for a relative path; empty for an absolute one.
        var directory: String
    }

    private struct State: Sendable {
        var entries: [Key: Entry] = [:]
        /// Keys in the order they were added, so the oldest is dropped first.
        var order: [Key] = []
    }

    /// At most this many workflow files are remembered (each with the texts of its tree).
    static let capacity = 64

    /// How old a file's modification and change times must be, when its bytes are read, for its stamp to vouch
    /// for them later: more than the coarsest tick of a file system's clock (FAT's two seconds).
    static let settledSeconds = 3

    private let state = Mutex(State())
    /// The wall clock, as file systems stamp files.
    private let now: @Sendable () -> FileStamp.Timestamp

    init(now: @escaping @Sendable () -> FileStamp.Timestamp = WorkflowLoadCache.wallClock) {
        self.now = now
    }

    /// The outcome of loading `path`: an earlier one when no file it read has changed, else a fresh load.
    func outcome(path: String, loader: WorkflowLoader) -> WorkflowLoader.Outcome {
        let key = Key(path: path, directory: path.hasPrefix("/") ? "" : FileManager.default.currentDirectoryPath)
        if let entry = state.withLock({ $0.entries[key] }) {
            switch check(entry.files) {
            case .vouched:
                return entry.outcome
            case .readAgain(let files):
                state.withLock { $0.entries[key]?.files = files }
                return entry.outcome
            case .changed:
                break
            }
        }
        let (outcome, files) = loader.loadRecordingFiles(path: path)
        guard let files else { return outcome }
        let entry = Entry(outcome: outcome, files: files.map(settled))
        state.withLock { state in
            if state.entries.updateValue(entry, forKey: key) == nil {
                state.order.append(key)
            }
            if state.order.count > Self.capacity {
                state.entries[state.order.removeFirst()] = nil
            }
        }
        return outcome
    }

    /// What a look at the files an outcome was loaded from found.
    private enum Check {
        /// Every file's stamp vouched for its bytes: nothing was read.
        case vouched
        /// Some files had to be read, and held the same bytes: the files with the stamps taken then.
        case readAgain([FileRead])
        /// A file changed, or could not be read.
        case changed
    }

    /// Whether every file still holds exactly the bytes it held when it was read.
    private func check(_ files: [FileRead]) -> Check {
        var restamped: [FileRead]?
        for (index, file) in files.enumerated() {
            if let stamp = file.stamp, FileBytes.stamp(of: file.path) == stamp { continue }
            guard case .success(let (bytes, stamp)) = FileBytes.stampedContents(of: file.path), Self.same(bytes, file.text) else {
                return .changed
            }
            if restamped == nil { restamped = files }
            restamped?[index] = settled(FileRead(path: file.path, text: file.text, stamp: stamp))
        }
        return restamped.map(Check.readAgain) ?? .vouched
    }

    /// `file`, keeping its stamp only when that vouches for the file's bytes, so that otherwise its bytes are
    /// compared each time.
    private func settled(_ file: FileRead) -> FileRead {
        var file = file
        file.stamp = file.stamp.flatMap { vouches(for: $0) ? $0 : nil }
        return file
    }

    /// Whether a stamp just taken vouches for the bytes read after it: whether the file's times were already
    /// ``settledSeconds`` old, so that a later change cannot fall within their tick.
    func vouches(for stamp: FileStamp) -> Bool {
        let current = now()
        return stamp.latestTime < FileStamp.Timestamp(seconds: current.seconds - Self.settledSeconds, nanoseconds: current.nanoseconds)
    }

    /// Whether the bytes read are those of `text`, compared with `memcmp`.
    private static func same(_ bytes: [UInt8], _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { stored in
            bytes.count == stored.count
                && bytes.withUnsafeBytes { current in stored.isEmpty || memcmp(current.baseAddress!, stored.baseAddress!, stored.count) == 0 }
        }
    }

    /// The system's wall clock (`CLOCK_REALTIME`), the clock file times are taken from.
    @Sendable static func wallClock() -> FileStamp.Timestamp {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return FileStamp.Timestamp(seconds: Int(time.tv_sec), nanoseconds: Int(time.tv_nsec))
    }
}
