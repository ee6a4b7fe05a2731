/// A run that a prune was asked to remove by its ID or its structure (``PruneRequest/runIDs``,
/// ``PruneRequest/structureIDs``) and that stays, with why: what a person erasing a household's data acts on next.
public struct KeptRun: Sendable, Hashable {
    /// Why a run named stays.
    public enum Reason: Sendable, Hashable {
        /// Queued or running (in a journal directory: a live process holds its journal): it may still change.
        case open
        /// Its process died and no recovery settled it (journal directory): `matterflow recover` first.
        case interrupted
        /// Its journal holds no run that can be read (not started, or unreadable): what it holds cannot be told.
        case unreadable
        /// It holds its structure's commissioning session (PostgreSQL): only its run, or a release, gives it up.
        case holdsSession
        /// It ended with a status the request did not name (`needsAttention`, unless named).
        case statusNotNamed
        /// It ended at or after the request's cutoff (`--older-than`).
        case endedAfterCutoff
        /// It could be removed, but changed while the prune ran, or another process held its journal: prune again.
        case busy
    }

    /// The run's ID.
    public var runID: String
    /// The structure it acts on; nil when the store does not know it.
    public var structureID: String?
    /// Its status as `matterflow runs` shows it.
    public var status: String
    /// Why it stays.
    public var reason: Reason

    /// A run that stays, for `reason`.
    public init(runID: String, structureID: String?, status: String, reason: Reason) {
        self.runID = runID
        self.structureID = structureID
        self.status = status
        self.reason = reason
    }

    /// A run of a request that stays, its reason told by its status and what the store knows of it: whether the
    /// request names its status, whether it ended before the cutoff, and whether it holds a session.
    init(runID: String, structureID: String?, status: String, statusNamed: Bool, endedBeforeCutoff: Bool, holdsSession: Bool) {
        let reason: Reason
        switch status {
        case "queued", "running": reason = .open
        case "interrupted": reason = .interrupted
        case "notStarted", "unreadable": reason = .unreadable
        default:
            reason = holdsSession ? .holdsSession : !statusNamed ? .statusNotNamed : !endedBeforeCutoff ? .endedAfterCutoff : .busy
        }
        self.init(runID: runID, structureID: structureID, status: status, reason: reason)
    }
}
