import MatterFlow
import MatterFlowJSON
import Synchronization

extension RunRecoverer {
    /// After a cancel path (the workflow's, or none): releases what the run still holds. The session, when the
    /// hub shows it is still this run's; ePSKc keys the run activated and nothing withdrew.
    /// Reads the journal once, as it is after the continued run, for both: the sessions it shows this run opened
    /// (the continued run's included) and the keys it activated.
    func releaseLeftovers(_ run: inout RunRecovery, heldBefore: Bool) async throws(RecoveryDeferral) {
        let current = try RunRecoverer(rereading: writer, hub: hub, options: options)
        let after = try await current.readHub()
        if after.holdsSession, let session = after.session {
            try await current.release(session)
            run.releasedSession = true
            run.notes.append("the workflow's cancel path left session \(session.sessionID) active; recovery released it")
        } else if heldBefore || current.releasedSinceRecoveryStarted {
            run.releasedSession = true
        }
        try await current.withdrawEpskcKeys(&run, journaled: current.entries)
    }

    /// Whether a `cancelCommissioning` made since the last recovery started (the continued run's cancel path) says
    /// it released a session: what a hub that cannot say whose its session is tells of it.
    var releasedSinceRecoveryStarted: Bool {
        for record in entries.records.reversed() {
            switch record.entry {
            case .recoveryStarted: return false
            case .outcome(let outcome) where outcome.operation == "cancelCommissioning":
                if case .success(let value) = outcome.result, value["released"]?.boolValue == true { return true }
            default: continue
            }
        }
        return false
    }

    /// Releases the run's session with `cancelCommissioning`, journaled with intent and outcome.
    func release(_ session: HubSessionInfo) async throws(RecoveryDeferral) {
        let structure = self.structure
        let hub = self.hub
        let outcome = try await journaledCall(
            "cancelCommissioning", state: "release", arguments: [:], effect: .idempotentWrite, releasesSession: true,
            sessionID: session.sessionID, devices: session.pendingDeviceIDs
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
    /// - Parameter journaled: The journal's entries as they are now (recovery's own calls included); read again from
    ///   the writer when nil.
    func withdrawEpskcKeys(_ run: inout RunRecovery, journaled given: JournalEntries? = nil) async throws(RecoveryDeferral) {
        let journaled: JournalEntries
        if let given { journaled = given } else { journaled = try RunRecoverer(rereading: writer, hub: hub, options: options).entries }
        var intents: [String: IntentEntry] = [:]
        var active: [String] = []
        for record in journaled {
            switch record.entry {
            case .intent(let intent):
                intents[intent.key] = intent
                if intent.operation == "activateEpskc", let deviceID = intent.arguments["deviceID"]?.stringValue,
                    !active.contains(deviceID)
                {
                    active.append(deviceID)
                }
            case .outcome(let outcome):
                guard let deviceID = intents[outcome.key]?.arguments["deviceID"]?.stringValue else { continue }
                let withdrawn = outcome.operation == "deactivateEpskc" && outcome.succeeded
                let notActivated = outcome.operation == "activateEpskc" && !outcome.succeeded
                if withdrawn || notActivated { active.removeAll { $0 == deviceID } }
            default:
                continue
            }
        }
        let structure = self.structure
        let hub = self.hub
        for deviceID in active {
            let outcome = try await journaledCall(
                "deactivateEpskc", state: "withdrawEpskc", arguments: ["deviceID": .string(deviceID)], effect: .idempotentWrite,
                releasesSession: false, sessionID: nil, devices: nil
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
        sessionID: String?, devices: [String]?, call: @Sendable () async throws -> JSONValue
    ) async throws(RecoveryDeferral) -> Result<JSONValue, FlowError> {
        let key = "\(runID)/recovery-\(writer.nextSequence)"
        let descriptor = options.engine.catalog[operation]
        let intent = IntentEntry(
            key: key, workflow: "recovery", state: state, operation: operation, structureID: structure, attempt: 1,
            arguments: arguments, effect: effect, acquiresSession: false, releasesSession: releasesSession,
            requires: descriptor?.requires, releaseAttemptSuffices: descriptor?.releaseAttemptSuffices,
            idempotencyKey: nil, sessionID: sessionID)
        try journal { () throws(JournalError) in try writer.append(.intent(intent)) }
        do {
            try await writer.flush()
        } catch {
            throw RecoveryDeferral(message: "the journal could not be written: \(error.message)")
        }
        let context = HubCallContext(runID: runID, idempotencyKey: key)
        let outcome: Result<JSONValue, FlowError>
        do {
            outcome = .success(try await HubCallContext.$current.withValue(context) { try await call() })
        } catch {
            outcome = .failure(FlowError.from(error))
        }
        let entry = OutcomeEntry(
            key: key, workflow: "recovery", state: state, operation: operation, attempt: 1,
            durationSeconds: nil, result: outcome, devices: devices)
        try journal { () throws(JournalError) in try writer.append(.outcome(entry)) }
        return outcome
    }
}

/// Set when a continued run's journal could not be written.
final class JournalFailureFlag: Sendable {
    private let value = Mutex(false)
    func set() { value.withLock { $0 = true } }
    var isSet: Bool { value.withLock { $0 } }
}
