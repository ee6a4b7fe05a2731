import MatterFlowJSON

/// What a journal file holds: its valid records, and what (if anything) follows them.
public struct JournalContents: Sendable {
    /// An invalid tail after the last valid record: a record torn by a crash mid-write. It is reported and
    /// ignored, never read as a record.
    public struct TornTail: Sendable, Hashable {
        /// Where the torn bytes start.
        public var offset: Int
        /// How many bytes follow there.
        public var length: Int
        /// What is wrong with them.
        public var reason: String
    }

    /// The journal file read; for records a run store holds, the store's (sink's) name instead.
    public var path: String
    /// The valid records, in order.
    public var records: [JournalRecord]
    /// The number of bytes the header and the valid records take.
    public var validLength: Int
    /// The torn bytes after the last valid record; nil when the file ends with a whole record (or its header).
    public var tornTail: TornTail?
    /// Damage that a crash cannot explain (a bad record followed by good ones, a gap in sequence numbers).
    public var problems: [String]

    /// Whether the journal has a valid `runStarted` record.
    public var hasStart: Bool { records.contains { $0.type == JournalEntry.Kind.runStarted.rawValue } }

    /// Whether the journal has no valid `runStarted` record although the run went further: valid records or
    /// damage follow where it should be. (A file with no complete record at all is a run that never started.)
    public var startIsDamaged: Bool { !hasStart && (!records.isEmpty || !problems.isEmpty) }

    /// The records, typed.
    /// - Throws: ``JournalError`` `newerFormat` when the run's `runStarted` record names a format newer than this
    ///   MatterFlow reads, else `malformedRecord` for the first record whose members do not decode, naming it.
    public func entries() throws(JournalError) -> JournalEntries {
        for record in records where record.type == JournalEntry.Kind.runStarted.rawValue {
            if let format = record.payload["format"]?.intValue, format > JournalFrame.formatVersion {
                throw JournalFrame.newer(format, path: path)
            }
        }
        var entries: [JournalEntryRecord] = []
        entries.reserveCapacity(records.count)
        for record in records { entries.append(try JournalEntryCodec.decode(record, path: path)) }
        return JournalEntries(entries)
    }
}

/// Reads journal files, detecting a torn last record.
public enum JournalReader {
    /// Reads a journal file.
    /// - Throws: ``JournalError`` when the file cannot be read or is not a journal.
    public static func read(path: String) throws(JournalError) -> JournalContents {
        try decode(try JournalFile.readAll(path), path: path)
    }

    /// Decodes a journal's bytes.
    public static func decode(_ bytes: [UInt8], path: String) throws(JournalError) -> JournalContents {
        let header = Array(JournalFrame.header.utf8)
        var contents = JournalContents(path: path, records: [], validLength: 0, tornTail: nil, problems: [])
        guard bytes.count >= header.count else {
            guard bytes == Array(header.prefix(bytes.count)) else {
                throw JournalError(.notAJournal, "\(path) does not start with \"MATTERFLOW-JOURNAL 1\"; it is not a MatterFlow journal")
            }
            if !bytes.isEmpty {
                contents.tornTail = .init(offset: 0, length: bytes.count, reason: "the journal header is incomplete")
            }
            return contents
        }
        guard Array(bytes.prefix(header.count)) == header else {
            if let format = JournalFrame.newerHeaderFormat(bytes) { throw JournalFrame.newer(format, path: path) }
            throw JournalError(.notAJournal, "\(path) does not start with \"MATTERFLOW-JOURNAL 1\"; it is not a MatterFlow journal")
        }
        var offset = header.count
        contents.validLength = offset
        while true {
            switch JournalFrame.decode(bytes, at: offset) {
            case .end:
                return contents
            case .record(let payload, let end):
                let record = JournalRecord(payload: payload, offset: offset)
                let expected = (contents.records.last?.sequence ?? 0) + 1
                if record.sequence != expected {
                    contents.problems.append(
                        "the record at byte \(offset) has sequence number \(record.sequence), expected \(expected)")
                }
                contents.records.append(record)
                offset = end
                contents.validLength = end
            case .damaged(let reason, let end):
                // Whole, as written: damage to report, never a torn tail to cut off.
                contents.problems.append("the record at byte \(offset) cannot be read (\(reason)); the journal is damaged")
                offset = end
                contents.validLength = end
            case .invalid(let reason):
                if let later = firstValidRecord(in: bytes, after: offset) {
                    contents.problems.append(
                        "the bytes \(offset)..<\(later) are not a valid record (\(reason)) but valid records follow them; the journal is damaged")
                    offset = later
                    continue
                }
                contents.tornTail = .init(offset: offset, length: bytes.count - offset, reason: reason)
                return contents
            }
        }
    }

    /// The offset of the first valid record that starts after a newline past `offset`, if any.
    private static func firstValidRecord(in bytes: [UInt8], after offset: Int) -> Int? {
        var index = offset
        while index < bytes.count {
            if bytes[index] == 0x0A, index + 1 < bytes.count {
                switch JournalFrame.decode(bytes, at: index + 1) {
                case .record, .damaged: return index + 1
                case .end, .invalid: break
                }
            }
            index += 1
        }
        return nil
    }
}
