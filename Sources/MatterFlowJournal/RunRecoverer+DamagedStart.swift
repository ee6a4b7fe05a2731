import MatterFlow
import MatterFlowJSON

extension RunRecoverer {
    /// Settles what it safely can of a run whose `runStarted` record is damaged while later records survive, and
    /// says why the run still needs attention.
    ///
    /// Without `runStarted` the run's workflow, inputs and secrets shown are unknown, so nothing is run through
    /// the workflow. The structure comes from the run's hub calls (each `intent` names it); the hub is read there,
    /// and a session that is provably this run's (opened under its run ID, or with an ID its `prepareCommissioning`
    /// returned) is released, and ePSKc keys it left active are withdrawn, as when a workflow cannot be run. The
    /// run stays `needsAttention`: its journal cannot say how it ended.
    /// - Returns: The reason, for the `recoveryDeferred` record and the report.
    func settleWithoutStart(into run: inout RunRecovery) async -> String {
        var reason = "the journal's first record (runStarted) is damaged, so the run's workflow and inputs are unknown and "
            + "recovery cannot finish it"
        if let torn = contents.tornTail {
            do {
                try journal { () throws(JournalError) in
                    try writer.truncate(to: contents.validLength)
                    try writer.append(.tornTailDiscarded(torn))
                }
            } catch {
                return reason + "; \(error.message)"
            }
        }
        let history = "`matterflow history \(runID) --journal \(ShellWord.quoted(JournalDirectory.parent(of: contents.path)))`"
        guard !structure.isEmpty else {
            return reason + "; none of its surviving records names its structure, so check your hub for a commissioning "
                + "session of run \(runID) yourself (\(history) shows what survived)"
        }
        do {
            let reconciler = try await readHub()
            if reconciler.holdsSession, let session = reconciler.session {
                try await release(session)
                run.releasedSession = true
                reason += "; the hub showed session \(session.sessionID) of this run still active on structure \"\(structure)\", "
                    + "and recovery released it"
            } else {
                reason += "; the hub holds no session of this run on structure \"\(structure)\" (\(reconciler.sessionText))"
            }
            try await withdrawEpskcKeys(&run)
        } catch {
            return reason + "; \(error.message)"
        }
        return reason + "; read what survived with \(history), then remove the file once the run is settled"
    }
}
