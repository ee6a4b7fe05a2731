import MatterFlow

/// The run whose row in `matterflow_sessions` holds a structure's session across the fleet, as a refused take
/// (``StoreCommand/acquireSession(structure:runID:)``) learns it: what its `sessionBusy` names.
struct FleetSessionHolder: Sendable, Hashable {
    /// The holding run.
    var runID: String
    /// Its status in `matterflow_runs`; nil when the store has no such run.
    var status: String?
    /// The worker running it, or the one that ended it; nil when neither is recorded (a queued run).
    var workerID: String?
    /// When the run took the row, in seconds since 1970 on the store's clock.
    var since: Double?

    /// The `sessionBusy` refusing another run the structure: it names the holder, and says what to do as its status
    /// allows (a run that ended `succeeded` holding the session, as `prepare.json` does, keeps it until a release).
    func refusal(structure: StructureID) -> FlowError {
        let state = [status, workerID.map { "worker \($0)" }].compactMap { $0 }
        let held = "held by run \(runID)" + (state.isEmpty ? "" : " (\(state.joined(separator: ", ")))")
            + (since.map { " since \(Timestamp.text(epochSeconds: $0))" } ?? "")
        let advice = status == "succeeded"
            ? "that run ended holding it: release it with a cancel.json run of the structure"
            : "wait for it to end, or settle it if its worker died"
        var error = FlowError(
            .sessionBusy, "another commissioning session is active on structure \"\(structure)\" in the fleet, \(held); \(advice)")
        error.sessionHolder = SessionHolder(owner: runID, openedAt: since)
        return error
    }

    /// The refusal when the holder could not be read (its row went in the meantime).
    static func unknownRefusal(structure: StructureID) -> FlowError {
        FlowError(
            .sessionBusy,
            "another commissioning session is active on structure \"\(structure)\" in the fleet; wait for it to end, or settle it if its worker died")
    }
}
