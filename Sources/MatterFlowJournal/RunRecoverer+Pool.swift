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
    /// Why the run stopped (``JournalEntries/interruptionCause``).
    let cause: String
}

extension RunRecoverer {
    /// A recoverer over the journal as the writer has it now, recovery's own records and a continued run's included.
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
    /// The run holds its journal file open and its `runStarted` record, not the rest, while it waits: the end reads
    /// the journal again only for a run that did not succeed (``releaseLeftovers(_:heldBefore:)``).
    func continueInPool(
        _ plan: ResumePlan, sessionID: String?, holdsSession: Bool, run: inout RunRecovery, ending: ContinuedRunEnding,
        handOff: PoolHandOff
    ) throws(RecoveryDeferral) {
        // A question left without an answer waits for one given through the pool, until its timeout.
        let (recorder, point, answers) = continuation(plan, sessionID: sessionID, holdsSession: holdsSession)
        let writer = self.writer
        let start = entries.records.filter { if case .runStarted = $0.entry { true } else { false } }
        let concluding = RunRecoverer(
            contents: JournalContents(path: contents.path, records: [], validLength: 0, tornTail: nil, problems: []),
            entries: JournalEntries(start), writer: writer, hub: hub, options: options)
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
                    handedOut.error = try await concluding.conclude(&recovery, result: result, ending: ending)
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
        recorder.onFailure { pool.cancel(pooled, reason: "its journal could not be written") }
        run.action = .continuing
        run.status = .running
        run.pooled = pooled
    }
}
