import MatterFlow
import MatterFlowJSON

extension HomeDecoder {
    /// The phases a session in a home file may have: only active ones (a finished session is simply omitted).
    static let activePhases: [CommissioningSession.Phase] = CommissioningSession.Phase.allCases.filter { phase in
        switch phase {
        case .prepared, .requested, .commissioning, .commissioned, .configured: true
        case .idle, .completed, .cancelled, .expired: false
        }
    }

    /// Decodes `activeSession` and checks it the way the hub will restore it: by replaying the session's events.
    /// The result is normalised (fields the phase does not use are dropped), so a decoded home equals what the
    /// hub reports after restoring it.
    func decodeSession(
        _ reader: ObjectReader, rooms: [Room], devices: [HomeDescription.Device]
    ) -> CommissioningSessionSnapshot? {
        let phaseNames = Self.activePhases.map(\.rawValue)
        var phase: CommissioningSession.Phase?
        if let name = reader.string("phase", required: true) {
            if let known = CommissioningSession.Phase(rawValue: name), Self.activePhases.contains(known) {
                phase = known
            } else {
                let hint = SpellingSuggestion.hint(for: name, among: phaseNames)
                collector.error(
                    DiagnosticCode.invalidValue, at: reader.pointer("phase"),
                    "\"phase\" must be one of \(phaseNames.joined(separator: ", ")), found \"\(name)\"\(hint)"
                        + (CommissioningSession.Phase(rawValue: name) == nil
                            ? "" : "; a finished session is not active: remove \"activeSession\""))
            }
        }
        let id = reader.nonEmptyString("id", required: true)
        var topology: Topology?
        if let topologyReader = reader.object("topology") {
            let ecosystem = topologyReader.nonEmptyString("ecosystemName", required: true)
            let homes = topologyReader.stringArray("homes") ?? []
            topologyReader.finish()
            if let ecosystem { topology = Topology(ecosystemName: ecosystem, homes: homes) }
        }
        let requestID = reader.nonEmptyString("requestID")
        let commissioningID = reader.nonEmptyString("commissioningID")
        let deviceIDs = decodeSessionDevices(reader, devices: devices)
        let deviceName = reader.nonEmptyString("deviceName")
        let roomName = roomName(reader, "roomName", rooms: rooms)
        let owner = reader.nonEmptyString("owner")
        let leaseExpiresAt = reader.number("leaseExpiresAt", in: NumberLimits.epochSeconds)
        let openedAt = reader.number("openedAt", in: NumberLimits.epochSeconds)
        reader.finish()

        guard let phase, let id, let deviceIDs, let roomName else { return nil }
        let holdsDevices = phase == .commissioned || phase == .configured
        if holdsDevices && deviceIDs.isEmpty {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer,
                "a session in phase \(phase.rawValue) needs \"deviceIDs\": the devices it commissioned, listed in \"devices\"")
            return nil
        }
        if !holdsDevices && !deviceIDs.isEmpty {
            collector.error(
                DiagnosticCode.invalidValue, at: reader.pointer("deviceIDs"),
                "a session in phase \(phase.rawValue) has commissioned no device yet; remove \"deviceIDs\"")
            return nil
        }
        let snapshot = CommissioningSessionSnapshot(
            phase: phase, sessionID: id, topology: topology, requestID: requestID, commissioningID: commissioningID,
            deviceIDs: deviceIDs,
            deviceName: deviceName, roomName: roomName)
        do {
            var restored = try CommissioningSession(restoring: snapshot).snapshot
            restored.owner = owner
            restored.leaseExpiresAt = leaseExpiresAt
            restored.openedAt = openedAt
            return restored
        } catch {
            collector.error(DiagnosticCode.missingKey, at: reader.pointer, error.message)
            return nil
        }
    }

    /// The session's device IDs, each of which must be a device of the home; nil when any is invalid.
    private func decodeSessionDevices(_ reader: ObjectReader, devices: [HomeDescription.Device]) -> [String]? {
        guard let ids = reader.stringArray("deviceIDs") else {
            return reader.object["deviceIDs"] == nil ? [] : nil
        }
        var valid = true
        var seen = Set<String>()
        for (index, id) in ids.enumerated() {
            let pointer = JSONPointer.appending(index, to: reader.pointer("deviceIDs"))
            if !seen.insert(id).inserted {
                collector.error(DiagnosticCode.invalidValue, at: pointer, "device \"\(id)\" is listed twice")
                valid = false
            } else if !devices.contains(where: { $0.id == id }) {
                let hint = SpellingSuggestion.hint(for: id, among: devices.map(\.id))
                collector.error(
                    HomeDiagnosticCode.unknownDevice, at: pointer,
                    "no device with ID \"\(id)\" in \"devices\"\(hint); a session's devices must be listed there too")
                valid = false
            }
        }
        return valid ? ids : nil
    }
}
