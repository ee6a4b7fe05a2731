import MatterFlow
import MatterFlowJSON

/// Why a recovery could not finish; recorded as `recoveryDeferred`, and the run is left for a later recovery.
struct RecoveryDeferral: Error {
    var message: String
}

/// Recovers one interrupted run whose journal this process has locked (see ``RunJournal/recover(on:options:)``).
struct RunRecoverer {
    let contents: JournalContents
    let writer: JournalWriter
    let hub: any Hub
    let options: RecoveryOptions

    private var records: [JournalRecord] { contents.records }
    private var started: JournalRecord? { contents.started }
    private var runID: String { started?.string("runID") ?? "?" }
    private var structure: StructureID { started?.string("structureID") ?? "" }

    func recover(into run: inout RunRecovery) async throws(RecoveryDeferral) {
        if let torn = contents.tornTail {
            try journal { () throws(JournalError) in
                try writer.truncate(to: contents.validLength)
                try writer.append(
                    JournalRecord.Kind.tornTailDiscarded,
                    ["offset": .int(torn.offset), "length": .int(torn.length), "reason": .string(torn.reason)], sync: true)
            }
            run.notes.append("discarded a torn last record (\(torn.length) bytes at byte \(torn.offset))")
        }
        let interruptedIn = lastState
        run.interruptedIn = interruptedIn
        try journal { () throws(JournalError) in
            try writer.append(
                JournalRecord.Kind.recoveryStarted,
                [
                    "mode": .string(options.resume ? "resume" : "cancel"), "pid": .int(JournalFile.processID),
                    "lastSequence": .int(records.last?.sequence ?? 0),
                    "interruptedIn": interruptedIn.map(JSONValue.string) ?? .null,
                ], sync: true)
        }

        // Read the hub: the structure's session, and whose it is.
        let reconciler = try await readHub()
        var resolutions: [Resolution] = []
        for intent in inDoubtIntents {
            let resolution = await reconciler.reconcile(intent)
            resolutions.append(resolution)
            var fields = resolution.jsonValue.objectValue ?? [:]
            fields["state"] = intent.payload["state"] ?? .null
            fields["workflow"] = intent.payload["workflow"] ?? .null
            try journal { () throws(JournalError) in try writer.append(JournalRecord.Kind.resolution, fields, sync: true) }
        }
        run.resolutions = resolutions

        // Resume where it is safe: the run's commissioning had been completed, so nothing is left to do.
        let completedDevices = completion(resolutions)
        if options.resume, let devices = completedDevices {
            run.resumed = true
            try finish(
                run: &run, outcome: .succeeded, error: nil, output: ["deviceIDs": .array(devices.map(JSONValue.string))],
                note: "resumed: commissioning had been completed (devices \(devices.joined(separator: ", "))), so the run succeeded")
            return
        }
        if options.resume {
            run.notes.append(
                "resume is not safe here: the journal keeps neither the run's variables nor its secret inputs, so the workflow cannot continue from \(interruptedIn ?? "its start"); the cancel path was taken instead")
        }

        // The cancel path: release the session only when the hub shows it is this run's.
        if reconciler.holdsSession, let session = reconciler.session {
            try await release(session)
            run.releasedSession = true
        } else if reconciler.session != nil || reconciler.sessionActive {
            run.notes.append("the structure's active session is not this run's; it was left alone")
        }
        var message = "the run was interrupted in state \(interruptedIn ?? "?") (its process stopped); recovery took the cancel path"
        message += run.releasedSession ? " and released its commissioning session" : "; the run held no session"
        if let devices = completedDevices { message += "; commissioning had been completed (devices \(devices.joined(separator: ", ")))" }
        let error = FlowError(code: .cancelled, cause: .runCancelled, message: message, state: interruptedIn)
        try finish(run: &run, outcome: .cancelled, error: error, output: nil, note: nil)
    }

    // MARK: - Reading the journal

    /// The innermost state the run had entered, qualified by sub-workflow (`commission/commission`).
    private var lastState: String? {
        guard let entered = records.last(where: { $0.type == "stateEntered" }), let state = entered.string("state") else {
            return nil
        }
        let path = (entered.string("workflow") ?? "").split(separator: "/").dropFirst().map(String.init)
        return (path + [state]).joined(separator: "/")
    }

    /// Intents without an outcome or an earlier resolution: the calls whose effect the journal does not know.
    private var inDoubtIntents: [JournalRecord] {
        let settled = Set(records.filter { $0.type == JournalRecord.Kind.outcome || $0.type == JournalRecord.Kind.resolution }.compactMap(\.key))
        return records.filter { $0.type == JournalRecord.Kind.intent && !settled.contains($0.key ?? "") }
    }

    /// Records carrying a call's result or created devices.
    private func results(of operation: String) -> [JournalRecord] {
        records.filter { record in
            [JournalRecord.Kind.outcome, JournalRecord.Kind.lateResult, JournalRecord.Kind.resolution].contains(record.type)
                && record.string("operation") == operation
        }
    }

    private var journaledSessions: Set<String> {
        Set(results(of: "prepareCommissioning").compactMap { $0.payload["result"]?["sessionID"]?.stringValue })
    }

    private var journaledDevices: [String] {
        results(of: "commissionDevice").last { !($0.payload["devices"]?.arrayValue ?? []).isEmpty }?
            .payload["devices"]?.arrayValue?.compactMap(\.stringValue) ?? []
    }

    /// The devices of a completion that took effect: a successful `completeCommissioning` outcome that nothing
    /// released afterwards, or an in-doubt one found applied.
    private func completion(_ resolutions: [Resolution]) -> [String]? {
        if let applied = resolutions.last(where: { $0.operation == "completeCommissioning" && $0.verdict == .applied }) {
            return applied.devices.sorted()
        }
        guard let last = records.last(where: { $0.type == JournalRecord.Kind.outcome }),
            last.string("operation") == "completeCommissioning", last.payload["succeeded"]?.boolValue == true
        else { return nil }
        return last.payload["result"]?["deviceIDs"]?.arrayValue?.compactMap(\.stringValue).sorted()
    }

    // MARK: - Acting

    private func readHub() async throws(RecoveryDeferral) -> Reconciler {
        let status: HubStatus
        var session: HubSessionInfo?
        do {
            status = try await hub.status(structure: structure)
            if let recoverable = hub as? any RecoverableHub {
                session = try await recoverable.activeSession(structure: structure)
            }
        } catch {
            throw RecoveryDeferral(message: "the hub could not be read for structure \"\(structure)\": \(FlowError.from(error)); recover again once it answers")
        }
        return Reconciler(
            hub: hub, structure: structure, runID: runID, session: session, knowsOwners: hub is any RecoverableHub,
            sessionActive: status.activeSession, journaledSessions: journaledSessions, journaledDevices: journaledDevices)
    }

    /// Releases the run's session with `cancelCommissioning`, journaled with intent and outcome.
    private func release(_ session: HubSessionInfo) async throws(RecoveryDeferral) {
        let key = "\(runID)/recovery-\(writer.nextSequence)"
        try journal { () throws(JournalError) in
            try writer.append(
                JournalRecord.Kind.intent,
                [
                    "key": .string(key), "workflow": "recovery", "state": "release", "operation": "cancelCommissioning",
                    "attempt": 1, "arguments": .object([:]), "effect": .string(OperationDescriptor.Effect.idempotentWrite.rawValue),
                    "acquiresSession": false, "releasesSession": true, "sessionID": .string(session.sessionID),
                ], sync: true)
        }
        let context = HubCallContext(runID: runID, idempotencyKey: key)
        var fields: JSONObject = [
            "key": .string(key), "workflow": "recovery", "state": "release", "operation": "cancelCommissioning", "attempt": 1,
        ]
        do {
            let released = try await HubCallContext.$current.withValue(context) {
                try await hub.cancelCommissioning(structure: structure)
            }
            fields["succeeded"] = true
            fields["result"] = ["released": .bool(released)]
            fields["devices"] = .array(session.pendingDeviceIDs.map(JSONValue.string))
            try journal { () throws(JournalError) in try writer.append(JournalRecord.Kind.outcome, fields, sync: true) }
        } catch let deferral as RecoveryDeferral {
            throw deferral
        } catch {
            let flowError = FlowError.from(error)
            fields["succeeded"] = false
            fields["error"] = JournalRecorder.json(flowError)
            try journal { () throws(JournalError) in try writer.append(JournalRecord.Kind.outcome, fields, sync: true) }
            throw RecoveryDeferral(message: "releasing session \(session.sessionID) failed: \(flowError); recover again once the hub answers")
        }
    }

    /// Ends the journal: the run's terminal record, then the recovery's.
    private func finish(
        run: inout RunRecovery, outcome: RunResult.Outcome, error: FlowError?, output: JSONValue?, note: String?
    ) throws(RecoveryDeferral) {
        if let note { run.notes.append(note) }
        try journal { () throws(JournalError) in
            try writer.append(
                JournalRecord.Kind.runFinished,
                [
                    "outcome": .string(outcome.rawValue), "error": error.map(JournalRecorder.json) ?? .null,
                    "output": output ?? .null, "recovered": true,
                ], sync: true)
            try writer.append(
                JournalRecord.Kind.recoveryFinished,
                [
                    "outcome": .string(outcome.rawValue), "resumed": .bool(run.resumed),
                    "releasedSession": .bool(run.releasedSession), "resolutions": .int(run.resolutions.count),
                ], sync: true)
        }
        run.action = .recovered
        run.status = JournalRunStatus(rawValue: outcome.rawValue) ?? .cancelled
    }

    private func journal(_ work: () throws(JournalError) -> Void) throws(RecoveryDeferral) {
        do {
            try work()
        } catch {
            throw RecoveryDeferral(message: "the journal could not be written: \(error.message)")
        }
    }
}
