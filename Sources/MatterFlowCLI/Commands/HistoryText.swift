import MatterFlowJournal

/// The text form of a run's records, as `history` prints them from a journal file or a store: a first line saying
/// when the first record was written (UTC), then a line per record with its sequence number, seconds since then, type
/// and members. A record written after a pause of ``pauseDated`` seconds or more (a recovery or a takeover, a run that
/// waited long) also says when, so a post-mortem need not add offsets to the start by hand.
enum HistoryText {
    /// The shortest pause after which a record's line gives its own wall time.
    static let pauseDated = 60.0

    /// The lines, with a `#N-#M  (missing: GAP)` line where records are missing from the sequence: `gap` says why
    /// they may be (a journal file's damage is described below its records; a store's loss in the run's notes).
    static func lines(_ records: [JournalRecord], gap: String = "damaged, see below") -> [String] {
        let origin = records.first?.wallTime
        var lines = origin.map { ["records from \(RunsCommand.timestamp($0)) UTC (+seconds since then)"] } ?? []
        var expected = 1
        var previous = origin ?? 0
        for record in records {
            // Records a damaged stretch took are marked where they were, so that a reader of the first lines sees the gap.
            if record.sequence > expected {
                let missing = expected == record.sequence - 1 ? "#\(expected)" : "#\(expected)-#\(record.sequence - 1)"
                lines.append("\(missing)  (missing: \(gap))")
            }
            expected = record.sequence + 1
            let written = record.wallTime ?? previous
            var time = WatchCommand.offset(written - (origin ?? written))
            // A long pause, or the clock stepped back (a record stamped before the one it follows), is dated.
            if abs(written - previous) >= pauseDated { time += " (\(RunsCommand.timestamp(written)) UTC)" }
            lines.append("#\(record.sequence)  \(time)  \(record.type)  \(HistoryCommand.details(record))")
            previous = written
        }
        return lines
    }
}
