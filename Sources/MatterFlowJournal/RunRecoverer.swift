import MatterFlow
import MatterFlowJSON

/// Why a recovery could not finish; recorded as `recoveryDeferred`, and the run is left for a later recovery.
struct RecoveryDeferral: Error {
    var message: String
    /// The run acted on another hub (or simulated home) than this recovery's: only one on its own hub can settle it.
    var otherHub = false

    /// The journal failed while recovery continued the run through its workflow.
    static let journalFailedWhileContinued = RecoveryDeferral(
        message: "the journal could not be written while the run was continued; its cancel path was taken, recover again")
}

/// Recovers one interrupted run whose journal this process has locked (see ``RunJournal/recover(on:options:)``).
struct RunRecoverer {
    let contents: JournalContents
    /// The journal's records, typed.
    let entries: JournalEntries
    let writer: JournalWriter
    let hub: any Hub
    let options: RecoveryOptions
    /// Where a run recovery continues through its workflow goes: nil to run it here, awaited until it ends.
    var handOff: PoolHandOff?

    var started: RunStartedEntry? { entries.started?.entry }
    /// The run's secret digests, with the key recovery was given to make and check keyed ones.
    var secretDigests: SecretDigests? { started?.secretDigests?.withKey(options.digestKey) }
    /// The run's ID: from `runStarted`, or the file's name when that record is damaged.
    var runID: String { started?.runID ?? JournalRunSummary.runID(fromPath: contents.path) }
    /// The run's structure: from `runStarted`, or the run's hub calls when that record is damaged.
    var structure: StructureID { started?.structureID ?? entries.intents.first?.intent.structureID ?? "" }

    func recover(into run: inout RunRecovery) async throws(RecoveryDeferral) {
        let home = options.homeDirectory.map(JournalFile.directoryPath)
        if let recorded = started?.homeDirectory, recorded != home {
            throw RecoveryDeferral(
                message: "the run acted on the simulated home kept in \(recorded), and this recovery acts on "
                    + (home.map { "the one in \($0)" } ?? "another hub")
                    + ": its session and devices are not there; recover with --state \(recorded)",
                otherHub: true)
        }
        if let recorded = started?.remoteHub {
            var note: String?
            if let refusal = recorded.refusal(recoveringOn: options.remoteHub, note: &note) {
                throw RecoveryDeferral(message: refusal, otherHub: true)
            }
            if let note { run.notes.append(note) }
        }
        let answers = try checkResumedSecrets()
        if let torn = contents.tornTail {
            try journal { () throws(JournalError) in
                try writer.truncate(to: contents.validLength)
                try writer.append(.tornTailDiscarded(torn))
            }
            run.notes.append("discarded a torn last record (\(torn.length) bytes at byte \(torn.offset))")
        }
        // A recovery before this one that did not finish and took the cancel path (deferred, or stopped itself) may
        // have entered cancel-path states: the run was interrupted where that recovery found it. After one that
        // resumed the run, the run went on: it was interrupted where it last was.
        let lastRecovery = entries.records.lazy.reversed().compactMap { record -> RecoveryStartedEntry? in
            if case .recoveryStarted(let started) = record.entry { started } else { nil }
        }.first
        let interruptedIn = lastRecovery.flatMap { $0.mode == .cancel ? $0.interruptedIn : nil } ?? lastState
        run.interruptedIn = interruptedIn
        try journal { () throws(JournalError) in
            try writer.append(
                .recoveryStarted(
                    RecoveryStartedEntry(
                        mode: options.resume ? .resume : .cancel, pid: JournalFile.processID,
                        lastSequence: entries.last?.sequence ?? 0, interruptedIn: interruptedIn)))
        }

        // Read the hub: the structure's session, and whose it is.
        let reconciler = try await readHub()
        var resolutions: [Resolution] = []
        for intent in inDoubtIntents { resolutions.append(await reconciler.reconcile(intent)) }
        // A call left in doubt because the hub cannot be asked now is settled by a later recovery, not taken for
        // undone: the run is left as it is (needs attention), its calls still in doubt, rather than closed on a guess.
        if let reason = reconciler.unavailable, let unsettled = resolutions.first(where: { $0.verdict == .unknown }) {
            throw RecoveryDeferral(
                message: "\(unsettled.operation) (\(unsettled.key)) is in doubt and \(reason), so recovery cannot tell what it did; recover again once the hub answers")
        }
        for (intent, resolution) in zip(inDoubtIntents, resolutions) {
            let entry = ResolutionEntry(resolution: resolution, workflow: intent.workflow, state: intent.state)
            try journal { () throws(JournalError) in try writer.append(.resolution(entry)) }
        }
        run.resolutions = resolutions

        // The session the run's later calls are made in: the hub's, when it is this run's; otherwise the one the
        // journal shows it opened, which the hub no longer holds (those calls are then refused, not served in
        // another client's session).
        let runSession = reconciler.holdsSession ? reconciler.session?.sessionID : journaledSession
        var lostSession: String?
        if heldSessionWhenStopped(resolutions), !reconciler.holdsSession {
            let session = "the run's commissioning session\(journaledSession.map { " \"\($0)\"" } ?? "")"
            let reason = !reconciler.knowsOwners && reconciler.sessionActive
                ? "the hub reports that a session is active but cannot say whose, so recovery cannot tell whether it is still \(session)"
                : "\(session) is no longer active (the hub reports that \(reconciler.sessionText)): it expired or was released, and "
                    + "recovery does not act in another client's session"
            run.notes.append(reason)
            lostSession = reason
        }

        // A run whose commissioning had been completed goes on through its workflow where that is safe (a workflow
        // may still have work after completing, such as reading each device); otherwise the completed
        // commissioning is the run's success.
        let completedDevices = completion(resolutions)
        let planned = started.map { ResumePlanner(entries: entries, started: $0, resolutions: resolutions, options: options, answers: answers).plan() }
        if options.resume, let devices = completedDevices, !continuesSafely(planned, lostSession: lostSession) {
            run.resumed = true
            // Completing the commissioning released the session; the hub says whether the run holds another.
            run.holdsSession = reconciler.holdsSession
            try finish(
                run: &run, outcome: .succeeded, error: nil, output: ["deviceIDs": .array(devices.map(JSONValue.string))],
                note: "resumed: commissioning had been completed (devices \(devices.joined(separator: ", "))), so the run succeeded")
            return
        }
        // Without resuming, a completed commissioning is not cancelled either: no cancel path can take the devices
        // back out of the structure, so the run ended as it succeeded (unless it holds a session again, which its
        // cancel path releases).
        if !options.resume, let devices = completedDevices, !reconciler.holdsSession {
            try finish(
                run: &run, outcome: .succeeded, error: nil, output: ["deviceIDs": .array(devices.map(JSONValue.string))],
                note: "commissioning had been completed (devices \(devices.joined(separator: ", "))), which no cancel path undoes, "
                    + "so the run succeeded; the states after the completion were not run (recover with --resume runs them)")
            return
        }

        guard let planned else { throw RecoveryDeferral(message: "the journal has no runStarted record") }
        switch planned {
        case .success(var plan):
            run.notes += plan.notes
            if let lostSession {
                plan.unsafeBecause = [plan.unsafeBecause, lostSession].compactMap { $0 }.joined(separator: "; ")
            }
            let interrupted = options.interrupt?.isInterrupted == true
            let resume = options.resume && plan.unsafeBecause == nil && !interrupted
            if options.resume, let reason = plan.unsafeBecause {
                run.notes.append("resume is not safe here: \(reason); the cancel path was taken instead")
            } else if options.resume, interrupted {
                run.notes.append("recovery was interrupted by a signal; the cancel path was taken instead of resuming")
            }
            plan.point.cancel = !resume
            run.resumed = resume
            if !resume { plan.repeatedCall = nil }
            let ending = ContinuedRunEnding(
                resumed: resume, interruptedIn: interruptedIn, completedDevices: completedDevices,
                heldSessionBefore: reconciler.holdsSession, cause: entries.interruptionCause(otherwise: options.interruption))
            if let handOff {
                try continueInPool(plan, sessionID: runSession, holdsSession: reconciler.holdsSession, run: &run, ending: ending, handOff: handOff)
                return
            }
            let result = try await continueRun(plan, sessionID: runSession, holdsSession: reconciler.holdsSession)
            if resume, options.interrupt?.isInterrupted == true {
                run.notes.append("a signal interrupted the resumed run, so it took its cancel path")
            }
            _ = try await conclude(&run, result: result, ending: ending)
        case .failure(let unrunnable):
            // Only a run that restoring the file would let resume: not one whose session is gone, nor one a signal
            // interrupted (it takes its cancel path, as the command says).
            if options.resume, options.keepsRunsItCannotResume, lostSession == nil, options.interrupt?.isInterrupted != true {
                throw RecoveryDeferral(
                    message: "resume refused: \(unrunnable.reason); the run was left where it stopped: restore the file as it "
                        + "was when the run started and recover again with --resume, or recover without --resume to take its cancel path")
            }
            run.notes.append("the workflow's own cancel path could not be run: \(unrunnable.reason); recovery released what the run held itself")
            try await cancelDirectly(&run, reconciler: reconciler, interruptedIn: interruptedIn, completedDevices: completedDevices)
        }
    }

    /// Ends the journal of a run recovery continued through its workflow, once the run has ended: a cancelled
    /// run's error says how recovery came to cancel it, what the run still holds is released, and the run's
    /// terminal record and recovery's are written. Returns the error the run ends with.
    func conclude(_ run: inout RunRecovery, result: RunResult, ending: ContinuedRunEnding) async throws(RecoveryDeferral) -> FlowError? {
        var error = result.error
        if !ending.resumed, let cancelled = error {
            var message = "the run was interrupted in state \(ending.interruptedIn ?? "?") (\(ending.cause)); recovery took the workflow's cancel path: \(cancelled.message)"
            if let devices = ending.completedDevices { message += "; commissioning had been completed (devices \(devices.joined(separator: ", ")))" }
            error = FlowError(code: cancelled.code, cause: cancelled.cause, message: message, state: ending.interruptedIn)
        }
        if result.outcome != .succeeded {
            try await releaseLeftovers(&run, heldBefore: ending.heldSessionBefore)
        }
        // A run that did not succeed holds nothing once recovery has released what it left.
        run.holdsSession = result.outcome == .succeeded && result.holdsSession
        try finish(run: &run, outcome: result.outcome, error: error, output: result.redactedOutput, note: nil)
        run.output = result.output
        return error
    }

    /// How a run recovery continues starts, awaited or in a pool: its recorder, journaling in the same file after
    /// the records it has; its resume point, whose session calls are made in `sessionID` (its keys continue after its
    /// own the journal holds, the plan's `callsBefore`); and the answers it is given (secret answers put back into the
    /// run's variables are used up).
    func continuation(
        _ plan: ResumePlan, sessionID: String?, holdsSession: Bool
    ) -> (recorder: JournalRecorder, point: ResumePoint, answers: [String: JSONValue]) {
        let recorder = JournalRecorder(
            writer: writer, runID: runID, workflow: plan.workflow, structureID: structure, showSecrets: started?.secretsShown ?? false,
            hub: hub, continuing: true, secretDigests: secretDigests, repeating: plan.repeatedCall)
        var point = plan.point
        point.sessionID = sessionID
        point.holdsSession = holdsSession
        return (recorder, point, options.answers.filter { !plan.restoredAnswers.contains($0.key) })
    }

    /// Continues the run through its workflow (resumed, or along its cancel path), journaled in the same file;
    /// its session calls are made for `sessionID` and refused in any other session.
    private func continueRun(_ plan: ResumePlan, sessionID: String?, holdsSession: Bool) async throws(RecoveryDeferral) -> RunResult {
        let (recorder, point, answers) = continuation(plan, sessionID: sessionID, holdsSession: holdsSession)
        var runOptions = RunOptions(structureID: structure, clock: options.clock, runID: runID, showSecrets: started?.secretsShown ?? false)
        // A delay until a moment counts by the recovery's wall clock, as its waits do (a fleet's: the store's).
        runOptions.wallClockOrigin = options.wallClock() - options.clock.now.secondsValue
        runOptions.recording = recorder
        runOptions.answers = answers
        // Recovery with nobody to ask: a question without a fitting answer cancels the run.
        let unanswered = RunCancellation()
        runOptions.cancellation = unanswered
        runOptions.observer = options.observer
        runOptions.questionClock = options.questionClock
        runOptions.questionHoldsClock = options.questionHoldsClock
        runOptions.sharedSecrets = options.sharedSecrets
        // A run on its cancel path is never parked: it is handed back to be settled, not resumed.
        let levels = point.levels + point.elements.flatMap(\.levels)
        if !point.cancel, levels.allSatisfy({ $0.cancelledIn == nil }) { runOptions.pause = options.pause }
        if options.answering == nil {
            let outer = options.observer
            runOptions.observer = { event in
                outer?(event)
                switch event.kind {
                case .questionAsked(let state, let question) where answers[question.name] == nil && answers[state] == nil:
                    unanswered.cancel(reason: "recovery has no answer to question \(question.name)")
                case .answerRejected(_, let question, _):
                    unanswered.cancel(reason: "recovery's answer to question \(question) does not fit")
                default:
                    break
                }
            }
        }
        let handle: RunHandle
        do {
            handle = try options.engine.resume(plan.workflow, from: point, on: hub, options: runOptions)
        } catch {
            throw RecoveryDeferral(message: "the run could not be continued from its journal: \(error.message)")
        }
        options.answering?(handle)
        let journalFailed = JournalFailureFlag()
        recorder.onFailure {
            journalFailed.set()
            handle.cancel(reason: "its journal could not be written")
        }
        options.interrupt?.follow(handle)
        // Recovery waits for the run, not for the clock: virtual time may pass while the run waits on it, but not
        // between the run's end and recovery's closing records.
        let result = await handle.result(workingOn: options.clock)
        options.interrupt?.finished()
        if journalFailed.isSet {
            throw RecoveryDeferral.journalFailedWhileContinued
        }
        return result
    }

    /// The cancel path without the workflow: release the session only when the hub shows it is this run's.
    private func cancelDirectly(
        _ run: inout RunRecovery, reconciler: Reconciler, interruptedIn: String?, completedDevices: [String]?
    ) async throws(RecoveryDeferral) {
        if reconciler.holdsSession, let session = reconciler.session {
            try await release(session)
            run.releasedSession = true
        } else if reconciler.session != nil || reconciler.sessionActive {
            run.notes.append("the structure's active session is not this run's; it was left alone")
        }
        try await withdrawEpskcKeys(&run)
        var message = "the run was interrupted in state \(interruptedIn ?? "?") (\(entries.interruptionCause(otherwise: options.interruption))); recovery took the cancel path"
        message += run.releasedSession ? " and released its commissioning session" : "; the run held no session"
        if let devices = completedDevices { message += "; commissioning had been completed (devices \(devices.joined(separator: ", ")))" }
        let error = FlowError(code: .cancelled, cause: .runCancelled, message: message, state: interruptedIn)
        run.holdsSession = false
        try finish(run: &run, outcome: .cancelled, error: error, output: nil, note: nil)
    }

    // MARK: - Reading the journal

    /// The innermost state the run had entered, qualified by sub-workflow (`commission/commission`).
    private var lastState: String? {
        guard let entered = entries.lastStateEntered, let state = entered.state else { return nil }
        let path = entered.workflow.split(separator: "/").dropFirst().map(String.init)
        return (path + [state]).joined(separator: "/")
    }

    /// Intents without an outcome or an earlier resolution: the calls whose effect the journal does not know.
    private var inDoubtIntents: [IntentEntry] {
        let settled = Set(entries.outcomes.map(\.key) + entries.resolutions.map(\.resolution.key))
        return entries.intents.map(\.intent).filter { !settled.contains($0.key) }
    }

    /// The intent of each call, by key.
    private var intentsByKey: [String: IntentEntry] {
        Dictionary(entries.intents.map { ($0.intent.key, $0.intent) }, uniquingKeysWith: { $1 })
    }

    /// The session IDs the journal shows the run's session-opening calls returned, in order: results, late results
    /// and rebuilt results of calls whose intents say they acquire the session.
    private var journaledSessionIDs: [String] {
        let intents = intentsByKey
        return entries.compactMap { record -> String? in
            guard let call = record.entry.callResult, intents[call.key]?.acquiresSession == true else { return nil }
            return call.result?["sessionID"]?.stringValue
        }
    }

    private var journaledSessions: Set<String> { Set(journaledSessionIDs) }

    /// The session the journal shows the run opened last.
    private var journaledSession: String? { journaledSessionIDs.last }

    /// Whether the run held a commissioning session when it stopped: its last session call that took effect
    /// (journaled, or found applied by `resolutions`) opened one rather than releasing it. Whether a call opens or
    /// releases the session is what its intent recorded, so a catalog's own operations count too; a failed release
    /// of an operation whose attempt suffices (``IntentEntry/releaseAttemptSuffices``) ends the hold as the
    /// workflow sees it, as the verifier counts it.
    private func heldSessionWhenStopped(_ resolutions: [Resolution]) -> Bool {
        let intents = intentsByKey
        var effective: [String] = []
        for record in entries {
            guard let call = record.entry.callResult else { continue }
            // The run's own failed release ends the hold when its attempt suffices.
            let attemptSuffices = call.source == .outcome && intents[call.key]?.releaseAttemptSuffices == true
            if call.tookEffect || attemptSuffices { effective.append(call.key) }
        }
        effective += resolutions.filter { $0.verdict == .applied }.map(\.key)
        var held = false
        for key in effective {
            guard let intent = intents[key] else { continue }
            if intent.acquiresSession { held = true } else if intent.releasesSession { held = false }
        }
        return held
    }

    /// Whether a resume plan lets the run go on through its workflow (and no signal has interrupted recovery).
    private func continuesSafely(_ planned: Result<ResumePlan, UnrunnableWorkflow>?, lostSession: String?) -> Bool {
        guard case .success(let plan)? = planned else { return false }
        return plan.unsafeBecause == nil && lostSession == nil && options.interrupt?.isInterrupted != true
    }

    private var journaledDevices: [String] {
        entries.results(of: "commissionDevice").last { !$0.devices.isEmpty }?.devices ?? []
    }

    /// The devices of a completion that took effect: a successful `completeCommissioning` outcome that nothing
    /// released afterwards, or an in-doubt one found applied.
    private func completion(_ resolutions: [Resolution]) -> [String]? {
        if let applied = resolutions.last(where: { $0.operation == "completeCommissioning" && $0.verdict == .applied }) {
            return applied.devices.sorted()
        }
        // The last completion, when no commissioning session was opened after it: the calls after it (a bridge's
        // reads of its devices) do not undo it.
        for outcome in entries.outcomes.reversed() {
            if outcome.operation == "completeCommissioning" {
                return outcome.value?["deviceIDs"]?.arrayValue?.compactMap(\.stringValue).sorted()
            }
            if outcome.operation == "prepareCommissioning" { return nil }
        }
        return nil
    }

    // MARK: - Acting

    func readHub() async throws(RecoveryDeferral) -> Reconciler {
        let status: HubStatus
        var session: HubSessionInfo?
        do {
            status = try await hub.status(structure: structure)
            if let recoverable = hub.sessionReader {
                session = try await recoverable.activeSession(structure: structure)
            }
        } catch {
            throw RecoveryDeferral(message: "the hub could not be read for structure \"\(structure)\": \(FlowError.from(error)); recover again once it answers")
        }
        return Reconciler(
            hub: hub, structure: structure, runID: runID, session: session, knowsOwners: hub.sessionReader != nil,
            sessionActive: status.activeSession, journaledSessions: journaledSessions, journaledDevices: journaledDevices,
            unavailable: !status.online ? "the hub is offline" : !status.reachable ? "the hub cannot be reached" : nil)
    }

    /// Ends the journal: the run's terminal record, then the recovery's.
    private func finish(
        run: inout RunRecovery, outcome: RunResult.Outcome, error: FlowError?, output: JSONValue?, note: String?
    ) throws(RecoveryDeferral) {
        if let note { run.notes.append(note) }
        let finished = RecoveryFinishedEntry(
            outcome: outcome, resumed: run.resumed, releasedSession: run.releasedSession, resolutions: run.resolutions.count)
        let entry = RunFinishedEntry(outcome: outcome, error: error, output: output, recovered: true, holdsSession: run.holdsSession)
        try journal { () throws(JournalError) in
            try writer.append(.runFinished(entry))
            try writer.append(.recoveryFinished(finished))
        }
        run.finished = entry
        run.action = .recovered
        run.status = JournalRunStatus(outcome)
    }

    func journal(_ work: () throws(JournalError) -> Void) throws(RecoveryDeferral) {
        do {
            try work()
        } catch {
            throw RecoveryDeferral(message: "the journal could not be written: \(error.message)")
        }
    }
}
