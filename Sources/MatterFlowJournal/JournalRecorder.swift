import MatterFlow
import MatterFlowJSON
import Synchronization

/// Turns one run's events into journal records, and wraps the operation catalog so every hub call carries its
/// ``HubCallContext`` and its result reaches the journal.
///
/// The engine emits `hubCallStarted` on the run's task before the call begins, and the observer runs
/// synchronously, so the intent record is on disk before the hub sees the call; the outcome record follows
/// `hubCallFinished`. The engine calls one operation at a time per run, so the call a result belongs to is the
/// one whose intent was recorded last.
final class JournalRecorder: Sendable {
    private struct State {
        var calls = 0
        var currentKey: String?
        var results: [String: (result: JSONValue, devices: [String]?)] = [:]
        var finishedKeys: Set<String> = []
        var ended = false
        var onFailure: (@Sendable () -> Void)?
        /// How the run ended, when recovery continues it (recovery writes the terminal record itself).
        var finished: (outcome: RunResult.Outcome, error: FlowError?)?
        /// The commissioning session the run opened last: the session its later session calls are made in.
        var sessionID: String?
        /// The hub's connection was lost during a call: the journal stops there, as if the process had crashed.
        var abandoned = false
        /// An in-doubt call a resumed run makes again first, whose repeat must carry the idempotency key's value
        /// the hub saw.
        var repeating: IntentEntry?
    }

    let writer: JournalWriter
    let runID: String
    let workflow: Workflow
    let structureID: StructureID
    let showSecrets: Bool
    /// Recording a run that recovery continues: the journal already holds its start and its first calls, and
    /// recovery writes its terminal record once it has checked what the run left held.
    let continuing: Bool
    /// Digests of the run's secret inputs, for `runStarted` (so a resume can check a secret given again).
    let secretDigests: SecretDigests?
    private let catalog: OperationCatalog
    private let state: Mutex<State>

    /// - Parameters:
    ///   - callsBefore: Calls the journal already holds for the run; keys continue after them.
    ///   - sessionID: The commissioning session the journal shows the run opened, when recovery continues it.
    ///   - secretDigests: Digests of the secret inputs of a run that starts.
    ///   - repeating: An in-doubt call the resumed run makes again as its first call (``ResumePlan/repeatedCall``).
    init(
        writer: JournalWriter, runID: String, workflow: Workflow, structureID: StructureID, showSecrets: Bool,
        catalog: OperationCatalog, continuing: Bool = false, callsBefore: Int = 0, sessionID: String? = nil,
        secretDigests: SecretDigests? = nil, repeating: IntentEntry? = nil
    ) {
        self.secretDigests = secretDigests
        self.writer = writer
        self.runID = runID
        self.workflow = workflow
        self.structureID = structureID
        self.showSecrets = showSecrets
        self.catalog = catalog
        self.continuing = continuing
        var initial = State()
        initial.calls = callsBefore
        initial.sessionID = sessionID
        initial.repeating = repeating
        state = Mutex(initial)
    }

    /// How a continued run ended (see ``continuing``).
    var finished: (outcome: RunResult.Outcome, error: FlowError?)? { state.withLock { $0.finished } }

    /// Records a checkpoint. Not flushed by itself: the next side-effect record flushes it with everything before.
    func record(_ checkpoint: RunCheckpoint) {
        write(.checkpoint(checkpoint))
    }

    /// What to do when the journal cannot be written any more (the journaled run cancels itself, so that it
    /// releases what it holds rather than carrying on unrecorded).
    func onFailure(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.onFailure = handler }
    }

    /// Records one event.
    func record(_ event: RunEvent) {
        let path = event.workflowPath.joined(separator: "/")
        switch event.kind {
        case .runStarted(let inputs):
            write(.runStarted(RunStartedEntry(
                runID: runID, workflow: workflow.name, version: workflow.version, file: JournalFile.absolute(workflow.file),
                contentHash: workflow.contentHash, structureID: structureID, inputs: inputs, secretsShown: showSecrets,
                pid: JournalFile.processID, format: JournalFrame.formatVersion, secretDigests: secretDigests)))
        case .hubCallStarted(let stateName, let operation, let attempt, let arguments):
            let (key, sessionID) = state.withLock { state -> (String, String?) in
                state.calls += 1
                let key = "\(runID)/\(state.calls)"
                state.currentKey = key
                return (key, state.sessionID)
            }
            let descriptor = catalog[operation]
            write(.intent(IntentEntry(
                key: key, workflow: path, state: stateName, operation: operation, structureID: structureID,
                attempt: attempt, arguments: arguments, effect: descriptor?.effect,
                acquiresSession: descriptor?.acquiresSession ?? false, releasesSession: descriptor?.releasesSession ?? false,
                requires: descriptor?.requires, releaseAttemptSuffices: descriptor?.releaseAttemptSuffices,
                idempotencyKey: descriptor?.idempotencyKey.map { .init(argument: $0, value: arguments[$0] ?? .null) },
                sessionID: descriptor?.usesSession == true ? sessionID : nil)))
        case .hubCallFinished(let stateName, let operation, let attempt, let duration, let error):
            let (key, kept) = state.withLock { state -> (String, (result: JSONValue, devices: [String]?)?) in
                let key = state.currentKey ?? "\(runID)/?"
                state.finishedKeys.insert(key)
                return (key, state.results.removeValue(forKey: key))
            }
            let result: Result<JSONValue, FlowError> = error.map { .failure($0) } ?? .success(kept?.result ?? .null)
            write(.outcome(OutcomeEntry(
                key: key, workflow: path, state: stateName, operation: operation, attempt: attempt,
                durationSeconds: duration.secondsValue, result: result, devices: error == nil ? kept?.devices : nil)))
        case .runFinished(let outcome, let error) where continuing:
            state.withLock { $0.finished = (outcome, error) }
        case .runFinished(let outcome, let error):
            write(.runFinished(RunFinishedEntry(outcome: outcome, error: error, output: nil, recovered: false)))
            state.withLock { $0.ended = true }
            writer.close()
        case .stateEntered, .guardChecked, .retryScheduled, .transition, .warning, .waitStarted, .eventReceived,
            .cancelRequested:
            guard let name = JournalEventEntry.Name(rawValue: event.name) else { return }
            // `type` names the record; an event's own `type` member (a state's type) is not kept.
            let own: Set<String> = ["event", "runID", "time", "workflow", "state", "type"]
            let fields = event.jsonValue.objectValue ?? [:]
            write(.event(JournalEventEntry(
                name: name, workflow: path, state: fields["state"]?.stringValue, clockTime: event.time.secondsValue,
                details: JSONObject(fields.members.filter { !own.contains($0.key) }))))
        }
    }

    /// The catalog with every operation wrapped: the call runs with its ``HubCallContext``, and its result (secret
    /// fields redacted) is kept for the outcome record, or recorded as a late result when the outcome is already
    /// written.
    ///
    /// A call that works inside the commissioning session (``OperationDescriptor/usesSession``) carries the ID of the session the
    /// run opened, so the hub can refuse it in another client's session. When recovery continues a run, such a
    /// call is also checked here first on a ``RecoverableHub``: if the structure's active session is not this
    /// run's, the call is not made (`cancelCommissioning` returns false, releasing nothing; the others fail with
    /// `failedPrecondition` / `noActiveSession`), whatever the hub would have done with it.
    func wrapping(_ catalog: OperationCatalog) -> OperationCatalog {
        let operations = catalog.operations.map { original in
            original.invoking { [self] hub, structure, arguments in
                if let refusal = checkRepeat(of: original.name, arguments: arguments) { throw refusal }
                let (key, sessionID) = state.withLock { ($0.currentKey, $0.sessionID) }
                let callKey = key ?? "\(runID)/?"
                let expected = original.usesSession ? sessionID : nil
                if continuing, original.usesSession, let refusal = await foreignSession(on: hub, structure: structure, expected: expected) {
                    if original.name == "cancelCommissioning" {
                        keep(["released": false], devices: nil, for: callKey, operation: original)
                        return ["released": false]
                    }
                    throw refusal
                }
                let context = HubCallContext(runID: runID, idempotencyKey: callKey, expectedSessionID: expected)
                let value: JSONValue
                do {
                    value = try await HubCallContext.$current.withValue(context) {
                        try await original.call(hub: hub, structure: structure, arguments: arguments)
                    }
                } catch {
                    // The call's outcome is unknown and no later call can reach the hub: leave the intent in doubt
                    // for `recover`, exactly as a crash during the call would.
                    if let connected = hub as? any ConnectedHub, connected.connectionLost {
                        state.withLock { $0.abandoned = true }
                    }
                    throw error
                }
                if original.acquiresSession, let opened = value["sessionID"]?.stringValue {
                    state.withLock { $0.sessionID = opened }
                }
                var devices: [String]?
                if original.name == "commissionDevice", let recoverable = hub as? any RecoverableHub {
                    devices = (try? await recoverable.activeSession(structure: structure))??.pendingDeviceIDs
                }
                keep(value, devices: devices, for: callKey, operation: original)
                return value
            }
        }
        return OperationCatalog(operations, events: catalog.events)
    }

    /// Why a session call of a continued run must not be made: the hub shows an active session that is not this
    /// run's (neither the session it opened nor one opened under its run ID). Nil when the hub cannot say.
    private func foreignSession(on hub: any Hub, structure: StructureID, expected: String?) async -> FlowError? {
        guard let recoverable = hub as? any RecoverableHub,
            let active = try? await recoverable.activeSession(structure: structure)
        else { return nil }
        if active.sessionID == expected || (expected == nil && active.owner == runID) { return nil }
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

    private func keep(_ value: JSONValue, devices: [String]?, for key: String, operation: OperationDescriptor) {
        var shown = value
        if !showSecrets, var object = value.objectValue {
            for field in operation.secretResultFields where object[field] != nil { object[field] = .string(RunOptions.redacted) }
            shown = .object(object)
        }
        let late = state.withLock { state -> Bool in
            if state.finishedKeys.contains(key) { return !state.ended }
            state.results[key] = (shown, devices)
            return false
        }
        guard late else { return }
        write(.lateResult(LateResultEntry(key: key, operation: operation.name, result: shown, devices: devices)))
    }

    private func write(_ entry: JournalEntry) {
        guard !state.withLock({ $0.abandoned }) else { return }
        do {
            try writer.append(entry)
        } catch {
            let handler = state.withLock { state -> (@Sendable () -> Void)? in
                defer { state.onFailure = nil }
                return state.onFailure
            }
            handler?()
        }
    }
}
