extension PostgresRunStore {
    /// Registers the server process of `connection` as watching `runID` (`matterflow_watchers`): as each batch of
    /// the run's records commits, and when it ends, `NOTIFY matterflow_records, '<run>'` is sent. Batches of runs
    /// nobody watches are not announced: each notification wakes every listening connection of the database (the
    /// workers' queue listeners too), which cost the server more than the batch's insert.
    ///
    /// A watcher killed before ``endWatching(_:on:)`` leaves its row: the run's batches go on being announced, to
    /// nobody, which costs a notification per batch of that run and nothing else.
    /// - Throws: ``PostgresError`` when the row cannot be written.
    public static func beginWatching(_ runID: String, on connection: PostgresConnection) throws(PostgresError) {
        try connection.execute(
            "INSERT INTO matterflow_watchers (run_id, backend_pid) VALUES ($1, pg_backend_pid()) ON CONFLICT DO NOTHING",
            [runID])
    }

    /// Removes the registration ``beginWatching(_:on:)`` made on `connection`; a connection already broken has
    /// nothing to remove it with, and its row stays (see there).
    public static func endWatching(_ runID: String, on connection: PostgresConnection) {
        _ = try? connection.execute(
            "DELETE FROM matterflow_watchers WHERE run_id = $1 AND backend_pid = pg_backend_pid()", [runID])
    }
}
