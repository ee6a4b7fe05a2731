import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import Synchronization

extension PostgresRunStore {
    /// Whether no run is queued or running (a worker with ``WorkerOptions/exitWhenIdle`` then stops); without
    /// `takesSecrets`, queued runs with secret inputs or answers do not count (such a worker claims none), nor do the
    /// runs queued behind one of them on its structure, waiting for their turn (``sessionTurn(_:)``).
    public func isIdle(takesSecrets: Bool = true) throws(StoreError) -> Bool {
        // Lookups in the indexes of queued and running runs, a step per structure with open runs, not a count over the
        // whole table nor a walk of the runs waiting for their structure's turn.
        let rows = try execute(
            """
            WITH RECURSIVE \(Self.openStructures)
            SELECT NOT EXISTS (SELECT 1 FROM \(Self.turns("$1")) turn)
               AND NOT EXISTS (SELECT 1 FROM matterflow_runs WHERE status = 'running')
            """, [takesSecrets ? "t" : "f"], doing: "looking for open runs")
        return rows.rows.first?.first == "t"
    }

    /// Seconds until the earliest lease of a running run held by another worker (or by none) runs out; negative
    /// when one has already; nil when there is none.
    func nextLeaseExpiry(excluding workerID: String) throws(StoreError) -> Double? {
        let rows = try execute(
            """
            SELECT EXTRACT(EPOCH FROM min(lease_until) - now()) FROM matterflow_runs
            WHERE status = 'running' AND worker_id IS DISTINCT FROM $1
            """, [workerID], doing: "looking for leases that run out")
        return rows.rows.first?.first.flatMap { $0 }.flatMap(Double.init)
    }
}
