import MatterFlow
import MatterFlowJSON
import MatterFlowJournal
import Synchronization

/// Running a claimed run: its task, its hub, its secrets, and what to do when it cannot start.
extension StoreWorker {
    func launch(_ claimed: ClaimedRun) {
        committer.runBegan()
        let idleness = RunIdleness()
        // Made under the lock, with its entries: the task's own clean-up (which takes the lock) cannot come first.
        state.withLock { state in
            // A run claimed anew after it was fenced here: the earlier task has ended (``claimedAgain(_:)``).
            committer.unfence(claimed.runID)
            state.fenced.remove(claimed.runID)
            state.claims[claimed.runID] = claimed.claims
            state.active[claimed.runID] = task(running: claimed, idleness: idleness)
        }
    }

    /// The task that runs or settles a claimed run, then lets go of it here.
    func task(running claimed: ClaimedRun, idleness: RunIdleness) -> Task<Void, Never> {
        Task { [self] in
            await execute(claimed, idleness: idleness)
            // A run that ended waiting (it ended without a last event) was counted out of the group commit then.
            if !idleness.isIdle { committer.runEnded() }
            cancelRelay.release(claimed.runID)
            state.withLock { state in
                state.active[claimed.runID] = nil
                state.pauses[claimed.runID] = nil
                state.waiting.remove(claimed.runID)
                state.fenced.remove(claimed.runID)
                state.claims[claimed.runID] = nil
                leases.forget(claimed.runID)
                // Nothing of the run is written from here any more: its refusal is no longer needed.
                committer.unfence(claimed.runID)
            }
            wake.raise()
        }
    }

    /// Runs or settles one claimed run and records its final status.
    func execute(_ claimed: ClaimedRun, idleness: RunIdleness) async {
        let runID = claimed.runID
        if let damage = claimed.damage {
            // Run on the defaults of what could not be read, it would do what nobody asked: a person looks.
            log(.error, run: runID, "run \(runID): \(damage); it needs attention")
            await conclude(
                runID, status: "needsAttention", output: nil,
                error: Self.errorJSON(.dataLoss, cause: "damagedRecords", message: "run \(runID): \(damage); it was not run"),
                recovered: false, notes: ["\(damage); it was not run"], structure: claimed.structureID, claims: claimed.claims,
                keepSession: true)
            return
        }
        let sink = PostgresJournalSink(runID: runID, committer: committer, store: store, clock: storeClock)
        // A cancel asked for before the run started here (`matterflow cancel`).
        let cancelAsked = claimed.cancelRequested || cancelRelay.takePending(runID)
        var secrets: JSONObject = [:]
        var answers = claimed.answers
        var missingAnswers: [String] = []
        var secretsProblem: StoreError?
        do throws(StoreError) {
            (secrets, answers, missingAnswers) = try takeSecrets(of: claimed)
        } catch {
            if takenOverMeanwhile(claimed) { return }
            // Without its secrets a run that has not begun cannot; one that has is settled on its cancel path, given
            // none of its secret answers rather than their placeholders. Either path logs it, once, with the run.
            secretsProblem = error
            for name in claimed.secretAnswers { answers[name] = nil }
        }
        let hub: any Hub
        do {
            hub = try await hubs(claimed.structureID)
        } catch {
            await noHub(for: claimed, because: error)
            return
        }
        // A run claimed before (taken over, or handed back at a checkpoint) may have begun: its records say.
        // Records that cannot be read (the server restarting) are not "no records": starting such a run afresh would
        // repeat its calls, its records colliding with its first worker's. It is handed back and claimed again after
        // a delay that grows with the run's claims (``HandBackBackoff``), so a worker does not spin on it.
        var records: [JournalRecord] = []
        if claimed.takeover || claimed.claims > 1 {
            do throws(StoreError) {
                records = try store.records(of: runID, after: 0)
            } catch where error.code != .damagedRecords {
                let delay = HandBackBackoff.delay(afterClaims: claimed.claimsSinceReopen)
                log(.warning, run: runID, "could not read the records of run \(runID) (\(error.message)); it is handed back, to be claimed again in \(delay) s")
                _ = try? store.handBack([runID], by: options.workerID, retryAfter: delay)
                return
            } catch {
                // Rows MatterFlow did not write, or that overlap: no claim will read them better. What the run did is
                // unknown, so it keeps its session, and a person settles it.
                log(.error, run: runID, "the records of run \(runID) cannot be read (\(error.message)); it needs attention")
                await conclude(
                    runID, status: "needsAttention", output: nil, error: Self.errorJSON(.dataLoss, cause: error.code.rawValue, message: error.message),
                    recovered: true, notes: ["its records cannot be read: \(error.message)"], structure: claimed.structureID,
                    claims: claimed.claims, keepSession: true)
                return
            }
        }
        // A run that has begun takes its cancel path when its cancel was asked for or its secrets are missing; one that
        // has not ends without a call.
        if records.contains(where: { $0.type == JournalEntry.Kind.runStarted.rawValue }) {
            let cancelBecause = cancelAsked
                ? "cancel asked for" : secretsProblem.map { "its secrets are not in this worker's --secrets directory: \($0.message)" }
            await settle(
                claimed, records: records, hub: hub, sink: sink, secrets: secrets, answers: answers, missingAnswers: missingAnswers,
                handedBack: !claimed.takeover, cancelBecause: cancelBecause, cancelAsked: cancelAsked, idleness: idleness)
            return
        }
        if let secretsProblem, !cancelAsked {
            // Another worker's --secrets directory may hold them (this one's may be the wrong one, or not mounted
            // yet): the run goes back, and fails only once it has come back as often as a run without a hub does.
            await cannotStart(
                claimed, problem: "its secrets are unavailable here (\(secretsProblem.message))",
                failure: (.failedPrecondition, "secretsUnavailable", secretsProblem.message))
            return
        }
        if cancelAsked {
            log(.info, run: runID, "run \(runID) was cancelled before it began")
            await conclude(
                runID, status: "cancelled", output: nil, error: PostgresRunStore.cancelledBeforeItBegan, recovered: false, notes: [],
                structure: claimed.structureID, claims: claimed.claims)
            return
        }
        if claimed.takeover {
            state.withLock { $0.summary.takenOver += 1 }
            log(.info, run: runID, "run \(runID) had not begun on \(claimed.previousWorker.map { "worker \($0)" } ?? "its first worker"); starting it")
        }
        let workflow: Workflow
        do {
            workflow = try engine.load(path: claimed.workflowFile)
        } catch {
            let message = error.diagnostics.first?.description ?? "invalid workflow"
            await conclude(runID, status: "failed", output: nil, error: Self.errorJSON(.failedPrecondition, cause: "invalidWorkflow", message: message), recovered: false, notes: [], structure: claimed.structureID, claims: claimed.claims)
            return
        }
        if let submitted = claimed.workflowHash, submitted != workflow.contentHash {
            // Its states, inputs and checks may not be what submit validated: the run is not started on them.
            let message = "the workflow file \(claimed.workflowFile) (or one of its sub-workflows) changed since run \(runID) was submitted; submit the run again to run the files as they are now"
            log(.warning, run: runID, "\(message)")
            await conclude(
                runID, status: "failed", output: nil, error: Self.errorJSON(.failedPrecondition, cause: "workflowChanged", message: message),
                recovered: false, notes: [], structure: claimed.structureID, claims: claimed.claims)
            return
        }
        var inputs = claimed.inputs
        for name in claimed.secretInputs { inputs[name] = secrets[name] }
        let pause = registerPause(of: runID)
        var runOptions = RunOptions(structureID: claimed.structureID, clock: options.clock, runID: runID)
        // A delay until a moment counts by the store's clock, as the fleet's records and waits do.
        runOptions.wallClockOrigin = storeClock.now - options.clock.now.secondsValue
        runOptions.pause = pause
        runOptions.answers = answers
        // The worker hears a run's events through its observer and never reads the handle's stream, which would
        // otherwise keep every event of the run until it ends.
        runOptions.eventBufferLimit = 0
        runOptions.observer = { [self] event in
            keepShown(event, of: runID)
            logRefusedAnswer(event, of: runID)
            followWaits(of: runID, idleness: idleness, event)
        }
        runOptions.questionClock = options.questionClock
        runOptions.questionHoldsClock = false
        runOptions.sharedSecrets = options.sharedSecrets
        let handle: RunHandle
        do {
            handle = try SinkJournal.start(
                workflow, inputs: inputs, on: hub, options: runOptions, engine: engine, sink: sink, digestKey: key, remoteHub: options.remoteHub)
        } catch {
            await conclude(runID, status: "failed", output: nil, error: Self.errorJSON(.invalidArgument, cause: "invalidInput", message: "\(error)"), recovered: false, notes: [], structure: claimed.structureID, claims: claimed.claims)
            return
        }
        log(.info, run: runID, "run \(runID) started: \(workflow.name) on structure \(claimed.structureID)")
        // A run that may ask questions hears the answers given to it since its claim, and those given while it runs.
        let asks = workflow.hasAsk { _ in true }
        if asks { answerRelay.attach(handle, to: runID, through: claimed.answeredThrough, missingSecrets: missingAnswers) }
        cancelRelay.attach(handle, to: runID)
        let result = await withTaskCancellationHandler {
            await handle.result
        } onCancel: {
            handle.cancel(reason: "the worker stopped and handed the run back")
        }
        if asks { answerRelay.detach(runID) }
        // The final status rides the committer's batches behind the run's records (its runFinished among them):
        // written in the same transaction as the last of them, or a later one, and refused with them.
        guard !Task.isCancelled else { return }
        if let connected = hub as? any ConnectedHub, connected.connectionLost, await !journalEnded(runID) {
            // The hub's connection went during one of the run's calls: its journal stopped at that call, in doubt (a
            // lost connection is a crash to it), so the run's records, not its result, say what it did. It goes back
            // for takeover a lease later, to be settled once a connection is back.
            handBackForTakeover([runID], which: "whose hub connection was lost during a call", after: options.leaseSeconds)
            return
        }
        let redacted = result.redactedOutput
        if let output = result.output { keepSecretOutput(output, redacted: redacted, of: runID) }
        if unconfirmedReleases.take(runID) { await releaseRowEndedOnHub(by: runID, structure: claimed.structureID, hub: hub) }
        await conclude(
            runID, status: result.outcome.rawValue, output: redacted,
            error: result.error?.jsonValue, recovered: false,
            notes: JournalEntries.warningNotes(result.warnings), structure: claimed.structureID, claims: claimed.claims,
            keepSession: result.outcome == .succeeded && result.holdsSession)
    }

    /// A run whose structure has no hub here (the hub unreachable, a simulated home that cannot be made): handed
    /// back, its failure counted in the store, to be claimed again after a delay growing with its failures
    /// (``HandBackBackoff``). At its ``HandBackBackoff/hubFailuresBeforeFailing``th failure, a run that has not begun
    /// fails without a call; one that has begun is handed back again, since only its hub can settle it.
    func noHub(for claimed: ClaimedRun, because error: any Error) async {
        let problem = "no hub for structure \(claimed.structureID) (\(error))"
        await cannotStart(claimed, problem: problem, failure: (.unavailable, "hubUnreachable", problem))
    }

    /// A run this worker cannot start or settle (no hub for its structure, its secrets not here): handed back, the
    /// failure counted in the store, to be claimed again (by any worker) after a delay growing with its failures
    /// (``HandBackBackoff``). At its ``HandBackBackoff/hubFailuresBeforeFailing``th failure, a run that has not
    /// begun fails without a call, with `failure`; one that has begun is handed back again.
    func cannotStart(
        _ claimed: ClaimedRun, problem: String, failure: (code: ErrorCode, cause: String, message: String)
    ) async {
        let runID = claimed.runID
        if takenOverMeanwhile(claimed) { return }
        let failures = claimed.hubFailures + 1
        if failures >= HandBackBackoff.hubFailuresBeforeFailing,
            let records = try? store.records(of: runID, after: 0),
            !records.contains(where: { $0.type == JournalEntry.Kind.runStarted.rawValue })
        {
            log(.warning, run: runID, "\(problem), failure \(failures) of the run; run \(runID) fails without a call")
            await conclude(
                runID, status: "failed", output: nil,
                error: Self.errorJSON(failure.code, cause: failure.cause, message: "\(failure.message), \(failures) times; the run made no call"),
                recovered: false, notes: [], structure: claimed.structureID, claims: claimed.claims)
            return
        }
        let delay = HandBackBackoff.delay(afterFailures: failures)
        log(.warning, run: runID, "\(problem); run \(runID) is handed back, to be claimed again in \(delay) s")
        _ = try? store.handBack([runID], by: options.workerID, retryAfter: delay, hubFailure: true)
    }

    /// Whether a run this worker claimed ahead is no longer its own, said once when so: a worker held up past its
    /// lease (stopped, paused, cut off) may find it taken over and finished meanwhile, its secrets removed, which is
    /// no failure of this worker's hub or secrets. A store that cannot answer leaves the run to the caller.
    func takenOverMeanwhile(_ claimed: ClaimedRun) -> Bool {
        guard (try? store.holds(claimed.runID, by: options.workerID, claims: claimed.claims)) == false else { return false }
        log(.info, run: claimed.runID,
            "run \(claimed.runID) is no longer this worker's: another worker took it over while this one was held up past its lease; leaving it")
        return true
    }

    /// The store keeps a run's output redacted; an output holding secrets goes whole to the secrets directory, the
    /// one place where a fleet's secrets are kept.
    func keepSecretOutput(_ output: JSONValue, redacted: JSONValue?, of runID: String) {
        guard output != redacted else { return }
        keepSecret(runID, "run \(runID)'s output holds secrets") { inbox throws(StoreError) in try inbox.keep(output: output, runID: runID) }
    }

    /// Keeps a value the run shows the person that holds secrets (its event's `value` redacted, its `revealed` not)
    /// in the secrets directory, where whoever serves the person reads it while the run goes on; the store has only
    /// the redacted record.
    /// Says in the log that a run refused an answer given to it (at submit, or with `matterflow answer`): the run
    /// waits for another, and only `history` or `watch` would say why otherwise. The event's reason is redacted, as
    /// every event is.
    func logRefusedAnswer(_ event: RunEvent, of runID: String) {
        guard case .answerRejected(_, let question, let reason) = event.kind else { return }
        log(
            .warning, run: runID,
            "run \(runID) refused the answer to \(question) (\(reason)); it waits for another: matterflow answer \(runID) --answer \(question)=...")
    }

    func keepShown(_ event: RunEvent, of runID: String) {
        guard case .shown(_, let value, let revealed) = event.kind, value != revealed else { return }
        keepSecret(runID, "run \(runID) showed a value that holds secrets") { inbox throws(StoreError) in try inbox.keep(shown: revealed, runID: runID) }
    }

    /// Writes what the store keeps redacted to the secrets directory; says in the log, beginning with `what`, when it
    /// cannot (no `--secrets`, or the write failed).
    private func keepSecret(_ runID: String, _ what: String, _ write: (SecretInbox) throws(StoreError) -> Void) {
        guard let inbox = options.secrets else {
            log(.warning, run: runID, "\(what); the store keeps it redacted, and without --secrets this worker keeps it nowhere")
            return
        }
        do {
            try write(inbox)
        } catch {
            log(.warning, run: runID, "\(what), which could not be kept: \(error.message); the store keeps it redacted")
        }
    }

    /// A pause switch for the run, kept where ``stop()`` and the drain find it; already asked to park when the worker
    /// is stopping.
    func registerPause(of runID: String) -> RunPause {
        let pause = RunPause()
        let stopping = state.withLock { state -> Bool in
            state.pauses[runID] = pause
            return state.stopping
        }
        if stopping { pause.request() }
        return pause
    }

    /// Follows a run's waits: while it waits for an answer, a delay or an event it takes no slot (the worker may
    /// start another) and the group commit does not hold batches back for it.
    func followWaits(of runID: String, idleness: RunIdleness, _ event: RunEvent) {
        guard let waits = idleness.note(event) else { return }
        if waits { committer.runEnded() } else { committer.runBegan() }
        state.withLock { state in
            if waits { state.waiting.insert(runID) } else { state.waiting.remove(runID) }
        }
        if waits { wake.raise() }
    }

    /// The run's secret inputs and its answers with the secret ones filled in, from the worker's secrets directory
    /// (``SecretInbox``): the store keeps neither. A secret answer not there (yet: the directory may be a copy brought
    /// up to date later) is left out and named in `missing`, for the answer relay to look for again.
    func takeSecrets(
        of claimed: ClaimedRun
    ) throws(StoreError) -> (inputs: JSONObject, answers: [String: JSONValue], missing: [String]) {
        var answers = claimed.answers
        guard !claimed.secretInputs.isEmpty || !claimed.secretAnswers.isEmpty else { return ([:], answers, []) }
        guard let inbox = options.secrets else {
            let what = (claimed.secretInputs.map { "input \($0)" } + claimed.secretAnswers.map { "answer \($0)" }).joined(separator: ", ")
            throw StoreError(.secretsUnavailable, "run \(claimed.runID) has secrets (\(what)) and this worker has no --secrets directory")
        }
        let inputs = claimed.secretInputs.isEmpty ? [:] : try inbox.take(runID: claimed.runID)
        // Every input the store keeps out must be in the file: one left out would run as missing, or as its default.
        let absent = claimed.secretInputs.filter { inputs[$0] == nil }
        if !absent.isEmpty {
            throw StoreError(
                .secretsUnavailable,
                "the secrets file of run \(claimed.runID) lacks the inputs \(absent.joined(separator: ", ")), which the store keeps out (they are secret, "
                    + "or hold a secret's value): whoever queued the run writes them all (Workflow.secretNames(inputs:answers:))")
        }
        var missing: [String] = []
        if !claimed.secretAnswers.isEmpty {
            let given = try inbox.takeIfPresent(runID: claimed.runID, kind: .answers) ?? [:]
            for name in claimed.secretAnswers {
                answers[name] = given[name]
                if given[name] == nil { missing.append(name) }
            }
        }
        return (inputs, answers, missing)
    }
}
