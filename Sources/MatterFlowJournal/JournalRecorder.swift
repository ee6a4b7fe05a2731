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
    init(
        writer: JournalWriter, runID: String, workflow: Workflow, structureID: StructureID, showSecrets: Bool,
        catalog: OperationCatalog, continuing: Bool = false, callsBefore: Int = 0, sessionID: String? = nil,
        secretDigests: SecretDigests? = nil
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
        state = Mutex(initial)
    }

    /// How a continued run ended (see ``continuing``).
    var finished: (outcome: RunResult.Outcome, error: FlowError?)? { state.withLock { $0.finished } }

    /// Records a checkpoint. Not flushed by itself: the next side-effect record flushes it with everything before.
    func record(_ checkpoint: RunCheckpoint) {
        write(JournalRecord.Kind.checkpoint, checkpoint.jsonValue.objectValue ?? [:], sync: false)
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
            var fields: JSONObject = [
                "runID": .string(runID), "workflow": .string(workflow.name), "version": .int(workflow.version),
                "file": .string(JournalFile.absolute(workflow.file)), "contentHash": .string(workflow.contentHash),
                "structureID": .string(structureID), "inputs": .object(inputs), "secretsShown": .bool(showSecrets),
                "pid": .int(JournalFile.processID), "format": .int(JournalFrame.formatVersion),
            ]
            if let secretDigests { fields["secretDigests"] = secretDigests.jsonValue }
            write(JournalRecord.Kind.runStarted, fields, sync: true)
        case .hubCallStarted(let stateName, let operation, let attempt, let arguments):
            let key = state.withLock { state -> String in
                state.calls += 1
                let key = "\(runID)/\(state.calls)"
                state.currentKey = key
                return key
            }
            let descriptor = catalog[operation]
            write(JournalRecord.Kind.intent, [
                "key": .string(key), "workflow": .string(path), "state": .string(stateName),
                "operation": .string(operation), "structureID": .string(structureID), "attempt": .int(attempt),
                "arguments": .object(arguments),
                "effect": .string(descriptor?.effect.rawValue ?? "unknown"),
                "acquiresSession": .bool(descriptor?.acquiresSession ?? false),
                "releasesSession": .bool(descriptor?.releasesSession ?? false),
            ], sync: true)
        case .hubCallFinished(let stateName, let operation, let attempt, let duration, let error):
            let (key, result) = state.withLock { state -> (String, (result: JSONValue, devices: [String]?)?) in
                let key = state.currentKey ?? "\(runID)/?"
                state.finishedKeys.insert(key)
                return (key, state.results.removeValue(forKey: key))
            }
            var fields: JSONObject = [
                "key": .string(key), "workflow": .string(path), "state": .string(stateName),
                "operation": .string(operation), "attempt": .int(attempt),
                "durationSeconds": .double(Self.seconds(duration)), "succeeded": .bool(error == nil),
            ]
            if let error { fields["error"] = Self.json(error) }
            if error == nil, let result {
                fields["result"] = result.result
                if let devices = result.devices { fields["devices"] = .array(devices.map(JSONValue.string)) }
            }
            write(JournalRecord.Kind.outcome, fields, sync: true)
        case .runFinished(let outcome, let error) where continuing:
            state.withLock { $0.finished = (outcome, error) }
        case .runFinished(let outcome, let error):
            write(JournalRecord.Kind.runFinished, [
                "outcome": .string(outcome.rawValue), "error": error.map(Self.json) ?? .null,
            ], sync: true)
            state.withLock { $0.ended = true }
            writer.close()
        case .stateEntered, .guardChecked, .retryScheduled, .transition, .warning, .waitStarted, .eventReceived,
            .cancelRequested:
            var fields = event.jsonValue.objectValue ?? [:]
            let name = fields["event"]?.stringValue ?? event.name
            fields = JSONObject(fields.members.filter { !["event", "runID", "time"].contains($0.key) })
            fields["clockTime"] = .double(Self.seconds(event.time))
            write(name, fields, sync: false)
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
        var fields: JSONObject = ["key": .string(key), "operation": .string(operation.name), "result": shown]
        if let devices { fields["devices"] = .array(devices.map(JSONValue.string)) }
        write(JournalRecord.Kind.lateResult, fields, sync: true)
    }

    private func write(_ type: String, _ fields: JSONObject, sync: Bool) {
        guard !state.withLock({ $0.abandoned }) else { return }
        do {
            try writer.append(type, fields, sync: sync)
        } catch {
            let handler = state.withLock { state -> (@Sendable () -> Void)? in
                defer { state.onFailure = nil }
                return state.onFailure
            }
            handler?()
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        duration.secondsValue
    }

    static func json(_ error: FlowError) -> JSONValue {
        [
            "code": .string(error.code.rawValue), "cause": .string(error.cause.rawValue),
            "message": .string(error.message), "state": error.state.map(JSONValue.string) ?? .null,
        ]
    }
}
