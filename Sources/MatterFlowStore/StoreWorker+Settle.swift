import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import Synchronization

/// Settling a run another worker left (or resuming one handed back), and recording how each run ended.
extension StoreWorker {
    /// Settles a run whose worker died, from its records; or resumes one handed back at a checkpoint (its records
    /// end at a checkpoint with no call in doubt), whatever ``WorkerOptions/resume`` says. With `cancelBecause`, the
    /// run takes its cancel path for that reason (`cancelAsked`: because its cancel was asked for).
    ///
    /// A run handed back is not a takeover: a rolling restart hands every run back, and is no crash. Its end is not
    /// `recovered`, nor counted in ``WorkerSummary/takenOver``, and a cancel asked for is logged as information.
    func settle(
        _ claimed: ClaimedRun, records: [JournalRecord], hub: any Hub, sink: PostgresJournalSink, secrets: JSONObject,
        answers: [String: JSONValue], missingAnswers: [String], handedBack: Bool, cancelBecause: String?, cancelAsked: Bool,
        idleness: RunIdleness
    ) async {
        if !handedBack { state.withLock { $0.summary.takenOver += 1 } }
        if let cancelBecause {
            log(.info, run: claimed.runID, "taking the cancel path of run \(claimed.runID) (\(cancelBecause))")
        } else if handedBack {
            log(.info, run: claimed.runID, "resuming run \(claimed.runID) from its last checkpoint (handed back by its worker)")
        } else {
            let why = claimed.previousWorker.map { "worker \($0)'s lease ran out" } ?? "its worker handed it back for takeover, or its lease ran out"
            log(.info, run: claimed.runID, "settling run \(claimed.runID) (\(why))")
        }
        var recoveryOptions = recoveryOptions(resume: cancelBecause == nil && (options.resume || handedBack), inputs: secrets, answers: answers)
        recoveryOptions.interruption = handedBack
            ? "its worker handed it back"
            : "its worker's lease ran out: the worker stopped, or could not reach the store for longer than its lease"
        // A resumed run's questions wait for answers given through the store, as those of a run started here do, and
        // a cancel asked for while it runs reaches it.
        recoveryOptions.answering = { [answerRelay, cancelRelay] handle in
            answerRelay.attach(handle, to: claimed.runID, through: claimed.answeredThrough, missingSecrets: missingAnswers)
            cancelRelay.attach(handle, to: claimed.runID)
        }
        // The run's warnings: those its records hold from before, and those it gives as it goes on here.
        let warnings = Mutex(JournalEntries.warnings(in: records))
        recoveryOptions.observer = { [self] event in
            keepShown(event, of: claimed.runID)
            logRefusedAnswer(event, of: claimed.runID)
            if case .warning(_, let message) = event.kind { warnings.withLock { $0.append(message) } }
            followWaits(of: claimed.runID, idleness: idleness, event)
        }
        // A run resumed on its normal path parks when the worker stops, as a run it started does, and goes back to be
        // resumed again (a rolling restart must not turn it into a takeover).
        recoveryOptions.pause = registerPause(of: claimed.runID)
        let recovery = await SinkJournal.recover(runID: claimed.runID, records: records, sink: sink, on: hub, options: recoveryOptions)
        answerRelay.detach(claimed.runID)
        if recovery.action == .deferred, recovery.deferredForOtherHub {
            // Only a worker on the run's hub can settle it: handed on as a run with no hub here, however long that takes.
            await cannotStart(
                claimed, problem: recovery.notes.last ?? "run \(claimed.runID) acted on another hub",
                failure: (.unavailable, "hubUnreachable", "no worker on the run's hub"))
            return
        }
        if recovery.action == .deferred, claimed.claimsSinceReopen < HandBackBackoff.claimsBeforeRecoveryGivesUp {
            // Recovery could not finish (the hub unreadable for a moment, a record not written): it is tried again,
            // by this worker or another, after a delay that grows with the run's claims, up to
            // ``HandBackBackoff/claimsBeforeRecoveryGivesUp`` claims. The run keeps its session row and its secrets
            // meanwhile; recorded needsAttention at once, no worker would look at it again, and the session and any
            // ePSKc key it left would only lapse on the hub.
            let delay = HandBackBackoff.delay(afterClaims: claimed.claimsSinceReopen)
            _ = await durable(claimed.runID)
            let reason = recovery.notes.last ?? "recovery deferred"
            do {
                if try store.handBack([claimed.runID], by: options.workerID, retryAfter: delay).isEmpty {
                    log(.warning, run: claimed.runID, "could not settle run \(claimed.runID) (\(reason)); its lease is no longer this worker's, so the worker that holds it settles it")
                } else {
                    log(.warning, run: claimed.runID, "could not settle run \(claimed.runID) (\(reason)); it is handed back, to be settled again in \(delay) s")
                }
            } catch {
                log(.warning, run: claimed.runID, "could not settle run \(claimed.runID) (\(reason)), nor hand it back (\(error.message)); its lease runs out instead")
            }
            return
        }
        let status: String
        switch recovery.status {
        case .succeeded, .failed, .cancelled: status = recovery.status.rawValue
        case .running, .interrupted, .notStarted, .needsAttention, .unreadable: status = "needsAttention"
        }
        let stored = recovery.finished?.output.flatMap { $0.isNull ? nil : $0 }
        if let output = recovery.output { keepSecretOutput(output, redacted: stored, of: claimed.runID) }
        if unconfirmedReleases.take(claimed.runID) || records.contains(where: \.isSessionReleaseIntent) {
            await releaseRowEndedOnHub(by: claimed.runID, structure: claimed.structureID, hub: hub)
        }
        // As for a run this worker ran, the final status rides the committer's batches behind recovery's records:
        // written in the same transaction as the last of them, or a later one, and refused with them.
        await conclude(
            claimed.runID, status: status, output: stored,
            error: recovery.finished?.errorJSON, recovered: !handedBack,
            // A handed-back run cancelled for another reason than the asking (its secrets missing here) wants a look.
            endLevel: handedBack && status == "cancelled" && !cancelAsked ? .warning : nil,
            notes: recovery.notes + (status == "cancelled" ? cancelBecause.map { ["cancel path taken: \($0)"] } ?? [] : [])
                + JournalEntries.warningNotes(warnings.withLock { $0 }),
            structure: claimed.structureID, claims: claimed.claims,
            // A run recovery carried to its end says itself whether it holds its session; the hub is asked too.
            keepSession: status == "succeeded" && recovery.holdsSession != false
                ? await Self.keepsSession(of: claimed.runID, on: hub, structure: claimed.structureID) : false)
    }

    /// Whether a settled run that ended `succeeded` keeps the structure's fleet session row: only while the hub shows
    /// a session of the run still active (as a `prepare.json` run's, handed on to the runs that continue in it). A
    /// run whose in-doubt release the hub had carried out (`completeCommissioning` applied before its worker died,
    /// the row's release never written) gives the row up; kept, it would refuse every later prepare of the structure
    /// across the fleet for good. A hub that cannot say whose session is active is taken to hold the run's.
    static func keepsSession(of runID: String, on hub: any Hub, structure: StructureID) async -> Bool {
        guard let recoverable = hub.sessionReader else { return true }
        do {
            guard let session = try await recoverable.activeSession(structure: structure) else { return false }
            return session.owner == nil || session.belongs(to: runID)
        } catch {
            return true
        }
    }

    /// Gives up the structure's fleet row held by another run when this run's release may have ended that run's
    /// session on the hub without the row going too, or found it already ended: the release's answer was lost or
    /// came too late, the hub held no session (that run's lapsed), or this run's worker died (or lost the store)
    /// between the hub's release and the row's. That is the case of a `cancel.json` run releasing the
    /// session a `prepare.json` run left open, which ended `succeeded` holding the row: kept, the row would refuse
    /// every later prepare of the structure across the fleet. The row goes only when its run ended `succeeded` (a
    /// running one gives it up itself as it ends; one that failed or was cancelled blocks nothing) and this run's hub
    /// shows no session of that run active (``keepsSession(of:on:structure:)``: a hub that cannot say keeps it), and
    /// only while this worker holds this run's lease.
    func releaseRowEndedOnHub(by runID: String, structure: StructureID, hub: any Hub) async {
        let found: (runID: String, status: String?)?
        do throws(StoreError) {
            found = try store.sessionHolder(of: structure)
        } catch {
            log(.warning, "could not read who holds the session row of structure \(structure) (\(error.message)); it is left as it is")
            return
        }
        guard let holder = found, holder.runID != runID, holder.status == "succeeded" else { return }
        guard await !Self.keepsSession(of: holder.runID, on: hub, structure: structure) else { return }
        do throws(StoreError) {
            _ = try await committer.perform(.releaseSession(structure: structure, runID: holder.runID, by: runID), runID: runID)
            log(.info, run: runID, "run \(runID) released the session run \(holder.runID) had left open on structure "
                    + "\(structure) without the fleet's row going too; the row is given up, as the hub shows no such session")
        } catch {
            log(.warning, run: holder.runID, "could not give up the row of run \(holder.runID) on structure \(structure) "
                    + "(\(error.message)), though the hub shows no such session; the next run that releases a session of the "
                    + "structure, or settles one, looks at it again")
        }
    }

    func recoveryOptions(resume: Bool, inputs: JSONObject, answers: [String: JSONValue]) -> RecoveryOptions {
        var recovery = RecoveryOptions(resume: resume, inputs: inputs, engine: engine, clock: options.clock)
        recovery.answers = answers
        recovery.digestKey = key
        recovery.questionClock = options.questionClock
        recovery.questionHoldsClock = false
        recovery.wallClock = { [storeClock] in storeClock.now }
        recovery.remoteHub = options.remoteHub
        recovery.handsOnOtherHubsRuns = true
        recovery.sharedSecrets = options.sharedSecrets
        return recovery
    }

    /// Whether the run's journal ended with its `runFinished` record, every record committed; false when it stopped
    /// earlier (at a call in doubt) or cannot be read now.
    func journalEnded(_ runID: String) async -> Bool {
        guard await durable(runID), let records = try? store.records(of: runID, after: 0) else { return false }
        return records.contains { $0.type == JournalEntry.Kind.runFinished.rawValue }
    }

    /// Waits until every record of the run is committed (its `runFinished` among them), so that no final status is
    /// recorded for a run whose records are not all in the store. False when they cannot be: the run's lease then
    /// runs out and another worker settles it.
    func durable(_ runID: String) async -> Bool {
        do {
            try await committer.flush(runID: runID)
            return true
        } catch {
            log(.warning, run: runID, "the records of run \(runID) could not be written (\(error.message)); its lease will run out and another worker settles it")
            return false
        }
    }

    /// Records a final status (fenced by the lease) and lets go of what the run held in the store, in the
    /// committer's next transaction.
    /// `endLevel` is the level of the line that logs the end, when not ``level(ofEnd:recovered:)``'s.
    func conclude(
        _ runID: String, status: String, output: JSONValue?, error: JSONValue?, recovered: Bool, endLevel: WorkerLogLine.Level? = nil,
        notes: [String], structure: StructureID, claims: Int, keepSession: Bool = false
    ) async {
        if let loss = committer.loss(of: runID), loss.kind != .records {
            log(.error, run: runID, "run \(runID) on structure \(structure) stopped here (its end, \(status), cannot be recorded, and it makes no further call): \(loss.description)")
            return
        }
        do throws(StoreError) {
            let lost = committer.loss(of: runID).map { [$0.description] } ?? []
            let conclusion = RunConclusion(
                runID: runID, status: status, output: output, error: error, recovered: recovered, notes: notes + lost, claims: claims)
            let answer = try await committer.perform(.finish(conclusion, release: keepSession ? nil : structure), runID: runID)
            guard answer == .finished(recorded: true) else {
                log(.info, run: runID, "run \(runID) was taken over by another worker; its status is theirs to record")
                return
            }
            options.secrets?.remove(runID: runID)
            state.withLock { $0.summary.finished[status, default: 0] += 1 }
            log(endLevel ?? Self.level(ofEnd: status, recovered: recovered), run: runID, "run \(runID) \(status)\(recovered ? " (settled after takeover)" : "")\(Self.why(error))")
        } catch where error.code == .leaseLost {
            log(.info, run: runID, "run \(runID) was taken over by another worker; its status is theirs to record")
        } catch {
            log(.warning, run: runID, "could not record the end of run \(runID) (\(error.message)); its lease will run out and another worker settles it")
        }
    }

    /// The level of the log line of a run's end, for a filter on warnings to catch what an operator looks at: a run
    /// that needs a person is an error; a run that failed, or that was settled after its worker was lost (cancelled
    /// on its way, or failed), a warning; a run that succeeded, or that was cancelled as asked, information.
    static func level(ofEnd status: String, recovered: Bool) -> WorkerLogLine.Level {
        switch status {
        case "needsAttention": .error
        case "succeeded": .info
        case "cancelled": recovered ? .warning : .info
        default: .warning
        }
    }

    /// Why a run ended so, for the worker's log line of its end: `: CAUSE: message` on one line, the message cut at 200
    /// characters (the store keeps it whole; `runs` and `history` show it); nothing for a run without an error.
    static func why(_ error: JSONValue?) -> String {
        guard let error = error?.objectValue else { return "" }
        let cause = error["cause"]?.stringValue ?? error["code"]?.stringValue ?? "?"
        var message = (error["message"]?.stringValue ?? "").split(whereSeparator: \.isNewline).joined(separator: " ")
        if message.count > 200 { message = String(message.prefix(199)) + "…" }
        return ": \(cause)" + (message.isEmpty ? "" : ": \(message)")
    }

    /// An error of the worker's own (a run it could not start or read), in the shape of a run's error.
    static func errorJSON(_ code: ErrorCode, cause: String, message: String) -> JSONValue {
        FlowError(code: code, cause: ErrorCause(rawValue: cause), message: message).jsonValue
    }
}
