import MatterFlow

extension RunRecoverer {
    /// Settles one run from its journal's contents, whichever medium holds them (a journal file, a run store):
    /// a run that never started or had finished is left as it is (a finished one only loses a torn last record);
    /// one whose start is damaged is settled without it; any other is reconciled and then cancelled or resumed.
    /// What recovery writes goes to `writer`; `run` says what it did.
    /// - Parameter handOff: Where a run continued through its workflow goes: nil to await it here.
    static func settle(
        _ run: inout RunRecovery, contents: JournalContents, writer: JournalWriter, hub: any Hub, options: RecoveryOptions,
        handOff: PoolHandOff? = nil
    ) async {
        // A record whose members do not decode cannot be reasoned about: the run is left as it is, for a person.
        let entries: JournalEntries
        do {
            entries = try contents.entries()
        } catch {
            run.notes.append(error.message)
            return
        }
        var recoverer = RunRecoverer(contents: contents, entries: entries, writer: writer, hub: hub, options: options)
        recoverer.handOff = handOff
        guard let (started, startedAt) = entries.started else {
            guard contents.startIsDamaged else {
                run.action = .notStarted
                run.status = .notStarted
                return
            }
            // Records survive a damaged runStarted: the run did start, and may hold a session.
            run.action = .deferred
            run.status = .needsAttention
            let reason = await recoverer.settleWithoutStart(into: &run)
            run.notes.append(reason)
            _ = try? writer.append(.recoveryDeferred(reason: reason))
            return
        }
        run.runID = started.runID
        run.workflow = started.workflow
        run.structureID = started.structureID
        run.startedAt = startedAt
        if let finished = entries.finished {
            run.action = .alreadyFinished
            run.status = JournalRunStatus(finished.outcome)
            run.finished = finished
            run.holdsSession = finished.holdsSession
            // A recovery killed while writing its last record left a torn tail: cut it, as for any run.
            if let torn = contents.tornTail {
                do {
                    try writer.truncate(to: contents.validLength)
                    try writer.append(.tornTailDiscarded(torn))
                    run.notes.append("discarded a torn last record (\(torn.length) bytes at byte \(torn.offset))")
                } catch {
                    run.notes.append(error.message)
                }
            }
            return
        }
        do {
            try await recoverer.recover(into: &run)
        } catch {
            run.action = .deferred
            run.status = .needsAttention
            run.notes.append(error.message)
            run.deferredForOtherHub = error.otherHub
            // A fleet hands such a run on until a worker on its hub takes it: no record for each worker that cannot.
            if !(error.otherHub && options.handsOnOtherHubsRuns) { _ = try? writer.append(.recoveryDeferred(reason: error.message)) }
        }
    }
}
