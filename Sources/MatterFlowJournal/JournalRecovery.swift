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

    /// Recovers every interrupted run in the directory as ``recover(on:options:)`` does, but puts each run it
    /// continues through its workflow (resumed, or on its cancel path) into `pool` instead of awaiting it: what a
    /// service that holds its runs in a ``RunPool`` calls at start-up. It returns once every run is reconciled and
    /// handed over; the report lists those as ``RunRecovery/Action/continuing``, each with its run in the pool
    /// (``RunRecovery/pooled``), to answer, cancel or await there like any other. A run waiting for a hub event hears it
    /// once the pool listens to its structure (``RunPool/listen(to:)``, for each ``RunRecovery/structureID``).
    ///
    /// Each such run keeps its journal file open and locked while it waits, and its `runStarted` record, not the rest.
    /// When it ends, the pool releases what a cancelled run still holds, writes the journal's `runFinished` and
    /// `recoveryFinished` records, closes the file, tells `settled` what recovery did, and only then hands out the
    /// run's result (a cancelled run's error says why recovery cancelled it; a recovery that could not finish adds a
    /// warning and leaves the run `needsAttention` for a later recovery).
    ///
    /// The runs call `pool.hub` and time out on the pool's clock; `options.clock` should be that clock. Unlike
    /// ``recover(on:options:)``, a continued run whose question has no answer in `options.answers` waits for one given
    /// through the pool, until the question's timeout, and `options.interrupt` is not followed (cancel the runs in the
    /// pool instead).
    @concurrent public func recover(
        into pool: RunPool, options: RecoveryOptions = RecoveryOptions(), settled: (@Sendable (RunRecovery) -> Void)? = nil
    ) async -> RecoveryReport {
        await options.clock.working {
            await recoverAll(on: pool.hub, options: options, handOff: PoolHandOff(pool: pool, settled: settled))
        }
    }

    private func recoverAll(on hub: any Hub, options given: RecoveryOptions, handOff: PoolHandOff? = nil) async -> RecoveryReport {
        var options = given
        // The directory's own key checks its runs' keyed digests; a run that needs it when it cannot be read is
        // refused resumption, saying why.
        if options.digestKey == nil {
            do throws(JournalError) {
                options.digestKey = try SecretDigestKey.load(fromDirectory: directory)
                if options.digestKey == nil {
                    options.digestKeyProblem = "its secrets were digested with a key, and there is no \(SecretDigestKey.fileName) in \(directory)"
                }
            } catch {
                options.digestKeyProblem = error.message
            }
        }
        var report = RecoveryReport(runs: [])
        let paths: [String]
        do {
            paths = try journalPaths()
        } catch {
            report.problem = "cannot list the journal directory: \(error.message)"
            return report
        }
        for path in paths {
            report.runs.append(await recoverRun(at: path, hub: hub, options: options, handOff: handOff))
        }
        report.runs.sort { ($0.startedAt ?? .infinity, $0.path) < ($1.startedAt ?? .infinity, $1.path) }
        return report
    }

    private func recoverRun(at path: String, hub: any Hub, options: RecoveryOptions, handOff: PoolHandOff?) async -> RunRecovery {
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
        var handedOver = false
        // A run put into a pool keeps its file until it ends: its ending closes it.
        defer { if !handedOver { file.close() } }
        let contents: JournalContents
        do {
            contents = try JournalReader.read(path: path)
        } catch {
            run.notes.append(error.message)
            if error.code == .notAJournal {
                // A run's journal whose first line was damaged: what it held is not known here.
                run.notes.append(
                    "if it is a run's journal with a damaged first line, put back the line \"MATTERFLOW-JOURNAL 1\" and recover "
                        + "again; until then a commissioning session it held lapses with the hub's lease, or cancel.json releases it")
            }
            return run
        }
        run.notes = contents.problems
        // A journal is its run's file: a copy under another name (a backup put back beside the original) would be
        // recovered as a second run, and its calls made twice.
        if let started = contents.records.first(where: { $0.type == JournalEntry.Kind.runStarted.rawValue }),
            let named = started.payload["runID"]?.stringValue, named != run.runID
        {
            run.notes.append(
                "\(path) holds the journal of run \(named), not of run \(run.runID) its name says: it was copied or renamed; "
                    + "recovery leaves it alone (move it away, or name it \(named).journal if it is that run's only journal)")
            return run
        }
        let writer = JournalWriter(continuing: file, nextSequence: (contents.records.last?.sequence ?? 0) + 1, hook: options.testHook)
        await RunRecoverer.settle(&run, contents: contents, writer: writer, hub: hub, options: options, handOff: handOff)
        handedOver = run.action == .continuing
        return run
    }
}
