import MatterFlow
import MatterFlowJSON

/// Turns ``JournalEntry`` values into record payloads and back: the only place that knows each record type's
/// members (documented in `docs/journal.md`).
///
/// Decoding checks every member a reader relies on and fails with a ``JournalError`` `malformedRecord` that names
/// the file, the record's sequence number and byte offset, the member and what to do; it never substitutes a
/// default for a member that is missing or of the wrong type. Members that older journals lack are optional in the
/// entry (nil), never invented.
enum JournalEntryCodec {
    /// The record's members for `entry`, without `seq`, `type` and `wallTime` (the writer adds those).
    static func fields(of entry: JournalEntry) -> JSONObject {
        switch entry {
        case .runStarted(let started):
            var fields: JSONObject = [
                "runID": .string(started.runID), "workflow": .string(started.workflow), "version": .int(started.version),
                "file": .string(started.file), "contentHash": .string(started.contentHash),
                "structureID": .string(started.structureID), "inputs": .object(started.inputs),
                "secretsShown": .bool(started.secretsShown), "pid": .int(started.pid), "format": .int(started.format),
            ]
            if let home = started.homeDirectory { fields["homeDirectory"] = .string(home) }
            if let hub = started.remoteHub {
                fields["hubEndpoint"] = .string(hub.endpoint)
                if let name = hub.name { fields["hubName"] = .string(name) }
                if let instance = hub.instance { fields["hubInstance"] = .string(instance) }
            }
            if let digests = started.secretDigests {
                var inputs = JSONObject()
                for name in digests.inputs.keys.sorted() { inputs[name] = digests.inputs[name].map(JSONValue.string) }
                switch digests.scheme {
                case .keyed(let keyID):
                    fields["secretDigests"] = [
                        "salt": .string(digests.salt), "scheme": .string(Self.keyedScheme), "key": .string(keyID), "inputs": .object(inputs),
                    ]
                case .stretched:
                    fields["secretDigests"] = ["salt": .string(digests.salt), "rounds": .int(SecretDigests.rounds), "inputs": .object(inputs)]
                }
            }
            return fields
        case .checkpoint(let checkpoint):
            return checkpoint.jsonValue.objectValue ?? [:]
        case .intent(let intent):
            var fields: JSONObject = [
                "key": .string(intent.key), "workflow": .string(intent.workflow), "state": .string(intent.state),
                "operation": .string(intent.operation), "structureID": .string(intent.structureID),
                "attempt": .int(intent.attempt), "arguments": .object(intent.arguments),
                "effect": .string(intent.effect?.rawValue ?? "unknown"), "acquiresSession": .bool(intent.acquiresSession),
                "releasesSession": .bool(intent.releasesSession),
            ]
            if let requires = intent.requires {
                fields["requires"] = .array(requires.map { ["scope": .string($0.scope.rawValue), "anyOf": strings($0.operations)] })
            }
            if let suffices = intent.releaseAttemptSuffices { fields["releaseAttemptSuffices"] = .bool(suffices) }
            if let key = intent.idempotencyKey { fields["idempotencyKey"] = ["argument": .string(key.argument), "value": key.value] }
            if let sessionID = intent.sessionID { fields["sessionID"] = .string(sessionID) }
            if let guardName = intent.guardName { fields["guard"] = .string(guardName) }
            return fields
        case .outcome(let outcome):
            var fields: JSONObject = [
                "key": .string(outcome.key), "workflow": .string(outcome.workflow), "state": .string(outcome.state),
                "operation": .string(outcome.operation), "attempt": .int(outcome.attempt),
            ]
            if let duration = outcome.durationSeconds { fields["durationSeconds"] = .double(duration) }
            fields["succeeded"] = .bool(outcome.succeeded)
            switch outcome.result {
            case .success(let value):
                fields["result"] = value
                if let devices = outcome.devices { fields["devices"] = strings(devices) }
            case .failure(let error):
                fields["error"] = json(error)
            }
            return fields
        case .lateResult(let late):
            var fields: JSONObject = ["key": .string(late.key), "operation": .string(late.operation), "result": late.result]
            if let devices = late.devices { fields["devices"] = strings(devices) }
            return fields
        case .runFinished(let finished):
            var fields: JSONObject = ["outcome": .string(finished.outcome.rawValue), "error": json(finished.error)]
            if let holdsSession = finished.holdsSession { fields["holdsSession"] = .bool(holdsSession) }
            if let output = finished.output {
                fields["output"] = output
            } else if finished.recovered {
                fields["output"] = .null
            }
            if finished.recovered { fields["recovered"] = true }
            return fields
        case .event(let event):
            var fields: JSONObject = ["workflow": .string(event.workflow)]
            if let state = event.state { fields["state"] = .string(state) }
            for member in event.details.members { fields[member.key] = member.value }
            fields["clockTime"] = .double(event.clockTime)
            return fields
        case .recoveryStarted(let started):
            return [
                "mode": .string(started.mode.rawValue), "pid": .int(started.pid), "lastSequence": .int(started.lastSequence),
                "interruptedIn": started.interruptedIn.map(JSONValue.string) ?? .null,
            ]
        case .tornTailDiscarded(let torn):
            return ["offset": .int(torn.offset), "length": .int(torn.length), "reason": .string(torn.reason)]
        case .resolution(let entry):
            let resolution = entry.resolution
            return [
                "key": .string(resolution.key), "operation": .string(resolution.operation),
                "verdict": .string(resolution.verdict.rawValue), "evidence": .string(resolution.evidence),
                "devices": strings(resolution.devices), "result": resolution.result ?? .null,
                "state": .string(entry.state), "workflow": .string(entry.workflow),
            ]
        case .recoveryDeferred(let reason):
            return ["reason": .string(reason)]
        case .recoveryFinished(let finished):
            return [
                "outcome": .string(finished.outcome.rawValue), "resumed": .bool(finished.resumed),
                "releasedSession": .bool(finished.releasedSession), "resolutions": .int(finished.resolutions),
            ]
        }
    }

    /// A run error as records keep it.
    static func json(_ error: FlowError?) -> JSONValue {
        error?.jsonValue ?? .null
    }

    private static func strings(_ values: [String]) -> JSONValue { .array(values.map(JSONValue.string)) }

    // MARK: - Decoding

    /// Decodes one record of the journal at `path`.
    /// - Throws: ``JournalError`` `malformedRecord`, naming the record, the member and what to do.
    static func decode(_ record: JournalRecord, path: String) throws(JournalError) -> JournalEntryRecord {
        let fields = JournalFields(record: record, path: path)
        let sequence = try fields.int("seq", in: 1...Int.max)
        let wallTime = try fields.double("wallTime")
        let type = try fields.string("type")
        let entry: JournalEntry
        if let name = JournalEventEntry.Name(rawValue: type) {
            entry = .event(try event(name, fields))
        } else if let kind = JournalEntry.Kind(rawValue: type) {
            entry = try decode(kind, fields)
        } else {
            throw fields.failure(
                "type", "a record type this MatterFlow knows (\(JournalEntry.Kind.allCases.map(\.rawValue).joined(separator: ", ")) or a run event)",
                got: "got \(JournalFields.shown(type))")
        }
        return JournalEntryRecord(sequence: sequence, wallTime: wallTime, entry: entry)
    }

    private static func decode(_ kind: JournalEntry.Kind, _ fields: JournalFields) throws(JournalError) -> JournalEntry {
        switch kind {
        case .runStarted:
            return .runStarted(
                RunStartedEntry(
                    runID: try fields.string("runID"), workflow: try fields.string("workflow"),
                    version: try fields.int("version", in: 0...Int.max), file: try fields.string("file"),
                    contentHash: try fields.string("contentHash"), structureID: try fields.string("structureID"),
                    inputs: try fields.object("inputs"), secretsShown: try fields.bool("secretsShown"),
                    pid: try fields.int("pid", in: 0...Int.max), format: try fields.int("format", in: 1...Int.max),
                    secretDigests: try digests(fields), homeDirectory: try fields.optionalString("homeDirectory"),
                    remoteHub: try fields.optionalString("hubEndpoint").map { endpoint throws(JournalError) in
                        RemoteHubIdentity(
                            endpoint: endpoint, name: try fields.optionalString("hubName"), instance: try fields.optionalString("hubInstance"))
                    }))
        case .checkpoint:
            return .checkpoint(
                RunCheckpoint(
                    workflowPath: try fields.string("workflow").split(separator: "/").map(String.init),
                    state: try fields.string("state"), inputs: try fields.object("inputs"), variables: try fields.object("vars"),
                    error: try fields.optionalFlowError("error"), cancelledIn: try fields.optionalString("cancelledIn"),
                    shielded: try fields.bool("shielded"), map: try fields.optionalMapCheckpoint("map"),
                    element: try fields.optionalString("element"),
                    repeatIteration: try fields.optionalRepeatIteration("repeat"), retry: try fields.optionalStepRetries("retry")))
        case .intent:
            return .intent(try intent(fields))
        case .outcome:
            let result: Result<JSONValue, FlowError>
            if try fields.bool("succeeded") {
                result = .success(try fields.value("result"))
            } else {
                guard let failure = try fields.optionalFlowError("error") else { throw fields.failure("error", "an error object", got: "null") }
                result = .failure(failure)
            }
            return .outcome(
                OutcomeEntry(
                    key: try fields.string("key"), workflow: try fields.string("workflow"), state: try fields.string("state"),
                    operation: try fields.string("operation"), attempt: try fields.int("attempt", in: 1...Int.max),
                    durationSeconds: try fields.optionalDouble("durationSeconds"), result: result,
                    devices: try fields.optionalStrings("devices")))
        case .lateResult:
            return .lateResult(
                LateResultEntry(
                    key: try fields.string("key"), operation: try fields.string("operation"), result: try fields.value("result"),
                    devices: try fields.optionalStrings("devices")))
        case .runFinished:
            return .runFinished(
                RunFinishedEntry(
                    outcome: try fields.enumeration("outcome", RunResult.Outcome.self, ["succeeded", "failed", "cancelled"]),
                    error: try fields.optionalFlowError("error"), output: try fields.optionalValue("output"),
                    recovered: try fields.optionalBool("recovered") ?? false, holdsSession: try fields.optionalBool("holdsSession")))
        case .recoveryStarted:
            return .recoveryStarted(
                RecoveryStartedEntry(
                    mode: try fields.enumeration("mode", RecoveryStartedEntry.Mode.self, ["cancel", "resume"]),
                    pid: try fields.int("pid", in: 0...Int.max), lastSequence: try fields.int("lastSequence", in: 0...Int.max),
                    interruptedIn: try fields.optionalString("interruptedIn")))
        case .tornTailDiscarded:
            return .tornTailDiscarded(
                JournalContents.TornTail(
                    offset: try fields.int("offset", in: 0...Int.max), length: try fields.int("length", in: 0...Int.max),
                    reason: try fields.string("reason")))
        case .resolution:
            let resolution = Resolution(
                key: try fields.string("key"), operation: try fields.string("operation"),
                verdict: try fields.enumeration("verdict", Resolution.Verdict.self, ["applied", "notApplied", "unknown", "noEffect"]),
                evidence: try fields.string("evidence"), devices: try fields.strings("devices"),
                result: try fields.optionalValue("result"))
            return .resolution(ResolutionEntry(resolution: resolution, workflow: try fields.string("workflow"), state: try fields.string("state")))
        case .recoveryDeferred:
            return .recoveryDeferred(reason: try fields.string("reason"))
        case .recoveryFinished:
            return .recoveryFinished(
                RecoveryFinishedEntry(
                    outcome: try fields.enumeration("outcome", RunResult.Outcome.self, ["succeeded", "failed", "cancelled"]),
                    resumed: try fields.bool("resumed"), releasedSession: try fields.bool("releasedSession"),
                    resolutions: try fields.int("resolutions", in: 0...Int.max)))
        }
    }

    private static func intent(_ fields: JournalFields) throws(JournalError) -> IntentEntry {
        // `unknown` is what a run records for an operation its catalog did not have.
        let effect: OperationDescriptor.Effect? =
            try fields.string("effect") == "unknown"
            ? nil : try fields.enumeration("effect", OperationDescriptor.Effect.self, ["read", "idempotentWrite", "nonIdempotentWrite"])
        var requires: [OrderRequirement]?
        if let elements = try fields.optionalArray("requires") {
            var decoded: [OrderRequirement] = []
            for index in elements.indices {
                let element = try fields.element("requires", index)
                decoded.append(
                    OrderRequirement(
                        try element.enumeration("scope", OrderRequirement.Scope.self, ["session", "supportCheck"]),
                        try element.strings("anyOf")))
            }
            requires = decoded
        }
        var idempotencyKey: IntentEntry.IdempotencyKey?
        if try fields.optionalValue("idempotencyKey") != nil {
            let key = try fields.nested("idempotencyKey")
            idempotencyKey = IntentEntry.IdempotencyKey(argument: try key.string("argument"), value: try key.value("value"))
        }
        return IntentEntry(
            key: try fields.string("key"), workflow: try fields.string("workflow"), state: try fields.string("state"),
            operation: try fields.string("operation"), structureID: try fields.string("structureID"),
            attempt: try fields.int("attempt", in: 1...Int.max), arguments: try fields.object("arguments"),
            effect: effect,
            acquiresSession: try fields.bool("acquiresSession"), releasesSession: try fields.bool("releasesSession"),
            requires: requires, releaseAttemptSuffices: try fields.optionalBool("releaseAttemptSuffices"),
            idempotencyKey: idempotencyKey, sessionID: try fields.optionalString("sessionID"),
            guardName: try fields.optionalString("guard"))
    }

    private static func event(_ name: JournalEventEntry.Name, _ fields: JournalFields) throws(JournalError) -> JournalEventEntry {
        let workflow = try fields.string("workflow")
        let state = name == .transitionTaken ? nil : try fields.string("state")
        let clockTime = try fields.double("clockTime")
        let own: Set<String> = ["seq", "type", "wallTime", "workflow", "state", "clockTime"]
        let details = JSONObject(fields.object.members.filter { !own.contains($0.key) })
        return JournalEventEntry(name: name, workflow: workflow, state: state, clockTime: clockTime, details: details)
    }

    /// A run error member: null, or an object with `code`, `cause`, `message` and `state`.
    /// The `scheme` of keyed digests (``SecretDigests/Scheme/keyed(keyID:)``); stretched ones have `rounds` instead.
    static let keyedScheme = "hmac-sha256"

    private static func digests(_ fields: JournalFields) throws(JournalError) -> SecretDigests? {
        guard try fields.optionalValue("secretDigests") != nil else { return nil }
        let object = try fields.nested("secretDigests")
        let scheme: SecretDigests.Scheme
        if let name = try object.optionalString("scheme") {
            guard name == keyedScheme else {
                throw object.failure("scheme", "\"\(keyedScheme)\"", got: "got \(JournalFields.shown(name))")
            }
            scheme = .keyed(keyID: try object.string("key"))
        } else {
            _ = try object.int("rounds", in: SecretDigests.rounds...SecretDigests.rounds)
            scheme = .stretched
        }
        let inputs = try object.nested("inputs")
        var digests: [String: String] = [:]
        for member in inputs.object.members { digests[member.key] = try inputs.string(member.key) }
        return SecretDigests(salt: try object.string("salt"), scheme: scheme, inputs: digests)
    }
}
