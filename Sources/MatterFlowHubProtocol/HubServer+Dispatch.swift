import MatterFlow
import MatterFlowJSON

/// Decoding a request's params, calling the hub, and encoding its result (docs/hub-protocol.md, section 3).
extension HubServer {
    func dispatch(_ method: String, _ params: JSONValue) async throws(FlowError) -> JSONValue {
        let reader = try WireReader(params, subject: "params of \(method)", cause: .invalidArgumentValue)
        if method == "unsubscribe" {
            unsubscribe(try reader.string("subscription"))
            return [:]
        }
        let structure = try reader.string("structure")
        let context: HubCallContext? =
            if let context = try reader.optionalObject("context") {
                HubCallContext(
                    runID: try context.string("runID"), idempotencyKey: try context.string("idempotencyKey"),
                    expectedSessionID: try context.optionalString("expectedSessionID"), element: try context.optionalString("element"))
            } else { nil }
        do {
            return try await HubCallContext.$current.withValue(context) {
                try await call(method, reader, structure: structure)
            }
        } catch let error as FlowError {
            throw error
        } catch {
            throw FlowError.from(error)
        }
    }

    private func call(_ method: String, _ reader: WireReader, structure: StructureID) async throws -> JSONValue {
        switch method {
        case "status":
            return HubWire.json(try await hub.status(structure: structure))
        case "prepareCommissioning":
            return ["sessionID": .string(try await hub.prepareCommissioning(structure: structure))]
        case "createAddDeviceRequest":
            let topology = try HubWire.topology(try reader.object("topology"))
            let request = try await hub.createAddDeviceRequest(structure: structure, topology: topology)
            return ["requestID": .string(request.requestID), "topology": HubWire.json(request.topology)]
        case "commissionDevice":
            let payload = try reader.string("onboardingPayload")
            let commissioningID = try reader.string("commissioningID")
            try await hub.commissionDevice(structure: structure, onboardingPayload: payload, commissioningID: commissioningID)
            return [:]
        case "fetchRooms":
            return ["rooms": .array(try await hub.fetchRooms(structure: structure).map(HubWire.json))]
        case "configureDevice":
            let name = try reader.string("name")
            let room = try reader.optionalString("roomName")
            try await hub.configureDevice(structure: structure, name: name, roomName: room)
            return [:]
        case "completeCommissioning":
            return ["deviceIDs": .array(try await hub.completeCommissioning(structure: structure).map(JSONValue.string))]
        case "cancelCommissioning":
            return ["released": .bool(try await hub.cancelCommissioning(structure: structure))]
        case "basicInformation":
            return HubWire.json(try await hub.basicInformation(structure: structure, deviceID: try reader.string("deviceID")))
        case "activeSession":
            guard let recoverable = hub.sessionReader else {
                throw FlowError(.notSupported, "this hub cannot report its active session")
            }
            return ["session": HubWire.json(try await recoverable.activeSession(structure: structure))]
        case "borderRouters":
            return ["borderRouters": .array(try await hub.borderRouters(structure: structure).map(HubWire.json))]
        case "borderRouter":
            return HubWire.json(try await hub.borderRouter(structure: structure, deviceID: try reader.string("deviceID")))
        case "threadCapabilities":
            return HubWire.json(
                try await hub.threadCapabilities(structure: structure, deviceID: try reader.string("deviceID")))
        case "activateEpskc":
            let deviceID = try reader.string("deviceID")
            let seconds = try reader.optionalInt("requestedDurationSeconds", in: 0...Int(Int32.max))
            return HubWire.json(
                try await hub.activateEpskc(structure: structure, deviceID: deviceID, requestedDurationSeconds: seconds))
        case "deactivateEpskc":
            try await hub.deactivateEpskc(structure: structure, deviceID: try reader.string("deviceID"))
            return [:]
        case "joinThreadNetwork":
            let deviceID = try reader.string("deviceID")
            guard let dataset = HubWire.bytes(hex: try reader.string("operationalDataset")) else {
                throw FlowError(
                    .invalidArgumentValue,
                    "params of joinThreadNetwork: member \"operationalDataset\" must be hex digits only (0-9, a-f), two per byte, without a 0x prefix")
            }
            return HubWire.json(
                try await hub.joinThreadNetwork(structure: structure, deviceID: deviceID, operationalDataset: dataset))
        case "leaveThreadNetwork":
            return HubWire.json(try await hub.leaveThreadNetwork(structure: structure, deviceID: try reader.string("deviceID")))
        case "threadNetworkSettings":
            return HubWire.json(try await hub.threadNetworkSettings(structure: structure))
        case "setInternetAccess":
            let option = try reader.enumeration("option", InternetAccessOption.self, allowed: HubWire.optionNames)
            return HubWire.json(try await hub.setInternetAccess(structure: structure, option: option))
        case "subscribe":
            return await subscribe(structure: structure)
        default:
            // A custom operation (docs/operation-catalog.md): its params, less the envelope, are its arguments.
            var arguments = reader.object
            arguments["structure"] = nil
            arguments["context"] = nil
            return try await hub.perform(operation: method, structure: structure, arguments: arguments)
        }
    }
}
