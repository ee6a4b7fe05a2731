/// What a store reached again after an outage had lost of one of a worker's runs in progress: records this worker
/// had committed past the last one the store holds, this worker's claim of the run, or the run's row itself. A
/// failover to a standby that lacked the last commits (asynchronous replication) or a store restored from a backup
/// loses them. A run that lost only records goes on from what the worker holds in memory, so the records after the
/// gap are written and the gap stays; one whose claim or row is gone makes no further call here. Each run's loss is
/// said once (a second loss of the same run is not looked for).
struct StoreLoss: Sendable, Hashable {
    /// What the store lost.
    enum Kind: Sendable, Hashable {
        /// Records only: the run is still this worker's.
        case records
        /// This worker's claim: the run is queued again, or another worker's, and may be started again elsewhere.
        case claim
        /// The run's row: its records and status can no longer be written.
        case run
    }

    let runID: String
    /// The sequence numbers of the records missing past the last one the store holds, up to the last this worker
    /// committed; nil when none is.
    let records: ClosedRange<Int>?
    let kind: Kind

    /// For the worker's log, and the run's notes.
    var description: String {
        let which = records.map { $0.count == 1 ? "record \($0.lowerBound)" : "records \($0.lowerBound)-\($0.upperBound)" }
        let cause = "a failover to a standby that lacked the last commits (asynchronous replication), an old primary started again, or a restore"
        switch kind {
        case .records:
            return "the store lost \(which ?? "records") of run \(runID), committed before: \(cause); the run goes on, and its history keeps the gap"
        case .claim:
            return "the store no longer shows this worker's claim of run \(runID)\(which.map { ", and lost \($0)" } ?? ""): \(cause); "
                + "another worker may start it again: calls the run made may have reached the hub, look at its structure there"
        case .run:
            return "the store no longer has run \(runID): \(cause); calls the run made may have reached the hub: look at its structure there"
        }
    }
}
