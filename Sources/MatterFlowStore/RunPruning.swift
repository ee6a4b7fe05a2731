import MatterFlowJournal

/// What `matterflow store prune` removes from a run store: the runs that ended with one of ``statuses`` before
/// ``endedBefore``, with their records (and, in PostgreSQL, their answers).
///
/// Queued and running runs are never removed, and neither is a run that still holds a structure's commissioning
/// session, nor (in a journal directory) one that is interrupted, not started or unreadable: they still need a worker,
/// `matterflow recover` or a person.
public struct PruneRequest: Sendable, Hashable {
    /// The statuses a request may name: `succeeded`, `failed`, `cancelled` and `needsAttention`.
    public static let allowedStatuses = Set(RunJournal.prunableStatuses.map(\.rawValue))
    /// The statuses pruned when none is named: runs that need no one any more. `needsAttention` must be named.
    public static let defaultStatuses: Set<String> = ["succeeded", "failed", "cancelled"]

    /// Statuses of the runs to remove, each one of ``allowedStatuses``.
    public var statuses: Set<String>
    /// Runs that ended at or after this time (seconds since the Unix epoch, this machine's clock) stay.
    public var endedBefore: Double
    /// Remove nothing; report what would be removed.
    public var dryRun: Bool

    /// A request to remove the runs that ended with one of `statuses` (by default succeeded, failed and cancelled)
    /// before `endedBefore`, in seconds since the Unix epoch; a dry run removes nothing.
    public init(statuses: Set<String> = Self.defaultStatuses, endedBefore: Double, dryRun: Bool = false) {
        self.statuses = statuses
        self.endedBefore = endedBefore
        self.dryRun = dryRun
    }
}

/// What a prune removed (or, for a dry run, would remove).
public struct PruneReport: Sendable, Hashable {
    /// The runs, oldest end first.
    public var runIDs: [String]
    /// Their journal records, in all.
    public var records: Int
    /// The workers whose rows went too (PostgreSQL): stopped, or silent for longer than their lease, not heard from
    /// since the cutoff, and holding no run.
    public var workers: [String]

    /// A report of the runs removed, their records in all, and the workers removed (none by default).
    public init(runIDs: [String], records: Int, workers: [String] = []) {
        self.runIDs = runIDs
        self.records = records
        self.workers = workers
    }
}

extension JournalDirectoryStore {
    /// Removes the journals of the runs `request` names (for a dry run, only lists them), telling `removed` of each
    /// run as its file goes; a journal another process holds is left alone.
    /// - Throws: ``StoreError`` `storeUnavailable` when the directory cannot be listed or a journal cannot be removed
    ///   (the ones removed before stay removed).
    public func prune(_ request: PruneRequest, each removed: ([String]) -> Void) throws(StoreError) -> PruneReport {
        let statuses = Set(request.statuses.compactMap(JournalRunStatus.init(rawValue:)))
        do {
            let pruned = try journal.prune(statuses: statuses, endedBefore: request.endedBefore, dryRun: request.dryRun) { run in
                removed([run.runID])
            }
            return PruneReport(runIDs: pruned.map(\.runID), records: pruned.reduce(0) { $0 + $1.recordCount })
        } catch {
            throw StoreError(.storeUnavailable, error.message)
        }
    }
}
