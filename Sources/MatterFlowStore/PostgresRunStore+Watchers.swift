extension PostgresRunStore {
    /// Registers the server process of `connection` as watching `runID` (`matterflow_watchers`): as each batch of
    /// the run's records commits, and when it ends, `NOTIFY matterflow_records, '<run>'` is sent. Batches of runs
    /// nobody watches are not announced: each notification wakes every listening connection of the database (the
    /// workers' queue listeners too), which cost the server more than the batch's insert.
    ///
    /// A watcher killed before ``endWatching(_:on:)`` leaves its row until the run has a final status (which
    /// removes the run's rows) or until the next watch begins (which removes the rows of server processes that are
    /// gone); until then the run's batches are announced to nobody, a notification per batch of that run.
    /// - Throws: ``PostgresError`` when the row cannot be written.
    public static func beginWatching(_ runID: String, on connection: PostgresConnection) throws(PostgresError) {
        try connection.execute(
            """
            WITH gone AS (
                DELETE FROM matterflow_watchers
                WHERE backend_pid <> pg_backend_pid() AND backend_pid NOT IN (SELECT pid FROM pg_stat_activity WHERE pid IS NOT NULL)
            )
            INSERT INTO matterflow_watchers (run_id, backend_pid) VALUES ($1, pg_backend_pid()) ON CONFLICT DO NOTHING
            """, [runID])
    }

    /// Removes the registration ``beginWatching(_:on:)`` made on `connection`; a connection already broken has
    /// nothing to remove it with, and its row stays (see there).
    public static func endWatching(_ runID: String, on connection: PostgresConnection) {
        _ = try? connection.execute(
            "DELETE FROM matterflow_watchers WHERE run_id = $1 AND backend_pid = pg_backend_pid()", [runID])
    }
}
