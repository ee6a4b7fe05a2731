import Foundation
import MatterFlowJSON
import Synchronization

/// Outcomes of earlier loads of workflow files, each with the exact bytes of every file it read, so that loading
/// an unchanged workflow again (as a service does for every device it commissions) skips decoding, validation
/// and verification.
///
/// An outcome is reused only when every file it read still has the same bytes, read again and compared in full:
/// a change to any file of the tree (the named one or a sub-workflow, at any depth) means a fresh load. A load
/// that could not read some file (missing, a directory, unreadable) is never kept, so creating or fixing that
/// file is always seen. Relative paths are kept with the current directory they were resolved from.
///
/// The outcome of a load depends only on those bytes, the paths and the operation catalog; the cache belongs to
/// one ``WorkflowEngine`` and is replaced when its catalog is.
final class WorkflowLoadCache: Sendable {
    /// A file a load read, with its bytes.
    struct FileRead: Sendable {
        var path: String
        var text: String
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

    private let state = Mutex(State())

    /// The outcome of loading `path`: an earlier one when no file it read has changed, else a fresh load.
    func outcome(path: String, loader: WorkflowLoader) -> WorkflowLoader.Outcome {
        let key = Key(path: path, directory: path.hasPrefix("/") ? "" : FileManager.default.currentDirectoryPath)
        if let entry = state.withLock({ $0.entries[key] }), entry.files.allSatisfy(Self.isUnchanged) {
            return entry.outcome
        }
        let (outcome, files) = loader.loadRecordingFiles(path: path)
        guard let files else { return outcome }
        state.withLock { state in
            if state.entries.updateValue(Entry(outcome: outcome, files: files), forKey: key) == nil {
                state.order.append(key)
            }
            if state.order.count > Self.capacity {
                state.entries[state.order.removeFirst()] = nil
            }
        }
        return outcome
    }

    /// Whether a file still holds exactly the bytes it held when it was read.
    private static func isUnchanged(_ file: FileRead) -> Bool {
        guard case .success(let bytes) = FileBytes.contents(of: file.path) else { return false }
        var text = file.text
        // Compared with `memcmp`: every reload compares each file of the tree (about 14 KB in 8 files for
        // commission-device), and a byte-by-byte loop made that most of a reload's time.
        return text.withUTF8 { stored in
            bytes.count == stored.count
                && bytes.withUnsafeBytes { current in stored.isEmpty || memcmp(current.baseAddress!, stored.baseAddress!, stored.count) == 0 }
        }
    }
}
