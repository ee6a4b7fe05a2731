extension RunJournal {
    /// The statuses ``prune(statuses:endedBefore:dryRun:each:)`` may remove: runs that ended, and runs that need
    /// attention (only when named: their journal is what `matterflow recover` and a person need).
    public static let prunableStatuses: Set<JournalRunStatus> = [.succeeded, .failed, .cancelled, .needsAttention]

    /// Removes the journal files of runs with one of `statuses` whose journal was last written before `cutoff`
    /// (seconds since the Unix epoch), of the runs `selected` takes, oldest first, and returns them as they were
    /// listed.
    ///
    /// Runs going on (a live process holds their journal), interrupted, not started or unreadable are never removed,
    /// whatever `statuses` says: they still need `matterflow recover` or a person. Each file is removed while this
    /// process holds its lock, after reading it again under that lock, so a run that a recovery or another prune is
    /// working on (or changed meanwhile) is left alone.
    /// - Parameters:
    ///   - dryRun: Remove nothing; return what would be removed.
    ///   - selected: Whether a run may go at all, by its ID or its structure (an erasure); every run by default.
    ///   - removed: Told of each run as its file is removed.
    /// - Throws: ``JournalError`` when the directory cannot be listed, or a file cannot be removed (the files removed
    ///   before it stay removed).
    public func prune(
        statuses: Set<JournalRunStatus>, endedBefore cutoff: Double, dryRun: Bool,
        selected: (JournalRunSummary) -> Bool = { _ in true }, each removed: (JournalRunSummary) -> Void
    ) throws(JournalError) -> [JournalRunSummary] {
        let allowed = statuses.intersection(Self.prunableStatuses)
        let candidates = try runs().filter { run in
            allowed.contains(run.status) && (run.endedAt.map { $0 < cutoff } ?? false) && selected(run)
        }.sorted { ($0.endedAt ?? 0, $0.path) < ($1.endedAt ?? 0, $1.path) }
        if dryRun { return candidates }
        var gone: [JournalRunSummary] = []
        for candidate in candidates {
            // Held by another process, or removed meanwhile (by another prune): left alone.
            let opened: JournalFile?
            do {
                opened = try JournalFile.openLocked(candidate.path)
            } catch where !JournalFile.exists(candidate.path) {
                continue
            }
            guard let file = opened else { continue }
            defer { file.close() }
            let now: JournalRunSummary
            do {
                now = JournalRunSummary(try JournalReader.read(path: candidate.path), running: false)
            } catch {
                continue
            }
            guard allowed.contains(now.status), let ended = now.endedAt, ended < cutoff, selected(now) else { continue }
            try JournalFile.remove(candidate.path)
            gone.append(now)
            removed(now)
        }
        if !gone.isEmpty { JournalFile.syncDirectory(directory) }
        return gone
    }
}
