import MatterFlowJournal

/// What `matterflow store prune` removes from a run store: the runs that ended with one of ``statuses`` before
/// ``endedBefore``, with their records (and, in PostgreSQL, their answers), of every run or only of the runs and
/// structures named (``runIDs``, ``structureIDs``: how one household's or one run's data is erased).
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
    /// Runs that ended at or after this time (seconds since the Unix epoch, this machine's clock) stay; with
    /// ``olderThan`` set, a store on another machine goes by that instead.
    public var endedBefore: Double
    /// When set, runs that ended within this many seconds of the store's own clock stay: PostgreSQL works the cutoff
    /// out from its `now()`, so a client whose clock is off neither removes runs too young nor keeps runs too old (the
    /// runs' end times are the server's). A journal directory is on this machine and goes by ``endedBefore``.
    public var olderThan: Double?
    /// Remove nothing; report what would be removed.
    public var dryRun: Bool
    /// Only these runs, and the runs of ``structureIDs``; both empty: every run. A request that names any reports
    /// each of its runs that stays (``PruneReport/kept``), and leaves the workers' rows alone.
    public var runIDs: Set<String>
    /// Only the runs of these structures, and the runs of ``runIDs``.
    public var structureIDs: Set<String>

    /// A request to remove the runs that ended with one of `statuses` (by default succeeded, failed and cancelled)
    /// before `endedBefore`, in seconds since the Unix epoch, of every run or only of `runIDs` and the runs of
    /// `structureIDs`; a dry run removes nothing.
    public init(
        statuses: Set<String> = Self.defaultStatuses, endedBefore: Double, olderThan: Double? = nil, dryRun: Bool = false,
        runIDs: Set<String> = [], structureIDs: Set<String> = []
    ) {
        self.statuses = statuses
        self.endedBefore = endedBefore
        self.olderThan = olderThan
        self.dryRun = dryRun
        self.runIDs = runIDs
        self.structureIDs = structureIDs
    }

    /// Whether the request names runs or structures (an erasure) rather than taking every run.
    public var isSelective: Bool { !runIDs.isEmpty || !structureIDs.isEmpty }

    /// Whether the request takes a run with this ID and structure, whatever its status and age.
    public func selects(runID: String, structureID: String?) -> Bool {
        !isSelective || runIDs.contains(runID) || structureID.map(structureIDs.contains) == true
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
    /// Of the runs a selective request named (by ID or structure), those that stay, by run ID, and why.
    public var kept: [KeptRun]
    /// The run IDs the request named that the store does not have (removed before, or mistyped), sorted.
    public var notFound: [String]
    /// The cutoff the store applied when it worked it out itself from ``PruneRequest/olderThan`` (PostgreSQL's
    /// clock), in seconds since the Unix epoch; nil when it went by ``PruneRequest/endedBefore``.
    public var cutoff: Double?

    /// A report of the runs removed, their records in all, the workers removed, and the runs named that stay or
    /// were not found (none by default).
    public init(runIDs: [String], records: Int, workers: [String] = [], kept: [KeptRun] = [], notFound: [String] = []) {
        self.runIDs = runIDs
        self.records = records
        self.workers = workers
        self.kept = kept
        self.notFound = notFound
    }

    /// The report with ``kept`` and ``notFound`` filled in for `request`, from `remaining`: the runs it selects that
    /// the store has after the prune (for a dry run, every one it selects), ``runIDs`` left out.
    func accounting(for request: PruneRequest, remaining: [KeptRun]) -> PruneReport {
        guard request.isSelective else { return self }
        var report = self
        let removed = Set(runIDs)
        report.kept = remaining.filter { !removed.contains($0.runID) }.sorted { $0.runID < $1.runID }
        report.notFound = request.runIDs.subtracting(removed).subtracting(report.kept.map(\.runID)).sorted()
        return report
    }
}

extension JournalDirectoryStore {
    /// Removes the journals of the runs `request` names (for a dry run, only lists them), telling `removed` of each
    /// run as its file goes; a journal another process holds is left alone.
    ///
    /// A request that names runs or structures reports each of their runs that stays, read from the directory again
    /// once the prune is done (a journal whose `runStarted` cannot be read has no structure to be selected by).
    /// - Throws: ``StoreError`` `storeUnavailable` when the directory cannot be listed or a journal cannot be removed
    ///   (the ones removed before stay removed).
    public func prune(_ request: PruneRequest, each removed: ([String]) -> Void) throws(StoreError) -> PruneReport {
        let statuses = Set(request.statuses.compactMap(JournalRunStatus.init(rawValue:)))
        let selected = { (run: JournalRunSummary) in request.selects(runID: run.runID, structureID: run.structureID) }
        do {
            let pruned = try journal.prune(
                statuses: statuses, endedBefore: request.endedBefore, dryRun: request.dryRun, selected: selected
            ) { run in
                removed([run.runID])
            }
            let report = PruneReport(runIDs: pruned.map(\.runID), records: pruned.reduce(0) { $0 + $1.recordCount })
            guard request.isSelective else { return report }
            let remaining = try journal.runs().filter(selected).map { run in
                KeptRun(
                    runID: run.runID, structureID: run.structureID, status: run.status.rawValue,
                    statusNamed: statuses.contains(run.status), endedBeforeCutoff: run.endedAt.map { $0 < request.endedBefore } ?? false,
                    holdsSession: false)
            }
            return report.accounting(for: request, remaining: remaining)
        } catch {
            throw StoreError(.storeUnavailable, error.message)
        }
    }
}
