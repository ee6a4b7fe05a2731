import MatterFlowJSON
import Synchronization

/// Appends records to one run's journal file, which it holds locked for as long as it is open, or to a
/// ``JournalSink``.
///
/// Every record is written with one `write(2)` as soon as it is appended (a killed process loses nothing it
/// appended); records marked `sync` — the side-effect boundaries — are also flushed with `fsync` before
/// ``append(_:)`` returns. A sink may keep records durable later: ``flush()`` waits for it. After a failed write
/// the writer refuses every later record.
final class JournalWriter: Sendable {
    private struct State {
        var file: JournalFile?
        var sink: (any JournalSink)?
        var nextSequence: Int
        var failure: JournalError?
    }

    let path: String
    private let state: Mutex<State>
    private let hook: JournalTestHook?
    /// The sink the writer writes to, kept after ``close()`` so that ``flush()`` still waits for its records.
    private let durableSink: (any JournalSink)?

    /// Creates a new journal file, locked, holding only the header.
    init(creating path: String, hook: JournalTestHook?) throws(JournalError) {
        let file = try JournalFile.create(path)
        do {
            try file.append(Array(JournalFrame.header.utf8))
        } catch {
            file.close()
            throw error
        }
        JournalFile.syncDirectory(JournalDirectory.parent(of: path))
        self.path = path
        self.hook = hook
        durableSink = nil
        state = Mutex(State(file: file, nextSequence: 1))
    }

    /// Continues a journal this process has locked (recovery), after its last valid record.
    init(continuing file: JournalFile, nextSequence: Int, hook: JournalTestHook?) {
        path = file.path
        self.hook = hook
        durableSink = nil
        state = Mutex(State(file: file, nextSequence: nextSequence))
    }

    /// Writes to a sink instead of a file, continuing after `nextSequence - 1` records.
    init(sink: any JournalSink, nextSequence: Int, hook: JournalTestHook?) {
        path = sink.name
        self.hook = hook
        durableSink = sink
        state = Mutex(State(file: nil, sink: sink, nextSequence: nextSequence))
    }

    /// Appends one entry as a record `{"seq", "type", "wallTime", ...members}`, flushed when it is a side-effect
    /// boundary (``JournalEntry/isFlushed``), and returns its sequence number.
    @discardableResult
    func append(_ entry: JournalEntry) throws(JournalError) -> Int {
        try append(entry.type, JournalEntryCodec.fields(of: entry), sync: entry.isFlushed)
    }

    /// Appends one record `{"seq", "type", "wallTime", ...fields}` and returns its sequence number.
    @discardableResult
    private func append(_ type: String, _ fields: JSONObject, sync: Bool) throws(JournalError) -> Int {
        let outcome = state.withLock { state -> Result<Int, JournalError> in
            if let failure = state.failure { return .failure(failure) }
            if let sink = state.sink {
                let sequence = state.nextSequence
                var payload: [UInt8] = []
                payload.reserveCapacity(256)
                JournalPayload.append(sequence: sequence, type: type, wallTime: sink.wallTime, fields: fields, to: &payload)
                do throws(JournalError) {
                    if hook?(JournalBoundary(position: .before, sequence: sequence, type: type)) == .tear {
                        throw JournalError(.journalUnwritable, "record \(sequence) of \(path) was refused on purpose by a test hook")
                    }
                    try sink.append(EncodedJournalRecord(sequence: sequence, type: type, payload: payload), sync: sync)
                } catch {
                    state.failure = error
                    return .failure(error)
                }
                state.nextSequence += 1
                return .success(sequence)
            }
            guard let file = state.file else {
                return .failure(JournalError(.journalUnwritable, "the journal \(path) is already closed"))
            }
            let sequence = state.nextSequence
            var bytes = [UInt8](repeating: 0x20, count: JournalFrame.prefixLength)
            bytes.reserveCapacity(256)
            JournalPayload.append(sequence: sequence, type: type, wallTime: JournalFile.wallTime(), fields: fields, to: &bytes)
            JournalFrame.frame(&bytes)
            do throws(JournalError) {
                if hook?(JournalBoundary(position: .before, sequence: sequence, type: type)) == .tear {
                    try file.append(Array(bytes.prefix(bytes.count / 2)))
                    try file.sync()
                    _ = hook?(JournalBoundary(position: .torn, sequence: sequence, type: type))
                    throw JournalError(.journalUnwritable, "record \(sequence) of \(path) was torn on purpose by a test hook")
                }
                try file.append(bytes)
                if sync { try file.sync() }
            } catch {
                state.failure = error
                return .failure(error)
            }
            state.nextSequence += 1
            return .success(sequence)
        }
        let sequence = try outcome.get()
        _ = hook?(JournalBoundary(position: .after, sequence: sequence, type: type))
        return sequence
    }

    /// Waits until every record appended so far is durable, suspending the calling task. A file's side-effect
    /// records are already on disk when ``append(_:)`` returns, so for a file this returns at once (a failed
    /// write was reported by ``append(_:)``); a sink's records are awaited here (``JournalSink/flush()``).
    /// - Throws: the sink's failure, or an earlier write's; the writer then refuses every later record.
    func flush() async throws(JournalError) {
        guard let durableSink else { return }
        if let failure = state.withLock({ $0.failure }) { throw failure }
        do {
            try await durableSink.flush()
        } catch {
            state.withLock { state in
                if state.failure == nil { state.failure = error }
            }
            throw error
        }
    }

    /// Cuts the file to `length` bytes: drops a torn tail before recovery appends after it.
    func truncate(to length: Int) throws(JournalError) {
        if state.withLock({ $0.sink != nil }) { return }
        let file = state.withLock { $0.file }
        guard let file else { throw JournalError(.journalUnwritable, "the journal \(path) is already closed") }
        try file.truncate(to: length)
    }

    /// The sequence number the next record will get.
    var nextSequence: Int { state.withLock { $0.nextSequence } }

    /// Whether a write has failed (the journal no longer records the run).
    var failure: JournalError? { state.withLock { $0.failure } }

    /// Every record written so far: the file read back, or the sink's records.
    func readBack() throws(JournalError) -> [JournalRecord] {
        if let sink = state.withLock({ $0.sink }) { return try sink.records() }
        return try JournalReader.read(path: path).records
    }

    /// Releases the lock and closes the file (or the sink); later appends fail.
    func close() {
        let (file, sink) = state.withLock { state -> (JournalFile?, (any JournalSink)?) in
            defer {
                state.file = nil
                state.sink = nil
            }
            return (state.file, state.sink)
        }
        file?.close()
        sink?.close()
    }
}
