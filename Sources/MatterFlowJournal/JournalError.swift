/// A journal problem, with a stable code and a message that says what to do.
public struct JournalError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable codes (documented in `docs/journal.md`).
    public enum Code: String, Sendable, Hashable {
        /// The journal directory or a journal file cannot be created, written or flushed.
        case journalUnwritable
        /// A file or directory cannot be read.
        case journalUnreadable
        /// A file does not start with the journal header.
        case notAJournal
        /// No journal for the run ID in the directory.
        case runNotFound
        /// The journal directory to read does not exist (readers never create it).
        case journalNotFound
        /// A record is intact (its checksum matches) but a member is missing or of the wrong type: another
        /// MatterFlow version wrote it, or it was edited. The message names the file, record, byte offset and member.
        case malformedRecord
        /// The journal names a format newer than this MatterFlow reads (its header, or its `runStarted` record's
        /// `format`): a newer MatterFlow wrote it, and reads and recovers it.
        case newerFormat
    }

    /// What kind of problem it is: a stable code scripts may rely on.
    public var code: Code
    /// What went wrong and what to do about it, for a person.
    public var message: String

    /// Creates an error with a stable code and a message for a person.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`, on one line.
    public var description: String { "\(code.rawValue): \(message)" }
}
