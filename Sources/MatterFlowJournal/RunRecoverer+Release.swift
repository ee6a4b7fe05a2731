import MatterFlow
import MatterFlowJSON
import Synchronization

extension RunRecoverer {
    /// After a cancel path (the workflow's, or none): releases what the run still holds. The session, when the
    /// hub shows it is still this run's; ePSKc keys the run activated and nothing withdrew.
    func releaseLeftovers(_ run: inout RunRecovery, heldBefore: Bool) async throws(RecoveryDeferral) {
        let after = try await readHub()
        if after.holdsSession, let session = after.session {
            try await release(session)
            run.releasedSession = true
            run.notes.append("the workflow's cancel path left session \(session.sessionID) active; recovery released it")
        } else if heldBefore {
            run.releasedSession = true
        }
        try await withdrawEpskcKeys(&run)
    }

    /// Releases the run's session with `cancelCommissioning`, journaled with intent and outcome.
    func release(_ session: HubSessionInfo) async throws(RecoveryDeferral) {
        let structure = self.structure
        let hub = self.hub
        let outcome = try await journaledCall(
            "cancelCommissioning", state: "release", arguments: [:], effect: .idempotentWrite, releasesSession: true,
            extra: ["sessionID": .string(session.sessionID)], devices: session.pendingDeviceIDs
        ) { () async throws -> JSONValue in
            ["released": .bool(try await hub.cancelCommissioning(structure: structure))]
        }
        if case .failure(let error) = outcome {
            throw RecoveryDeferral(message: "releasing session \(session.sessionID) failed: \(error); recover again once the hub answers")
        }
    }

    /// Withdraws every ePSKc key the journal shows this run activated (or may have: an activation in doubt) and
    /// did not withdraw itself. A key that already ended is fine; one that cannot be withdrawn ends by itself when
    /// its duration runs out, which the report says.
    func withdrawEpskcKeys(_ run: inout RunRecovery) async throws(RecoveryDeferral) {
        let journaled: [JournalRecord]
        do {
            journaled = try writer.readBack()
        } catch {
            throw RecoveryDeferral(message: "the journal could not be read back: \(error.message)")
        }
        let intents = Dictionary(
            journaled.filter { $0.type == JournalRecord.Kind.intent }.compactMap { record in record.key.map { ($0, record) } },
            uniquingKeysWith: { $1 })
        var active: [String] = []
        for record in journaled where record.type == JournalRecord.Kind.intent || record.type == JournalRecord.Kind.outcome {
            let intent = record.type == JournalRecord.Kind.intent ? record : record.key.flatMap { intents[$0] }
            guard let intent, let deviceID = intent.payload["arguments"]?["deviceID"]?.stringValue else { continue }
            switch (record.type, intent.string("operation")) {
            case (JournalRecord.Kind.intent, "activateEpskc"):
                if !active.contains(deviceID) { active.append(deviceID) }
            case (JournalRecord.Kind.outcome, "activateEpskc") where record.payload["succeeded"]?.boolValue != true,
                (JournalRecord.Kind.outcome, "deactivateEpskc") where record.payload["succeeded"]?.boolValue == true:
                active.removeAll { $0 == deviceID }
            default:
                break
            }
        }
        let structure = self.structure
        let hub = self.hub
        for deviceID in active {
            let outcome = try await journaledCall(
                "deactivateEpskc", state: "withdrawEpskc", arguments: ["deviceID": .string(deviceID)], effect: .idempotentWrite,
                releasesSession: false, extra: [:], devices: nil
            ) { () async throws -> JSONValue in
                try await hub.deactivateEpskc(structure: structure, deviceID: deviceID)
                return [:]
            }
            switch outcome {
            case .success:
                run.withdrewEpskc.append(deviceID)
                run.notes.append("withdrew the ePSKc key the run had left active on border router \(deviceID)")
            case .failure(let error) where error.cause == ErrorCause.epskcNotActive:
                break
            case .failure(let error):
                run.notes.append(
                    "the ePSKc key of border router \(deviceID) could not be withdrawn (\(error)); it ends by itself when its duration runs out (at most 600 s)")
            }
        }
    }

    /// One hub call of recovery's own, journaled with a flushed intent before it and its outcome after.
    private func journaledCall(
        _ operation: String, state: String, arguments: JSONObject, effect: OperationDescriptor.Effect, releasesSession: Bool,
        extra: JSONObject, devices: [String]?, call: @Sendable () async throws -> JSONValue
    ) async throws(RecoveryDeferral) -> Result<JSONValue, FlowError> {
        let key = "\(runID)/recovery-\(writer.nextSequence)"
        var intent: JSONObject = [
            "key": .string(key), "workflow": "recovery", "state": .string(state), "operation": .string(operation),
            "structureID": .string(structure), "attempt": 1, "arguments": .object(arguments), "effect": .string(effect.rawValue), "acquiresSession": false,
            "releasesSession": .bool(releasesSession),
        ]
        for member in extra.members { intent[member.key] = member.value }
        try journal { () throws(JournalError) in try writer.append(JournalRecord.Kind.intent, intent, sync: true) }
        var fields: JSONObject = [
            "key": .string(key), "workflow": "recovery", "state": .string(state), "operation": .string(operation), "attempt": 1,
        ]
        let context = HubCallContext(runID: runID, idempotencyKey: key)
        let outcome: Result<JSONValue, FlowError>
        do {
            outcome = .success(try await HubCallContext.$current.withValue(context) { try await call() })
        } catch {
            outcome = .failure(FlowError.from(error))
        }
        switch outcome {
        case .success(let result):
            fields["succeeded"] = true
            fields["result"] = result
            if let devices { fields["devices"] = .array(devices.map(JSONValue.string)) }
        case .failure(let error):
            fields["succeeded"] = false
            fields["error"] = JournalRecorder.json(error)
        }
        try journal { () throws(JournalError) in try writer.append(JournalRecord.Kind.outcome, fields, sync: true) }
        return outcome
    }
}

/// Set when a continued run's journal could not be written.
final class JournalFailureFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
