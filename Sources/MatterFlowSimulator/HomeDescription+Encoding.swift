import MatterFlow
import MatterFlowJSON

extension HomeDescription {
    /// The home as a JSON value in the documented format. Decoding it gives back an equal home.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["version"] = .int(Self.currentVersion)
        object["structure"] = ["id": .string(structure.id), "name": .string(structure.name)]
        object["hub"] = ["online": .bool(hub.online), "reachable": .bool(hub.reachable)]
        object["permissionGranted"] = .bool(permissionGranted)
        object["rooms"] = .array(rooms.map { ["id": .string($0.id), "name": .string($0.name)] })
        object["devices"] = .array(devices.map(\.jsonValue))
        if let activeSession { object["activeSession"] = activeSession.jsonValue }
        object["seed"] = .int(Int(truncatingIfNeeded: seed))
        object["issuedIDs"] = .int(issuedIDs)
        object["simulation"] = simulation.jsonValue
        if !thread.isEmpty { object["thread"] = thread.jsonValue }
        return .object(object)
    }

    /// The home as indented JSON text ending in a newline, as written to files.
    public var jsonText: String {
        JSONWriter.pretty(jsonValue) + "\n"
    }
}

extension HomeDescription.Device {
    /// The device as a member of `devices`.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["id"] = .string(id)
        object["name"] = .string(name)
        if let room { object["room"] = .string(room) }
        object["vendorID"] = .int(vendorID)
        object["productID"] = .int(productID)
        object["vendorName"] = .string(vendorName)
        object["productName"] = .string(productName)
        object["softwareVersion"] = .int(softwareVersion)
        if let payloadKey { object["payloadKey"] = .string(payloadKey) }
        return .object(object)
    }
}

extension HomeDescription.Simulation {
    /// The simulation settings as the `simulation` member; latencies in catalog order.
    public var jsonValue: JSONValue {
        var latencies = JSONObject()
        for operation in latencySeconds.keys.sorted() {
            guard let seconds = latencySeconds[operation] else { continue }
            latencies[operation.rawValue] = .double(seconds)
        }
        var object = JSONObject()
        object["latencySeconds"] = .object(latencies)
        if let sessionLeaseSeconds { object["sessionLeaseSeconds"] = .double(sessionLeaseSeconds) }
        if !bridges.isEmpty {
            object["bridges"] = .array(bridges.map { bridge in
                [
                    "vendorID": .int(bridge.vendorID), "productID": .int(bridge.productID),
                    "bridgedDevices": .int(bridge.bridgedDevices),
                ]
            })
        }
        return .object(object)
    }
}

extension CommissioningSessionSnapshot {
    /// The session as the `activeSession` member: only the fields its phase uses.
    public var jsonValue: JSONValue {
        var object = JSONObject()
        object["phase"] = .string(phase.rawValue)
        if let sessionID { object["id"] = .string(sessionID) }
        if let topology {
            object["topology"] = [
                "ecosystemName": .string(topology.ecosystemName),
                "homes": .array(topology.homes.map(JSONValue.string)),
            ]
        }
        if let requestID { object["requestID"] = .string(requestID) }
        if let commissioningID { object["commissioningID"] = .string(commissioningID) }
        if !deviceIDs.isEmpty { object["deviceIDs"] = .array(deviceIDs.map(JSONValue.string)) }
        if let deviceName { object["deviceName"] = .string(deviceName) }
        if let roomName { object["roomName"] = .string(roomName) }
        if let owner { object["owner"] = .string(owner) }
        if let leaseExpiresAt { object["leaseExpiresAt"] = .double(leaseExpiresAt) }
        if let openedAt { object["openedAt"] = .double(openedAt) }
        return .object(object)
    }
}
