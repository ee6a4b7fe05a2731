import MatterFlow
import Synchronization

extension StoreWorker {
    /// Removes from the worker's secrets directory the files no worker removed
    /// (``PostgresRunStore/sweepSecrets(_:now:endedRuns:dryRun:)``): at start, then at most once per
    /// ``WorkerOptions/secretsSweepSeconds`` while the worker finds nothing to claim.
    ///
    /// The worker that ends a run removes its files; these are the files no worker removed: of a run cancelled
    /// before any worker ran it (`matterflow cancel` without `--secrets`), of a run another machine's worker ended
    /// while this directory is a copy of the fleet's, of a run settled by a worker without this directory (its secret
    /// inputs and answers; its `.output` is its owner's to collect), and every file of a run pruned from the store
    /// (`store prune` without `--secrets`) once untouched for ``SecretInbox/orphanAgeSeconds`` (a submit under way
    /// writes its files before its run is queued). A directory serves one store: files are named by run ID.
    func sweepSecrets() {
        guard let inbox = options.secrets else { return }
        state.withLock { $0.lastSweep = .now }
        do throws(StoreError) {
            let swept = try store.sweepSecrets(inbox, now: options.localWallClock())
            if !swept.ended.isEmpty {
                log(.info, runs: swept.ended, "removed from \(inbox.directory) the secret inputs and answers of \(swept.ended.count) "
                        + "run\(swept.ended.count == 1 ? "" : "s") that had ended without a worker removing them (\(SecretsSweep.naming(swept.ended)))")
            }
            if !swept.orphaned.isEmpty {
                log(.info, runs: swept.orphaned, "removed from \(inbox.directory) the files of \(swept.orphaned.count) run\(swept.orphaned.count == 1 ? "" : "s") "
                        + "pruned from the store, untouched for \(Int(SecretInbox.orphanAgeSeconds / 60)) minutes (\(SecretsSweep.naming(swept.orphaned)))")
            }
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
