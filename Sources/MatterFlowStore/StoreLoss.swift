/// What a store reached again after an outage had lost of one of a worker's runs: the records this worker had
/// committed past the last one the store holds, or the run's row itself. A failover to a standby that lacked the
/// last commits (asynchronous replication) or a store restored from a backup loses them; the worker's run goes on
/// from what it holds in memory, so the records after the gap are written, and the gap stays.
struct StoreLoss: Sendable, Hashable {
    let runID: String
    /// The first and last sequence numbers of the records lost.
    let records: ClosedRange<Int>
    /// The run's row is gone too: its records and status can no longer be written.
    let runGone: Bool

    /// For the worker's log, and the run's notes.
    var description: String {
        let which = records.count == 1 ? "record \(records.lowerBound)" : "records \(records.lowerBound)-\(records.upperBound)"
        if runGone {
            return "the store no longer has run \(runID) (its row and \(which), which this worker had committed): a failover to a standby that "
                + "lacked the last commits, or a restore; calls the run made may have reached the hub: look at its structure there"
        }
        return "the store lost \(which) of run \(runID), which this worker had committed: a failover to a standby that lacked the last "
            + "commits (asynchronous replication), or a restore; the run goes on, and its history keeps the gap"
    }
}
