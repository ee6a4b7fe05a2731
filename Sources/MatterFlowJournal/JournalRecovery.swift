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
    ///
    /// It leaves the caller's actor (`@concurrent`): it reads and writes journal files as it goes.
    @concurrent public func recover(on hub: any Hub, options: RecoveryOptions = RecoveryOptions()) async -> RecoveryReport {
        await options.clock.working { await recoverAll(on: hub, options: options) }
    }

    private func recoverAll(on hub: any Hub, options: RecoveryOptions) async -> RecoveryReport {
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
        let writer = JournalWriter(continuing: file, nextSequence: (contents.records.last?.sequence ?? 0) + 1, hook: options.testHook)
        await RunRecoverer.settle(&run, contents: contents, writer: writer, hub: hub, options: options)
        return run
    }
}
