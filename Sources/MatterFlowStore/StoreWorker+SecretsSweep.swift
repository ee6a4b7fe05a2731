import MatterFlow
import Synchronization

extension StoreWorker {
    /// Removes from the worker's secrets directory the secret inputs and answers of runs the store has with a final
    /// status: at start, then at most once per ``WorkerOptions/secretsSweepSeconds`` while the worker finds nothing
    /// to claim.
    ///
    /// The worker that ends a run removes its files; these are the files no worker removed: of a run cancelled
    /// before any worker ran it (`matterflow cancel` without `--secrets`), of a run another machine's worker ended
    /// while this directory is a copy of the fleet's, of a run settled by a worker without this directory. The files
    /// of runs the store does not have stay (a submit under way writes them before its run is queued), and so does a
    /// run's `.output`, which is its owner's to collect. A directory serves one store: files are named by run ID.
    func sweepSecrets() {
        guard let inbox = options.secrets else { return }
        state.withLock { $0.lastSweep = .now }
        do throws(StoreError) {
            let waiting = try inbox.runsWithWaitingSecrets()
            guard !waiting.isEmpty else { return }
            let ended = try store.endedRuns(among: waiting).sorted()
            guard !ended.isEmpty else { return }
            for runID in ended { inbox.remove(runID: runID) }
            let named = ended.prefix(5).joined(separator: ", ") + (ended.count > 5 ? " and \(ended.count - 5) more" : "")
            log(.info, "removed from \(inbox.directory) the secret inputs and answers of \(ended.count) "
                    + "run\(ended.count == 1 ? "" : "s") that had ended without a worker removing them (\(named))")
        } catch {
            log(.warning, "could not sweep \(inbox.directory) for the secrets of ended runs: \(error.message)")
        }
    }

    /// ``sweepSecrets()`` when the last sweep is ``WorkerOptions/secretsSweepSeconds`` old or more.
    func sweepSecretsWhenDue() {
        let due = state.withLock { state in
            state.lastSweep.map { ContinuousClock.now - $0 >= .milliseconds(Int(options.secretsSweepSeconds * 1000)) } ?? true
        }
        if due { sweepSecrets() }
    }
}
