/// What a sweep of a secrets directory removed (``PostgresRunStore/sweepSecrets(_:now:endedRuns:dryRun:)``), or for a
/// dry run would remove: the files no worker removed.
public struct SecretsSweep: Sendable, Hashable {
    /// Runs the store has with a final status whose secret inputs and answers went, sorted. Their `.output` and
    /// `.shown` stay: they are their owner's to collect until the run is pruned.
    public var ended: [String] = []
    /// Runs `store prune` removed from the store (remembered for ``PostgresRunStore/prunedRunDays`` days) whose files
    /// all went, `.output` and `.shown` too, sorted: only when none of them was touched for
    /// ``SecretInbox/orphanAgeSeconds``.
    public var orphaned: [String] = []

    /// A sweep that removed nothing.
    public init() {}

    /// Up to five runs by ID, then how many more: `a, b, c, d, e and 3 more`.
    public static func naming(_ runIDs: [String]) -> String {
        runIDs.prefix(5).joined(separator: ", ") + (runIDs.count > 5 ? " and \(runIDs.count - 5) more" : "")
    }
}

extension PostgresRunStore {
    /// Removes from `inbox` the files no worker removed: the secret inputs and answers of runs the store has with a
    /// final status (when `endedRuns`), and every file of a run `store prune` removed from the store (pruned without
    /// `--secrets`) that has stood untouched for ``SecretInbox/orphanAgeSeconds`` before `now` (this machine's clock,
    /// in seconds since the Unix epoch).
    ///
    /// A run the store neither has nor remembers pruning is left alone: the directory may be another store's too, or
    /// this worker pointed at another (or an empty, or a restored) database. `submit` writes a run's files before it
    /// queues the run, and a run's ID may be used again once pruned: the age tells a submit under way apart, read again
    /// under the directory's lock before anything goes. Files of open runs, and names that are not a run's file
    /// (`digest.key`), are never touched.
    /// - Throws: ``StoreError`` when the directory cannot be listed or the store cannot be read (nothing went then).
    public func sweepSecrets(_ inbox: SecretInbox, now: Double, endedRuns: Bool = true, dryRun: Bool = false) throws(StoreError) -> SecretsSweep {
        let files = try inbox.runFiles()
        guard !files.isEmpty else { return SecretsSweep() }
        let statuses = try statuses(of: files.keys.sorted())
        let pruned = try prunedRuns(among: files.keys.filter { statuses[$0] == nil }.sorted())
        let cutoff = now - SecretInbox.orphanAgeSeconds
        var sweep = SecretsSweep()
        for (runID, found) in files.sorted(by: { $0.key < $1.key }) {
            if let status = statuses[runID] {
                guard endedRuns, !StoredRun.isOpen(status), !found.kinds.isDisjoint(with: [.inputs, .answers]) else { continue }
                if !dryRun { inbox.remove(runID: runID) }
                sweep.ended.append(runID)
            } else if pruned.contains(runID), found.lastModified < cutoff, dryRun || inbox.removeUntouched(runID: runID, since: cutoff) {
                sweep.orphaned.append(runID)
            }
        }
        return sweep
    }

    /// The status of each of `runIDs` the store has; a run it does not have is not there.
    func statuses(of runIDs: [String]) throws(StoreError) -> [String: String] {
        var statuses: [String: String] = [:]
        for row in try rows(of: runIDs, "SELECT run_id, status FROM matterflow_runs WHERE run_id = ANY($1::text[])") {
            if let runID = row[0], let status = row[1] { statuses[runID] = status }
        }
        return statuses
    }

    /// Of `runIDs`, those the store has with a final status (not queued, not running); a run the store does not have
    /// is not among them.
    @available(*, deprecated, message: "sweepSecrets(_:now:endedRuns:dryRun:) sweeps a secrets directory whole")
    public func endedRuns(among runIDs: [String]) throws(StoreError) -> Set<String> {
        Set(try statuses(of: runIDs).filter { !StoredRun.isOpen($0.value) }.keys)
    }

    /// Those of `runIDs` that `store prune` removed within ``prunedRunDays`` days.
    func prunedRuns(among runIDs: [String]) throws(StoreError) -> Set<String> {
        Set(try rows(of: runIDs, "SELECT run_id FROM matterflow_pruned_runs WHERE run_id = ANY($1::text[])").compactMap { $0[0] })
    }

    /// The rows `sql` gives for `runIDs` (its `$1`), asked 1,000 at a time.
    private func rows(of runIDs: [String], _ sql: String) throws(StoreError) -> [[String?]] {
        var rows: [[String?]] = []
        for start in stride(from: 0, to: runIDs.count, by: 1_000) {
            let batch = Array(runIDs[start..<min(start + 1_000, runIDs.count)])
            rows += try execute(sql, [Self.textArrayLiteral(batch)], doing: "looking up the runs of files in the secrets directory").rows
        }
        return rows
    }
}
