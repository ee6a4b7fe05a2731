import MatterFlowStore

extension KeptRun {
    /// The line `store prune` prints on stderr for a run named by `--run` or `--structure` that stays: which run,
    /// why it stays, and what a person does so that the next prune removes it.
    /// - Parameters:
    ///   - postgres: Whether the store is PostgreSQL (else a journal directory): what ends an open run differs.
    ///   - dryRun: A dry run: the run would stay.
    func advice(postgres: Bool, dryRun: Bool) -> String {
        let structure = structureID.map { "structure \($0), " } ?? ""
        let what: String
        switch reason {
        case .open where postgres:
            what = "it may still change: cancel it (`matterflow cancel \(runID) --store URL`), then prune again once it has ended"
        case .open:
            what = "a process runs it (or recovers it): let it end, or stop it (Ctrl-C, SIGTERM), then prune again"
        case .interrupted:
            what = "its process died: settle it with `matterflow recover --journal DIR`, then prune again"
        case .unreadable:
            what = "its journal holds no run that can be read, so what it holds cannot be told: look at \(runID).journal and remove it by hand"
        case .holdsSession:
            what = "it holds its structure's commissioning session: release it with a run of Workflows/cancel.json on the structure "
                + "(`matterflow submit Workflows/cancel.json --store URL --structure \(structureID ?? "ID")`), then prune again (that run is one "
                + "of the structure's too)"
        case .statusNotNamed where status == "needsAttention":
            what = postgres
                ? "it needs attention: settle it again once its hub answers (`matterflow cancel \(runID) --store URL`: a worker reads the hub and takes its cancel path), or add --status needsAttention to remove its records as they are"
                : "it needs attention: settle it (`matterflow recover --journal DIR` once its hub answers), or add --status needsAttention to remove its records as they are"
        case .statusNotNamed:
            what = "--status does not name \(status): add --status \(status)"
        case .endedAfterCutoff:
            what = "it ended within --older-than: leave --older-than out to remove it whatever its age"
        case .busy:
            what = "it changed while the prune ran, or another process held it: prune again"
        }
        return "\(dryRun ? "would keep" : "kept") run \(runID) (\(structure)\(status)): \(what)"
    }
}
