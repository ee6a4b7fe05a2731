import MatterFlow
import MatterFlowJSON

/// Sharing a state directory between processes: every read-modify-write of `home.json` happens under an exclusive
/// `flock` on the directory itself, re-reading the file first, so concurrent `matterflow run` processes see each
/// other's changes and never overwrite them; the file itself is always replaced atomically.
extension HomeStateStore {
    /// Runs `body` while holding the directory's exclusive lock (waiting up to 10 s for another process), creating
    /// the directory when missing.
    /// - Throws: ``FlowError`` `hubFailure` when the lock cannot be taken, or what `body` throws.
    public func withLock<T>(_ body: () throws(FlowError) -> T) throws(FlowError) -> T {
        try StateDirectoryLock.withExclusiveLock(path: directory, body)
    }

    /// The text of the home saved in the directory right now, or nil when none is saved yet.
    /// - Throws: ``FlowError`` `hubFailure` when the saved file cannot be read.
    func currentText() throws(FlowError) -> String? {
        do {
            return try JSONDocument.readText(path: path)
        } catch {
            if error.diagnostics.count == 1, error.diagnostics[0].code == DiagnosticCode.fileNotFound { return nil }
            throw unreadable(error)
        }
    }

    /// The home a saved text holds (``currentText()``).
    /// - Throws: ``FlowError`` `hubFailure` when it cannot be decoded.
    func home(decoding text: String) throws(FlowError) -> HomeDescription {
        do {
            return try HomeDescription.parse(text, file: path)
        } catch {
            throw unreadable(error)
        }
    }

    /// The home saved in the directory right now, or nil when none is saved yet.
    /// - Throws: ``FlowError`` `hubFailure` when the saved file cannot be read or decoded.
    public func loadCurrent() throws(FlowError) -> HomeDescription? {
        guard let text = try currentText() else { return nil }
        return try home(decoding: text)
    }

    /// The hub's failure for a state file it cannot read or decode.
    private func unreadable(_ error: DiagnosticsError) -> FlowError {
        let reasons = error.diagnostics.map(\.description).joined(separator: "; ")
        return FlowError(.hubFailure, "the simulated hub could not read its state from \(path): \(reasons)")
    }

    /// Saves the starting home (``home``) when the directory holds no saved home yet, so that the next process
    /// opening the directory starts from it even when this one changes nothing. A home another process saved
    /// meanwhile is kept.
    /// - Throws: ``FlowError`` `hubFailure` when the directory cannot be locked or the file cannot be read or written.
    public func seed() throws(FlowError) {
        try withLock { () throws(FlowError) in
            if try loadCurrent() == nil { try save(home) }
        }
    }
}
