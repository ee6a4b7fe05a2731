import MatterFlow
import MatterFlowJSON
import Synchronization

/// Turns what a run's driver tells it (``RunRecording``) into journal entries: every event and checkpoint, an intent
/// before each hub call (flushed before the hub sees it) and an outcome after.
///
/// The run's idempotency keys and the session its calls are made in are the run machine's, read from each call's
/// ``HubCallContext``; the recorder keeps no count of its own. The driver tells it a call's result before it reports
/// `hubCallFinished`, so the outcome record carries the result.
final class JournalRecorder: RunRecording {
    private struct State {
        /// The key of the call being made: the run makes one hub call at a time.
        /// The key of the call each element is making (`""` for the run's own calls), whose `hubCallFinished`
        /// report comes next in that element's order.
        var currentKeys: [String: String] = [:]
        var results: [String: (result: JSONValue, devices: [String]?)] = [:]
        var onFailure: (@Sendable () -> Void)?
        /// The journal has failed: ``onFailure(_:)``'s handler was told, or is told as soon as it is given.
        var failed = false
        /// The hub's connection was lost during a call: the journal stops there, as if the process had crashed.
        var abandoned = false
        /// The key of the call during which the connection was lost, until the record saying so is written: the one
        /// record after that call's intent.
        var lostCall: String?
        /// The run's terminal record is written: nothing more is.
        var ended = false
        /// An in-doubt call a resumed run makes again first, whose repeat must carry the idempotency key's value
        /// the hub saw.
        var repeating: IntentEntry?
        /// The digest of a secret answer, for the `answered` record that follows.
        var answerDigest: String?
    }

    let writer: JournalWriter
    let runID: String
    let workflow: Workflow
    let structureID: StructureID
    let showSecrets: Bool
    /// The hub the run calls: read for the devices a commission created, and, for a continued run, for whose the
    /// structure's session is.
    let hub: any Hub
    /// Recording a run that recovery continues: the journal already holds its start and its first calls, and
    /// recovery writes its terminal record once it has checked what the run left held.
    let continuing: Bool
    /// Digests of the run's secret inputs, for `runStarted` (so a resume can check a secret given again); their
    /// salt also digests the run's secret answers.
    let secretDigests: SecretDigests?
    /// The simulated home's state directory the run acts on, recorded in `runStarted` (``RunStartedEntry/homeDirectory``).
    let homeDirectory: String?
    /// The hub the run calls over the hub protocol, recorded in `runStarted` (``RunStartedEntry/remoteHub``).
    let remoteHub: RemoteHubIdentity?
    private let state: Mutex<State>

    /// - Parameters:
    ///   - secretDigests: Digests of the secret inputs of a run that starts, or of the run recovery continues
    ///     (whose salt digests its secret answers).
    ///   - repeating: An in-doubt call the resumed run makes again as its first call (``ResumePlan/repeatedCall``).
    init(
        writer: JournalWriter, runID: String, workflow: Workflow, structureID: StructureID, showSecrets: Bool, hub: any Hub,
        continuing: Bool = false, secretDigests: SecretDigests? = nil, repeating: IntentEntry? = nil, homeDirectory: String? = nil,
        remoteHub: RemoteHubIdentity? = nil
    ) {
        self.homeDirectory = homeDirectory
        self.remoteHub = remoteHub
        self.secretDigests = secretDigests
        self.writer = writer
        self.runID = runID
        self.workflow = workflow
        self.structureID = structureID
        self.showSecrets = showSecrets
        self.hub = hub
        self.continuing = continuing
        var initial = State()
        initial.repeating = repeating
        state = Mutex(initial)
    }

    /// What to do when the journal cannot be written any more (the journaled run cancels itself, so that it
    /// releases what it holds rather than carrying on unrecorded).
    /// A journal that failed before the handler was given (a pool's run starts before its handle exists) tells it
    /// at once.
    func onFailure(_ handler: @escaping @Sendable () -> Void) {
        let failed = state.withLock { state -> Bool in
            if state.failed { return true }
            state.onFailure = handler
            return false
        }
        if failed { handler() }
    }

    /// Records a checkpoint. Not flushed by itself: the next side-effect record flushes it with everything before.
    func record(_ checkpoint: RunCheckpoint) {
        write(.checkpoint(checkpoint))
    }

    /// Records one event. A call's intent is recorded when the call is made (``callStarting(_:)``), not when it is
    /// reported.
    func record(_ event: RunEvent) {
        record(event, element: "")
    }

    /// Records the run's `runFinished` with its output (secrets redacted as the run redacts them). A run recovery
    /// continues itself gets its terminal record from recovery, with what recovery adds to it.
    func recordEnd(_ event: RunEvent, output: JSONValue?) {
        guard case .runFinished(let outcome, let error, let holdsSession) = event.kind else { return record(event) }
        guard !continuing else { return }
        write(.runFinished(RunFinishedEntry(outcome: outcome, error: error, output: output, recovered: false, holdsSession: holdsSession)))
        state.withLock { $0.ended = true }
        writer.close()
    }

    /// Records an event of the run (`element` `""`) or of one element of a concurrent map state.
    func record(_ event: RunEvent, element: String) {
        let path = event.workflowPath.joined(separator: "/")
        switch event.kind {
        case .runStarted(let inputs):
            write(.runStarted(RunStartedEntry(
                runID: runID, workflow: workflow.name, version: workflow.version, file: AbsolutePath.of(workflow.file),
                contentHash: workflow.contentHash, structureID: structureID, inputs: inputs, secretsShown: showSecrets,
                pid: JournalFile.processID, format: JournalFrame.formatVersion, secretDigests: secretDigests,
                homeDirectory: homeDirectory, remoteHub: remoteHub)))
        case .hubCallStarted:
            break
        case .hubCallFinished(let stateName, let operation, let attempt, let duration, let error):
            if let error { noteHubLoss(operation: operation, state: stateName, path: path, error: error, time: event.time, element: element) }
            // The driver recorded the call's intent, with its key, before the call was made.
            guard let (key, kept) = state.withLock({ state -> (String, (result: JSONValue, devices: [String]?)?)? in
                guard let key = state.currentKeys.removeValue(forKey: element) else { return nil }
                return (key, state.results.removeValue(forKey: key))
            }) else { return }
            let result: Result<JSONValue, FlowError> = error.map { .failure($0) } ?? .success(kept?.result ?? .null)
            write(.outcome(OutcomeEntry(
                key: key, workflow: path, state: stateName, operation: operation, attempt: attempt,
                durationSeconds: duration.secondsValue, result: result, devices: error == nil ? kept?.devices : nil)))
        case .runFinished:
            recordEnd(event, output: nil)
        case .shown:
            // For the person, not the record: a journal written by this format is read by binaries that know no
            // such record, and its value would only be kept redacted.
            break
        case .stateEntered, .guardChecked, .retryScheduled, .transition, .warning, .waitStarted, .eventReceived,
            .questionAsked, .answered, .answerRejected, .delayStarted, .cancelRequested:
            guard let name = JournalEventEntry.Name(rawValue: event.name) else { return }
            var fields = event.jsonValue.objectValue ?? [:]
            if case .answered = event.kind, let digest = state.withLock({ $0.answerDigest.take() }) {
                fields["digest"] = .string(digest)
            }
            write(.event(JournalEventEntry(
                name: name, workflow: path, state: fields["state"]?.stringValue, clockTime: event.time.secondsValue,
                details: JSONObject(fields.members.filter { !Self.membersNotInDetails.contains($0.key) }))))
        }
    }

    /// The members of an event's JSON form that its record does not keep among its details: the record has them in
    /// members of its own, or not at all (`type` names the record; an event's own `type`, a state's type, is not kept).
    private static let membersNotInDetails: Set<String> = ["event", "runID", "time", "workflow", "state", "type"]

    /// Keeps a salted digest of a secret answer for its `answered` record, so that `recover --resume --answer` can
    /// check an answer given again; nothing when the run shows secrets (the record holds the answer itself), or when
    /// a resumed run's keyed digests cannot be made without their key (``SecretDigests/unavailability``).
    func secretAnswered(_ question: Question, value: JSONValue) {
        guard !showSecrets, let digest = secretDigests?.digest(value) else { return }
        state.withLock { $0.answerDigest = digest }
    }

    /// Records the call's intent, durable before the hub sees the call (awaited without blocking a thread), with the
    /// key and session of its context. An intent that a sink (a run store) cannot make durable refuses the call. A
    /// file journal's failed write cancels the run and refuses the call whose intent it was (unless that call releases
    /// the session); the cancel path's calls still reach the hub, unrecorded.
    ///
    /// A call that works inside the commissioning session (``OperationDescriptor/usesSession``) of a run that
    /// recovery continues is then checked on a ``RecoverableHub``: if the structure's active session is not this
    /// run's, the call is not made (`cancelCommissioning` ends with `released: false`, releasing nothing; the others
    /// fail with `failedPrecondition` / `noActiveSession`), whatever the hub would have done with it. The repeat of
    /// an in-doubt call is refused when it would not carry the idempotency key's value the hub saw.
    func callStarting(_ call: PreparedCall) async -> Result<JSONValue, FlowError>? {
        await callStarting(call, element: "")
    }

    /// Records the intent of a call of the run (`element` `""`) or of one element of a concurrent map state.
    func callStarting(_ call: PreparedCall, element: String) async -> Result<JSONValue, FlowError>? {
        let operation = call.operation
        let key = call.context.idempotencyKey
        state.withLock { $0.currentKeys[element] = key }
        let failedHere = write(.intent(IntentEntry(
            key: key, workflow: call.workflowPath.joined(separator: "/"), state: call.state, operation: operation.name,
            structureID: structureID, attempt: call.attempt, arguments: call.shownArguments, effect: operation.effect,
            acquiresSession: operation.acquiresSession, releasesSession: operation.releasesSession,
            requires: operation.requires, releaseAttemptSuffices: operation.releaseAttemptSuffices,
            idempotencyKey: operation.idempotencyKey.map { .init(argument: $0, value: call.shownArguments[$0] ?? .null) },
            sessionID: call.context.expectedSessionID, guardName: call.guardName)))
        do {
            try await writer.flush()
        } catch {
            failed()
            return .failure(FlowError(
                .hubUnreachable, "\(operation.name) was not called: its intent could not be made durable (\(error.message))"))
        }
        // The call whose intent found the journal failing is not made either (the run is cancelled meanwhile), unless
        // it only releases the session: a cancel path's release goes through, unrecorded, rather than leave the
        // session held. A call that also does work (completeCommissioning commits the devices) is not made: its
        // effect would stand with no record of it. The cancel path's later calls are made, unrecorded, for the same
        // reason.
        if failedHere, !(operation.releasesSession && operation.releaseAttemptSuffices) {
            return .failure(FlowError(
                .hubUnreachable, "\(operation.name) was not called: its intent could not be written to the journal \(writer.path)"))
        }
        if let refusal = checkRepeat(of: operation.name, arguments: call.shownArguments) { return .failure(refusal) }
        if continuing, operation.usesSession,
            let refusal = await foreignSession(on: hub, structure: structureID, expected: call.context.expectedSessionID)
        {
            return operation.name == "cancelCommissioning" ? .success(["released": false]) : .failure(refusal)
        }
        return nil
    }

    /// Keeps the call's result (secret fields redacted) for its outcome record, with the devices a commission
    /// created. A call that failed because the hub's connection was lost leaves its intent in doubt for `recover`,
    /// as a crash during the call would: the journal records nothing more.
    func callEnded(_ call: PreparedCall, value: JSONValue?) async {
        guard let value else {
            if let connected = hub as? any ConnectedHub, connected.connectionLost {
                state.withLock { state in
                    if !state.abandoned { state.lostCall = call.context.idempotencyKey }
                    state.abandoned = true
                }
            }
            return
        }
        var devices: [String]?
        if call.operation.name == "commissionDevice", let recoverable = hub.sessionReader {
            devices = (try? await recoverable.activeSession(structure: structureID))??.pendingDeviceIDs
        }
        let key = call.context.idempotencyKey
        state.withLock { $0.results[key] = (shown(value, of: call), devices) }
    }

    /// Records the result of a call the run stopped waiting for, which the hub still carried out (secret fields
    /// redacted), unless the run's journal has already ended.
    func lateResult(_ call: PreparedCall, value: JSONValue) {
        guard !state.withLock({ $0.ended }) else { return }
        write(.lateResult(LateResultEntry(
            key: call.context.idempotencyKey, operation: call.operation.name, result: shown(value, of: call), devices: nil)))
    }

    /// A call's result as the journal keeps it: secrets redacted (``PreparedCall/shownResult(_:)``) unless the run
    /// shows secrets.
    private func shown(_ value: JSONValue, of call: PreparedCall) -> JSONValue {
        showSecrets ? value : call.shownResult(value)
    }

    /// Why a session call of a continued run must not be made: the hub shows an active session that is not this
    /// run's (neither the session it opened nor one opened under its run ID). Nil when the hub cannot say.
    private func foreignSession(on hub: any Hub, structure: StructureID, expected: String?) async -> FlowError? {
        guard let recoverable = hub.sessionReader,
            let active = try? await recoverable.activeSession(structure: structure)
        else { return nil }
        if active.belongs(to: runID, openedIDs: expected.map { [$0] } ?? []) { return nil }
        let mine = expected.map { "session \"\($0)\" of run \(runID) is no longer active" } ?? "run \(runID) holds no session"
        return FlowError(
            .noActiveSession,
            "\(mine) on structure \"\(structure)\": the active session \"\(active.sessionID)\" is "
                + "\(active.owner.map { "run \($0)'s" } ?? "another client's"); recovery does not act in it")
    }

    /// Why the resumed run's first call, the repeat of an in-doubt call, must not be made: it would not carry the
    /// idempotency key's value the hub saw, so the hub could not recognise it as the same call. Nil otherwise; the
    /// check applies to the first call only.
    private func checkRepeat(of operation: String, arguments: JSONObject) -> FlowError? {
        guard let repeated = state.withLock({ state -> IntentEntry? in
            defer { state.repeating = nil }
            return state.repeating
        }), repeated.operation == operation, let key = repeated.idempotencyKey else { return nil }
        guard arguments[key.argument] != key.value else { return nil }
        return FlowError(
            .invalidArgumentValue,
            "\(operation) is made again after the interruption relying on its idempotency key, but \"\(key.argument)\" is not "
                + "the value the hub saw in call \(repeated.key), so the hub could not recognise the repeat; the call was not made")
    }

    /// When the hub's connection was lost during this call, writes the one record that follows its intent: a
    /// `warning` (with `hubConnectionLost: true` and the `reason`) saying why the journal stops there, so that
    /// whoever reads it later (`history`, `recover`) learns that the hub, not the process, was lost.
    /// Written for the call whose failure found the connection lost (not another element's call failing meanwhile),
    /// with that call's error.
    private func noteHubLoss(operation: String, state stateName: String, path: String, error: FlowError, time: Duration, element: String) {
        guard state.withLock({ state in
            guard let lost = state.lostCall, state.currentKeys[element] == lost else { return false }
            state.lostCall = nil
            return true
        }) else { return }
        let message = "the hub's connection was lost during \(operation) (\(error.message)); the journal stops at that call, "
            + "whose outcome only the hub can tell"
        // Best effort: a journal that cannot take it reads as interrupted all the same.
        _ = try? writer.append(.event(JournalEventEntry(
            name: .warning, workflow: path, state: stateName, clockTime: time.secondsValue,
            details: ["message": .string(message), "hubConnectionLost": true, "reason": .string(error.message)])))
    }

    /// Writes an entry; returns whether the journal failed at this write (not at an earlier one).
    @discardableResult
    private func write(_ entry: JournalEntry) -> Bool {
        guard !state.withLock({ $0.abandoned }) else { return false }
        do {
            try writer.append(entry)
            return false
        } catch {
            return failed()
        }
    }

    /// The journal can no longer be written: tells the run, once. Returns whether this is the first failure.
    @discardableResult
    private func failed() -> Bool {
        let (first, handler) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard !state.failed else { return (false, nil) }
            state.failed = true
            defer { state.onFailure = nil }
            return (true, state.onFailure)
        }
        handler?()
        return first
    }

    func recording(forElement element: String) -> any RunRecording {
        ElementRecorder(journal: self, element: element)
    }
}

/// One element of a concurrent map state as the journal records it: its events and calls paired per element, in the
/// run's one journal.
private struct ElementRecorder: RunRecording {
    let journal: JournalRecorder
    let element: String

    func record(_ event: RunEvent) { journal.record(event, element: element) }
    func record(_ checkpoint: RunCheckpoint) { journal.record(checkpoint) }
    func callStarting(_ call: PreparedCall) async -> Result<JSONValue, FlowError>? { await journal.callStarting(call, element: element) }
    func callEnded(_ call: PreparedCall, value: JSONValue?) async { await journal.callEnded(call, value: value) }
    func lateResult(_ call: PreparedCall, value: JSONValue) { journal.lateResult(call, value: value) }
    func recording(forElement element: String) -> any RunRecording { journal.recording(forElement: element) }
}
