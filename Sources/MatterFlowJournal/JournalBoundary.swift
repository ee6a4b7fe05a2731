/// A point where a journal writer touches the disk: just before a record is written, just after it is written
/// (and flushed, where the record is a side-effect boundary), or in the middle of a torn write.
///
/// Test harnesses pass a ``JournalTestHook`` to stop a process at a chosen boundary; production code passes none.
public struct JournalBoundary: Sendable, Hashable, CustomStringConvertible {
    /// Where a boundary falls relative to the record's write.
    public enum Position: String, Sendable, Hashable, CaseIterable {
        /// The record is about to be written (everything before it, including any hub call, has happened).
        case before
        /// The record is written and, for side-effect records, flushed to disk.
        case after
        /// Only the first half of the record's bytes were written (a simulated torn write).
        case torn
    }

    /// Where the boundary falls relative to the record's write: before, after, or in the middle of a torn one.
    public var position: Position
    /// The record's sequence number (1 for `runStarted`).
    public var sequence: Int
    /// The record's type.
    public var type: String

    /// Creates the boundary at `position` of the record numbered `sequence`, whose type is `type`.
    public init(position: Position, sequence: Int, type: String) {
        self.position = position
        self.sequence = sequence
        self.type = type
    }

    /// `before:12`, `after:12` or `torn:12`: the form `MATTERFLOW_CRASH_AT` uses.
    public var description: String { "\(position.rawValue):\(sequence)" }

    /// Parses `before:N`, `after:N` or `torn:N` (N ≥ 1); nil for anything else.
    public static func parse(_ text: String) -> (Position, Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let position = Position(rawValue: String(parts[0])), let sequence = Int(parts[1]),
            sequence >= 1
        else { return nil }
        return (position, sequence)
    }
}

/// What a writer does at a boundary.
public enum JournalHookAction: Sendable, Hashable {
    /// Carry on.
    case proceed
    /// At a `before` boundary: write only the first half of the record, flush it, report the `torn` boundary,
    /// and fail every later write (a simulated power cut mid-write).
    case tear
}

/// Called at every boundary of a journal writer, on the writing task. Returns what to do; a test hook may also
/// end the process there.
public typealias JournalTestHook = @Sendable (JournalBoundary) -> JournalHookAction
