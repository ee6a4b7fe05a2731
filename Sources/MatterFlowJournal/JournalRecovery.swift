import MatterFlow
import MatterFlowJSON

extension RunJournal {
    /// Recovers every interrupted run in the directory: what a service calls at start-up, and what
    /// `matterflow recover` does.
    ///
    /// For each run whose journal has no terminal record and whose process is gone (its lock is free):
    /// 1. a torn last record is cut off, and recorded as discarded;
    /// 2. each in-doubt hub call (an intent without an outcome) is reconciled by reading the hub — the session's
    ///    phase and owner, the devices' presence — never by calling it again, and the verdict is recorded;
    /// 3. the run takes its cancel path: when the hub shows that it holds the structure's commissioning session
    ///    (opened by this run), recovery calls `cancelCommissioning`, journaled like any call, which also removes
    ///    the devices still pending; a session of another client is never touched. With `resume`, a run whose
    ///    commissioning had already been completed ends as `succeeded` instead;
    /// 4. a `runFinished` record and a `recoveryFinished` record end the journal.
    ///
    /// Runs that had finished are left untouched, so recovering twice changes nothing. When the hub cannot be
    /// read, the run is left `needsAttention` (with a `recoveryDeferred` record) for a later recovery.
    ///
    /// Recovery is a task of the simulation in the sense of ``WorkflowClock``: virtual time stands still while it
    /// reads and writes, and passes only while a run it continues waits on the clock. The caller should not hold
    /// the clock's activity while it awaits recovery.
    public func recover(on hub: any Hub, options: RecoveryOptions = RecoveryOptions()) async -> RecoveryReport {
        options.clock.beginActivity()
        defer { options.clock.endActivity() }
        var report = RecoveryReport(runs: [])
        let paths: [String]
        do {
            paths = try journalPaths()
        } catch {
            return report
        }
        for path in paths {
            report.runs.append(await recoverRun(at: path, hub: hub, options: options))
        }
        report.runs.sort { ($0.startedAt ?? .infinity, $0.path) < ($1.startedAt ?? .infinity, $1.path) }
        return report
    }

    private func recoverRun(at path: String, hub: any Hub, options: RecoveryOptions) async -> RunRecovery {
        var run = RunRecovery(runID: JournalRunSummary.runID(fromPath: path), path: path, action: .unreadable, status: .unreadable)
        let file: JournalFile
        do {
            guard let locked = try JournalFile.openLocked(path) else {
                run.action = .running
                run.status = .running
                return run
            }
            file = locked
        } catch {
            run.notes.append(error.message)
            return run
        }
        defer { file.close() }
        let contents: JournalContents
        do {
            contents = try JournalReader.read(path: path)
        } catch {
            run.notes.append(error.message)
            return run
        }
        run.notes = contents.problems
        // A record whose members do not decode cannot be reasoned about: the run is left as it is, for a person.
        let entries: JournalEntries
        do {
            entries = try contents.entries()
        } catch {
            run.notes.append(error.message)
            return run
        }
        let writer = JournalWriter(continuing: file, nextSequence: (contents.records.last?.sequence ?? 0) + 1, hook: options.testHook)
        let recoverer = RunRecoverer(contents: contents, entries: entries, writer: writer, hub: hub, options: options)
        guard let (started, startedAt) = entries.started else {
            guard contents.startIsDamaged else {
                run.action = .notStarted
                run.status = .notStarted
                return run
            }
            // Records survive a damaged runStarted: the run did start, and may hold a session.
            run.action = .deferred
            run.status = .needsAttention
            let reason = await recoverer.settleWithoutStart(into: &run)
            run.notes.append(reason)
            _ = try? writer.append(.recoveryDeferred(reason: reason))
            return run
        }
        run.runID = started.runID
        run.workflow = started.workflow
        run.structureID = started.structureID
        run.startedAt = startedAt
        if let finished = entries.finished {
            run.action = .alreadyFinished
            run.status = JournalRunStatus(finished.outcome)
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
            return run
        }
        do {
            try await recoverer.recover(into: &run)
        } catch {
            run.action = .deferred
            run.status = .needsAttention
            run.notes.append(error.message)
            _ = try? writer.append(.recoveryDeferred(reason: error.message))
        }
        return run
    }
}
