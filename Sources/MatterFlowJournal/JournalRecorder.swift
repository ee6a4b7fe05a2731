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
    }

    let writer: JournalWriter
    let runID: String
    let workflow: Workflow
    let structureID: StructureID
    let showSecrets: Bool
    /// Recording a run that recovery continues: the journal already holds its start and its first calls, and
    /// recovery writes its terminal record once it has checked what the run left held.
    let continuing: Bool
    private let catalog: OperationCatalog
    private let state: Mutex<State>

    /// - Parameter callsBefore: Calls the journal already holds for the run; keys continue after them.
    init(
        writer: JournalWriter, runID: String, workflow: Workflow, structureID: StructureID, showSecrets: Bool,
        catalog: OperationCatalog, continuing: Bool = false, callsBefore: Int = 0
    ) {
        self.writer = writer
        self.runID = runID
        self.workflow = workflow
        self.structureID = structureID
        self.showSecrets = showSecrets
        self.catalog = catalog
        self.continuing = continuing
        var initial = State()
        initial.calls = callsBefore
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
            write(JournalRecord.Kind.runStarted, [
                "runID": .string(runID), "workflow": .string(workflow.name), "version": .int(workflow.version),
                "file": .string(JournalFile.absolute(workflow.file)), "contentHash": .string(workflow.contentHash),
                "structureID": .string(structureID), "inputs": .object(inputs), "secretsShown": .bool(showSecrets),
                "pid": .int(JournalFile.processID), "format": .int(JournalFrame.formatVersion),
            ], sync: true)
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
                "operation": .string(operation), "attempt": .int(attempt), "arguments": .object(arguments),
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
    func wrapping(_ catalog: OperationCatalog) -> OperationCatalog {
        let operations = catalog.operations.map { original in
            OperationDescriptor(
                name: original.name, summary: original.summary, arguments: original.arguments, result: original.result,
                errors: original.errors, defaultTimeoutSeconds: original.defaultTimeoutSeconds, effect: original.effect,
                acquiresSession: original.acquiresSession, releasesSession: original.releasesSession,
                secretResultFields: original.secretResultFields, argumentWarnings: original.argumentWarnings
            ) { [self] hub, structure, arguments in
                let key = state.withLock { $0.currentKey } ?? "\(runID)/?"
                let context = HubCallContext(runID: runID, idempotencyKey: key)
                let value = try await HubCallContext.$current.withValue(context) {
                    try await original.call(hub: hub, structure: structure, arguments: arguments)
                }
                var devices: [String]?
                if original.name == "commissionDevice", let recoverable = hub as? any RecoverableHub {
                    devices = (try? await recoverable.activeSession(structure: structure))??.pendingDeviceIDs
                }
                keep(value, devices: devices, for: key, operation: original)
                return value
            }
        }
        return OperationCatalog(operations, events: catalog.events)
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
