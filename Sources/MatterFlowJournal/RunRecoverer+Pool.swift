import MatterFlow
import MatterFlowJSON

/// Recovery that puts the runs it continues through their workflows into a ``RunPool`` instead of awaiting each:
/// `RunJournal.recover(into:options:settled:)`.
struct PoolHandOff: Sendable {
    let pool: RunPool
    /// Told what recovery did with each run it put into the pool, once that run has ended and its journal is closed.
    let settled: (@Sendable (RunRecovery) -> Void)?
}

/// What recovery needs to know, once a run it continued has ended, to end its journal.
struct ContinuedRunEnding: Sendable {
    /// The run was resumed rather than sent down its cancel path.
    let resumed: Bool
    /// The state the run was in when its process stopped.
    let interruptedIn: String?
    /// The devices of a commissioning completed before the run stopped.
    let completedDevices: [String]?
    /// The hub showed the run holding the structure's session when recovery began.
    let heldSessionBefore: Bool
}

extension RunRecoverer {
    /// A recoverer over the journal as the writer has it now: what a continued run's end is concluded from, without
    /// keeping the records while the run waits.
    init(rereading writer: JournalWriter, hub: any Hub, options: RecoveryOptions) throws(RecoveryDeferral) {
        let contents: JournalContents
        let entries: JournalEntries
        do {
            contents = JournalContents(path: writer.path, records: try writer.readBack(), validLength: 0, tornTail: nil, problems: [])
            entries = try contents.entries()
        } catch {
            throw RecoveryDeferral(message: "the journal could not be read back: \(error.message)")
        }
        self.init(contents: contents, entries: entries, writer: writer, hub: hub, options: options)
    }

    /// Puts the run into the pool at its resume point (resumed, or on its cancel path), journaled in the same file.
    /// When it ends, the pool runs the end recovery would have awaited: a cancelled run's leftovers are released,
    /// the journal's terminal records are written, the journal is closed (its lock released), and `settled` is told.
    /// The run holds its journal file open, not its records, while it waits.
    func continueInPool(
        _ plan: ResumePlan, sessionID: String?, run: inout RunRecovery, ending: ContinuedRunEnding, handOff: PoolHandOff
    ) throws(RecoveryDeferral) {
        let recorder = continuedRecorder(plan)
        var point = plan.point
        point.sessionID = sessionID
        // Secret answers put back into the run's variables are used up; a question left without an answer waits for
        // one given through the pool, until its timeout.
        let answers = options.answers.filter { !plan.restoredAnswers.contains($0.key) }
        let writer = self.writer
        let hub = self.hub
        let options = self.options
        let recovery = run
        let pool = handOff.pool
        let settled = handOff.settled
        let pooled: RunPool.Run
        do {
            pooled = try pool.resume(
                plan.workflow, from: point, structureID: structure, runID: runID, showSecrets: started?.secretsShown ?? false,
                answers: answers, recording: recorder
            ) { result async -> RunResult in
                var recovery = recovery
                var handedOut = result
                do throws(RecoveryDeferral) {
                    if writer.failure != nil {
                        throw RecoveryDeferral.journalFailedWhileContinued
                    }
                    let recoverer = try RunRecoverer(rereading: writer, hub: hub, options: options)
                    handedOut.error = try await recoverer.conclude(&recovery, result: result, ending: ending)
                } catch {
                    recovery.action = .deferred
                    recovery.status = .needsAttention
                    recovery.notes.append(error.message)
                    _ = try? writer.append(.recoveryDeferred(reason: error.message))
                    handedOut.warnings.append("recovery could not finish: \(error.message)")
                }
                writer.close()
                settled?(recovery)
                return handedOut
            }
        } catch {
            throw RecoveryDeferral(message: "the run could not be continued from its journal: \(error.message)")
        }
        recorder.onFailure { pool.cancel(pooled) }
        run.action = .continuing
        run.status = .running
        run.pooled = pooled
    }
}
