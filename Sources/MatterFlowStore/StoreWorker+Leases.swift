import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import Synchronization

/// A worker's runs changing hands: leases lost to another worker, runs claimed again, runs handed back to the
/// fleet, and graceful shutdown's drain.
extension StoreWorker {
    /// Runs whose lease passed to another worker (or back to the fleet) while their tasks still run here: their
    /// records, commands and hub calls are refused from now on, claimed runs not started are dropped, and the
    /// heartbeat leaves them out. A task ends as a run that lost the store does, without reaching the hub.
    /// Only the claims the heartbeat saw (`seen`: run ID and claim count) are fenced, under the state's lock: a
    /// run claimed here again since is left alone.
    func leasesLost(_ runIDs: [String], seen: [String: Int]) {
        guard !runIDs.isEmpty else { return }
        let fenced = state.withLock { state -> [String] in
            let ahead = runIDs.filter { runID in state.claimedAhead.contains { $0.runID == runID && $0.claims == seen[runID] } }
            state.claimedAhead.removeAll { run in ahead.contains(run.runID) }
            for runID in ahead { cancelRelay.release(runID) }
            let running = runIDs.filter { state.active[$0] != nil && state.claims[$0] == seen[$0] && !state.fenced.contains($0) }
            state.fenced.formUnion(running)
            committer.fence(ahead + running, because: "this worker's lease of the run passed to another worker")
            return ahead + running
        }
        guard !fenced.isEmpty else { return }
        log(.warning, runs: fenced.sorted(), "lost the lease of run(s) \(fenced.sorted().joined(separator: ", ")) to another worker; they make no further call here")
    }

    /// The claimed runs to start. A run this worker holds and nobody claimed since (its lease ran out while the
    /// store was out of reach, and this claim, the next one, renewed it) goes on where it is. A run whose task here
    /// still ends though the run was claimed elsewhere meanwhile, or was fenced, is fenced (no further call from that
    /// task) and handed back to be claimed again a lease later, once the task has ended.
    func claimedAgain(_ claimed: [ClaimedRun]) -> [ClaimedRun] {
        let (ours, waitFor, fenced) = state.withLock { state -> (Set<String>, [String], [String]) in
            var ours = Set<String>()
            var waitFor: [String] = []
            var fenced: [String] = []
            for run in claimed {
                if let index = state.claimedAhead.firstIndex(where: { $0.runID == run.runID }) {
                    if state.claimedAhead[index].claims + 1 == run.claims {
                        ours.insert(run.runID)
                        state.claimedAhead[index].claims = run.claims
                    } else {
                        // Claimed elsewhere meanwhile: this claim stands, the one kept ahead is stale.
                        state.claimedAhead.remove(at: index)
                    }
                    continue
                }
                guard state.active[run.runID] != nil else { continue }
                if !state.fenced.contains(run.runID), let held = state.claims[run.runID], held + 1 == run.claims {
                    ours.insert(run.runID)
                    state.claims[run.runID] = run.claims
                } else {
                    if state.fenced.insert(run.runID).inserted { fenced.append(run.runID) }
                    waitFor.append(run.runID)
                }
            }
            if !fenced.isEmpty { committer.fence(fenced, because: "another worker claimed the run while this worker's lease had run out") }
            return (ours, waitFor, fenced)
        }
        guard !ours.isEmpty || !waitFor.isEmpty else { return claimed }
        if !fenced.isEmpty {
            log(.warning, runs: fenced, "run(s) \(fenced.joined(separator: ", ")) were claimed elsewhere while this worker's lease had run out; they make no further call here")
        }
        if !ours.isEmpty {
            log(.info, runs: ours.sorted(), "claimed its own run(s) \(ours.sorted().joined(separator: ", ")) again (their lease had run out): they go on here")
        }
        handBackForTakeover(waitFor, which: "whose earlier task here has not ended", after: options.leaseSeconds)
        return claimed.filter { !ours.contains($0.runID) && !waitFor.contains($0.runID) }
    }

    /// Ends this worker's leases of runs another worker must take over and settle (`which` says which runs, for
    /// the log), at once or `seconds` from now; when the store refuses, the leases run out instead. A run whose lease
    /// is no longer this worker's is its holder's: it is neither handed back nor counted.
    func handBackForTakeover(_ runIDs: [String], which: String, after seconds: Double = 0) {
        guard !runIDs.isEmpty else { return }
        do {
            let handed = try store.handBack(runIDs, by: options.workerID, retryAfter: seconds)
            guard !handed.isEmpty else { return }
            log(.info, runs: handed, "handed back \(handed.count) run(s) \(which), for takeover: \(handed.joined(separator: ", "))")
            state.withLock { $0.summary.handedBack += handed.count }
        } catch {
            log(.warning, runs: runIDs, "could not hand runs back (\(error.message)); their leases run out instead")
        }
    }

    /// Gives runs back to the queue as they are (`which` says which runs, for the log); when the store refuses,
    /// their leases run out and they are taken over instead.
    func handBack(_ runIDs: [String], which: String) {
        guard !runIDs.isEmpty else { return }
        do {
            try store.handBack(parked: runIDs, by: options.workerID)
            log(.info, runs: runIDs, "handed back \(runIDs.count) run(s) \(which): \(runIDs.joined(separator: ", "))")
            state.withLock { $0.summary.handedBack += runIDs.count }
        } catch {
            log(.warning, runs: runIDs, "could not hand runs back (\(error.message)); their leases run out instead")
        }
    }

    /// Waits (bounded) for each running run to end or park at a checkpoint; hands the parked runs back to the
    /// queue, their records committed (another worker resumes them from their last checkpoint), and the others back
    /// for takeover (another worker settles them as if this one had died).
    func drain() async {
        // Parked runs stay counted as in progress: batches must not wait for them.
        committer.stopGathering()
        do throws(StoreError) {
            try store.markStopping(options.workerID)
        } catch {
            if error.isOutOfReach { state.withLock { $0.stopUnrecorded = true } }
            log(.warning, "could not mark itself stopping (\(error.message))")
        }
        // Runs claimed ahead and never started go back as they were, before the wait for the others: a queued run
        // to the queue, a dead worker's run to be taken over again.
        let unstarted = state.withLock { state -> [ClaimedRun] in
            defer { state.claimedAhead.removeAll() }
            return state.claimedAhead
        }
        handBack(unstarted.filter { !$0.takeover }.map(\.runID), which: "it had not started")
        handBackForTakeover(unstarted.filter(\.takeover).map(\.runID), which: "claimed for takeover and not started")
        let deadline = ContinuousClock.now + .milliseconds(Int(options.drainSeconds * 1000))
        while ContinuousClock.now < deadline {
            let settled = state.withLock { state in state.hurried || state.active.keys.allSatisfy { state.pauses[$0]?.isParked == true } }
            if settled { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        await cancelUnresumableRuns()
        // A cancel ends a run's park (an answer does not: the parked run does not take it): no cancel may reach a run
        // from the moment it is counted parked, or it would take its cancel path here while the next worker resumes
        // it. One asked for from now on waits in the store for the next worker.
        cancelRelay.close()
        answerRelay.close()
        let (left, pauses) = state.withLock { state -> ([String: Task<Void, Never>], [String: RunPause]) in
            defer {
                state.active.removeAll()
                state.pauses.removeAll()
            }
            return (state.active, state.pauses)
        }
        guard !left.isEmpty else { return }
        var parked: [String] = []
        for runID in left.keys.sorted() where pauses[runID]?.isParked == true {
            if await durable(runID) { parked.append(runID) }
        }
        let others = left.keys.filter { !parked.contains($0) }.sorted()
        handBack(parked, which: "at a checkpoint")
        // A run in progress may have a call in flight, which the next worker must not take for abandoned: its lease
        // runs on as if this worker had died. Nothing of these runs reaches the hub from here any more.
        committer.fence(others, because: "the worker stopped and handed the run back")
        handBackForTakeover(others, which: "in progress", after: options.leaseSeconds)
        // A parked run stays parked (its task suspended) until the process ends: it makes no further call.
        for runID in others { left[runID]?.cancel() }
    }

    /// Runs still going at the end of the drain that hold a secret a hub call returned (an ePSKc share's key) could
    /// only be cancelled by the next worker, the key active meanwhile: they take their cancel path here (withdrawing
    /// the key), as `matterflow run` does on SIGTERM, within the drain time once more, their leases kept by the
    /// heartbeat. One still going then is handed back with the others.
    func cancelUnresumableRuns() async {
        let unresumable = state.withLock { state in
            state.active.filter { state.pauses[$0.key]?.holdsSecretNoOtherProcessCouldResume == true }
        }
        guard !unresumable.isEmpty else { return }
        log(.info, runs: unresumable.keys.sorted(), "cancelling \(unresumable.count) run\(unresumable.count == 1 ? "" : "s") holding a secret no other worker could resume (\(unresumable.keys.sorted().joined(separator: ", "))): their cancel path runs here")
        cancelRelay.cancelHere(unresumable.keys)
        let deadline = ContinuousClock.now + .milliseconds(Int(options.drainSeconds * 1000))
        while ContinuousClock.now < deadline, state.withLock({ state in unresumable.keys.contains { state.active[$0] != nil } }) {
            try? await Task.sleep(for: .milliseconds(20))
        }
    }
}
