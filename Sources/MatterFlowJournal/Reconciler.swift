import MatterFlow
import MatterFlowJSON

/// Decides what an in-doubt hub call did by reading the hub's state, never by calling it again.
struct Reconciler {
    let hub: any Hub
    let structure: StructureID
    let runID: String
    /// The structure's active session, as the hub reports it (nil: none is active).
    let session: HubSessionInfo?
    /// Whether the hub can say whose a session is (``RecoverableHub``).
    let knowsOwners: Bool
    /// Whether the hub reports any active session (for hubs that cannot name it).
    let sessionActive: Bool
    /// Session IDs the journal shows this run opened.
    let journaledSessions: Set<String>
    /// Devices the journal shows this run commissioned (pending until completion).
    let journaledDevices: [String]
    /// Why the hub cannot answer now (offline, or unreachable from here); nil when it can.
    var unavailable: String? = nil

    /// Whether the active session is this run's (``HubSessionInfo/belongs(to:openedIDs:)``, with the IDs the journal
    /// shows this run opened).
    var holdsSession: Bool {
        session?.belongs(to: runID, openedIDs: journaledSessions) ?? false
    }

    /// The structure's session in words, for resolutions and notes.
    var sessionText: String {
        guard let session else { return sessionActive ? "a session is active (the hub does not say whose)" : "no session is active" }
        let owner = session.owner.map { $0 == runID ? "this run" : "\($0)" } ?? "an unknown client"
        return "session \(session.sessionID) of \(owner) is \(session.phase.rawValue)"
    }

    func reconcile(_ intent: IntentEntry) async -> Resolution {
        let key = intent.key
        let operation = intent.operation
        func verdict(_ verdict: Resolution.Verdict, _ evidence: String, devices: [String] = [], result: JSONValue? = nil) -> Resolution {
            Resolution(key: key, operation: operation, verdict: verdict, evidence: evidence, devices: devices, result: result)
        }
        if intent.effect == .read {
            return verdict(.noEffect, "\(operation) only reads the hub")
        }
        let phase = holdsSession ? session?.phase : nil
        switch operation {
        case "prepareCommissioning":
            if holdsSession, let session {
                return verdict(.applied, "the hub reports that \(sessionText)", result: ["sessionID": .string(session.sessionID)])
            }
            if !knowsOwners && sessionActive {
                return verdict(.unknown, "\(sessionText); recovery cannot tell whether this run opened it, so it is left to the hub's session lease")
            }
            return verdict(.notApplied, "the hub reports that \(sessionText); this run holds no session")
        case "createAddDeviceRequest":
            guard let phase else { return verdict(.notApplied, "\(sessionText); this run holds no session any more") }
            return phase == .prepared
                ? verdict(.notApplied, "\(sessionText): no request was recorded")
                : verdict(.applied, "\(sessionText): the request was recorded")
        case "commissionDevice":
            guard let phase, let session else {
                return verdict(.notApplied, "\(sessionText); nothing this run commissioned is pending")
            }
            switch phase {
            case .commissioned, .configured:
                return verdict(
                    .applied, "\(sessionText) with pending devices \(session.pendingDeviceIDs.joined(separator: ", "))",
                    devices: session.pendingDeviceIDs, result: commissioningResult(intent))
            case .commissioning:
                return verdict(.notApplied, "\(sessionText) (attempt \(session.commissioningID ?? "?")): the device had not joined when the run stopped")
            case .idle, .prepared, .requested, .completed, .cancelled, .expired:
                return verdict(.notApplied, "\(sessionText): no device was added")
            }
        case "configureDevice":
            guard let phase else { return verdict(.notApplied, "\(sessionText); this run holds no session any more") }
            // The operation's result is the name and room it applied, as its arguments gave them.
            let arguments = intent.arguments
            let applied: JSONObject = ["name": arguments["name"] ?? .null, "room": arguments["room"] ?? .null]
            return phase == .configured && session?.deviceName == arguments["name"]?.stringValue
                ? verdict(.applied, "\(sessionText): the device is configured", result: .object(applied))
                : verdict(.notApplied, "\(sessionText): the device is not configured")
        case "completeCommissioning":
            if holdsSession { return verdict(.notApplied, "\(sessionText): it was not completed") }
            return await completion(key: key)
        case "cancelCommissioning":
            if holdsSession { return verdict(.notApplied, "\(sessionText): it was not released") }
            return verdict(.applied, "\(sessionText): this run holds no session any more", result: ["released": .bool(!journaledSessions.isEmpty)])
        default:
            // A catalog's own operation: what its intent recorded about the session is all recovery can go by.
            if intent.acquiresSession {
                if holdsSession { return verdict(.applied, "the hub reports that \(sessionText), and \(operation) opens the session") }
                if !knowsOwners && sessionActive {
                    return verdict(.unknown, "\(sessionText); recovery cannot tell whether this run opened it, so it is left to the hub's session lease")
                }
                return verdict(.notApplied, "the hub reports that \(sessionText); this run holds no session")
            }
            if intent.releasesSession {
                if holdsSession { return verdict(.notApplied, "\(sessionText): it was not released") }
                return verdict(.applied, "\(sessionText): this run holds no session any more, and \(operation) releases it")
            }
            return verdict(.unknown, "recovery cannot read back what \(operation) does; it is not retried")
        }
    }

    /// The result an applied `commissionDevice` returns: the attempt's ID, as the hub saw it in the call's
    /// idempotency argument (or, in journals that did not record it, its `commissioningID` argument).
    private func commissioningResult(_ intent: IntentEntry) -> JSONValue? {
        if let key = intent.idempotencyKey, !key.value.isNull { return .object(JSONObject([JSONObject.Member(key: key.argument, value: key.value)])) }
        return intent.arguments["commissioningID"].map { ["commissioningID": $0] }
    }

    /// An in-doubt completion: applied when the devices the run commissioned exist now that its session is gone.
    private func completion(key: String) async -> Resolution {
        func verdict(_ verdict: Resolution.Verdict, _ evidence: String, devices: [String] = []) -> Resolution {
            Resolution(
                key: key, operation: "completeCommissioning", verdict: verdict, evidence: evidence, devices: devices,
                result: verdict == .applied ? ["deviceIDs": .array(devices.sorted().map(JSONValue.string))] : nil)
        }
        guard !journaledDevices.isEmpty else {
            return verdict(.unknown, "\(sessionText), and the journal does not say which devices the run commissioned")
        }
        var present: [String] = []
        for device in journaledDevices {
            do {
                _ = try await hub.basicInformation(structure: structure, deviceID: device)
                present.append(device)
            } catch {
                let flowError = FlowError.from(error)
                guard flowError.cause == .deviceNotFound else {
                    return verdict(.unknown, "the hub could not be asked about device \(device): \(flowError)")
                }
            }
        }
        if present.count == journaledDevices.count {
            return verdict(.applied, "\(sessionText), and devices \(present.joined(separator: ", ")) are in the structure: commissioning was completed", devices: present)
        }
        if present.isEmpty {
            return verdict(.notApplied, "\(sessionText), and devices \(journaledDevices.joined(separator: ", ")) are gone: the session was cancelled or expired")
        }
        return verdict(.unknown, "only some of devices \(journaledDevices.joined(separator: ", ")) are in the structure")
    }
}
