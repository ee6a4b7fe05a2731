import MatterFlow
import MatterFlowJSON
import ThreadDataset

/// The wire form of the `Hub` protocol's values (docs/hub-protocol.md, section 3), both ways.
enum HubWire {
    static let uint16 = 0...65535
    static let uint32 = 0...4_294_967_295

    // MARK: Commissioning

    /// The status, with `holder` only when the hub says who holds the session (a client of an earlier hub sees
    /// none, and ignores a member it does not know).
    static func json(_ status: HubStatus) -> JSONValue {
        var object: JSONObject = [
            "online": .bool(status.online), "reachable": .bool(status.reachable),
            "permissionGranted": .bool(status.permissionGranted), "activeSession": .bool(status.activeSession),
        ]
        if let holder = status.holder { object["holder"] = json(holder) }
        return .object(object)
    }

    /// A status; `holder` may be missing or null (a hub that does not say, or an earlier one).
    static func status(_ reader: WireReader) throws(FlowError) -> HubStatus {
        HubStatus(
            online: try reader.bool("online"), reachable: try reader.bool("reachable"),
            permissionGranted: try reader.bool("permissionGranted"), activeSession: try reader.bool("activeSession"),
            holder: try reader.optionalObject("holder").map { reader throws(FlowError) in try holder(reader) })
    }

    static func json(_ holder: SessionHolder) -> JSONValue {
        [
            "sessionID": holder.sessionID.map(JSONValue.string) ?? .null, "owner": holder.owner.map(JSONValue.string) ?? .null,
            "commissioningID": holder.commissioningID.map(JSONValue.string) ?? .null,
            "openedAt": holder.openedAt.map(JSONValue.double) ?? .null,
        ]
    }

    /// A holder: each member a string (`openedAt` a time in seconds since 1970), null or missing.
    static func holder(_ reader: WireReader) throws(FlowError) -> SessionHolder {
        SessionHolder(
            sessionID: try reader.optionalString("sessionID"), owner: try reader.optionalString("owner"),
            commissioningID: try reader.optionalString("commissioningID"),
            openedAt: try reader.optionalNumber("openedAt", in: NumberLimits.epochSeconds))
    }

    static func json(_ topology: Topology) -> JSONValue {
        ["ecosystemName": .string(topology.ecosystemName), "homes": .array(topology.homes.map(JSONValue.string))]
    }

    static func topology(_ reader: WireReader) throws(FlowError) -> Topology {
        Topology(ecosystemName: try reader.string("ecosystemName"), homes: try reader.strings("homes"))
    }

    static func json(_ room: Room) -> JSONValue { ["id": .string(room.id), "name": .string(room.name)] }

    static func room(_ reader: WireReader) throws(FlowError) -> Room {
        Room(id: try reader.string("id"), name: try reader.string("name"))
    }

    static func json(_ info: BasicInformation) -> JSONValue {
        [
            "vendorName": .string(info.vendorName), "vendorID": .int(info.vendorID), "productID": .int(info.productID),
            "productName": .string(info.productName), "softwareVersion": .int(info.softwareVersion),
        ]
    }

    static func basicInformation(_ reader: WireReader) throws(FlowError) -> BasicInformation {
        BasicInformation(
            vendorName: try reader.string("vendorName"), vendorID: try reader.int("vendorID", in: uint16),
            productID: try reader.int("productID", in: uint16), productName: try reader.string("productName"),
            softwareVersion: try reader.int("softwareVersion", in: uint32))
    }

    static func json(_ session: HubSessionInfo?) -> JSONValue {
        guard let session else { return .null }
        return [
            "sessionID": .string(session.sessionID), "phase": .string(session.phase.rawValue),
            "owner": session.owner.map(JSONValue.string) ?? .null,
            "pendingDeviceIDs": .array(session.pendingDeviceIDs.map(JSONValue.string)),
            "commissioningID": session.commissioningID.map(JSONValue.string) ?? .null,
            "deviceName": session.deviceName.map(JSONValue.string) ?? .null,
        ]
    }

    static func session(_ reader: WireReader) throws(FlowError) -> HubSessionInfo {
        HubSessionInfo(
            sessionID: try reader.string("sessionID"),
            phase: try reader.enumeration(
                "phase", CommissioningSession.Phase.self, allowed: CommissioningSession.Phase.allCases.map(\.rawValue)),
            owner: try reader.optionalString("owner"), pendingDeviceIDs: try reader.strings("pendingDeviceIDs"),
            commissioningID: try reader.optionalString("commissioningID"),
            deviceName: try reader.optionalString("deviceName"))
    }

    // MARK: Border routers

    static func json(_ network: ThreadNetworkSummary?) -> JSONValue {
        guard let network else { return .null }
        return [
            "networkName": .string(network.networkName), "panID": .int(network.panID),
            "extendedPANID": .string(network.extendedPANID), "channel": .int(network.channel),
        ]
    }

    static func network(_ reader: WireReader?) throws(FlowError) -> ThreadNetworkSummary? {
        guard let reader else { return nil }
        let extendedPANID = try reader.string("extendedPANID")
        guard extendedPANID.utf8.count == 16, extendedPANID.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
            throw reader.failure("extendedPANID", "16 lowercase hex digits", .string(extendedPANID))
        }
        return ThreadNetworkSummary(
            networkName: try reader.string("networkName"), panID: try reader.int("panID", in: uint16),
            extendedPANID: extendedPANID, channel: try reader.int("channel", in: Int(ThreadChannel.supportedChannels.lowerBound)...Int(ThreadChannel.supportedChannels.upperBound)))
    }

    static func json(_ router: BorderRouterDescription) -> JSONValue {
        [
            "deviceID": .string(router.deviceID), "name": .string(router.name), "deviceType": .string(router.deviceType),
            "basicInformation": json(router.basicInformation),
            "traits": .array(
                router.traits.map { trait in
                    [
                        "name": .string(trait.name), "attributes": .array(trait.attributes.map(JSONValue.string)),
                        "commands": .array(trait.commands.map(JSONValue.string)),
                        "events": .array(trait.events.map(JSONValue.string)),
                    ]
                }),
            "network": json(router.network),
        ]
    }

    static func borderRouter(_ reader: WireReader) throws(FlowError) -> BorderRouterDescription {
        var traits: [TraitSupport] = []
        for trait in try reader.objects("traits") {
            traits.append(
                TraitSupport(
                    name: try trait.string("name"), attributes: try trait.strings("attributes"),
                    commands: try trait.strings("commands"), events: try trait.strings("events")))
        }
        return BorderRouterDescription(
            deviceID: try reader.string("deviceID"), name: try reader.string("name"),
            deviceType: try reader.string("deviceType"),
            basicInformation: try basicInformation(try reader.object("basicInformation")), traits: traits,
            network: try network(try reader.optionalObject("network")))
    }

    static let optionNames = InternetAccessOption.allCases.map(\.rawValue)

    static func json(_ capabilities: ThreadCapabilities) -> JSONValue {
        [
            "epskcSupported": capabilities.epskcSupported.map(JSONValue.bool) ?? .null,
            "internetAccessOption": capabilities.internetAccessOption.map { .string($0.rawValue) } ?? .null,
        ]
    }

    static func capabilities(_ reader: WireReader) throws(FlowError) -> ThreadCapabilities {
        let option: InternetAccessOption? =
            if let value = reader.object["internetAccessOption"], !value.isNull {
                try reader.enumeration("internetAccessOption", InternetAccessOption.self, allowed: optionNames)
            } else { nil }
        return ThreadCapabilities(epskcSupported: try reader.optionalBool("epskcSupported"), internetAccessOption: option)
    }

    static func json(_ activation: EpskcActivation) -> JSONValue {
        [
            "status": .string(activation.status), "epskc": .string(activation.epskc),
            "validDurationSeconds": .int(activation.validDurationSeconds),
        ]
    }

    /// An activation: status `success`, a key of 9 digits (never quoted: it is secret) granted for 1 to the 600 s a
    /// request may ask for. Another status is the router refusing in its own words (as Google's API reports a
    /// failure): no key is active, and the call fails with `failedPrecondition` / `epskcNotActivated`.
    static func activation(_ reader: WireReader) throws(FlowError) -> EpskcActivation {
        let status = try reader.string("status")
        guard status == "success" else {
            throw FlowError(
                .epskcNotActivated,
                "the border router answered the activation with status \"\(LineQuote.masked(status, limit: 60))\": no key was activated")
        }
        let epskc = try reader.string("epskc")
        guard epskc.utf8.count == 9, epskc.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else {
            throw FlowError(
                reader.cause,
                "\(reader.subject): member \"epskc\" must be the key's 9 digits; got \(epskc.utf8.count) characters, not 9 digits (the key is not shown)")
        }
        return EpskcActivation(status: status, epskc: epskc, validDurationSeconds: try reader.int("validDurationSeconds", in: 1...600))
    }

    static func json(_ result: NetworkOperationResult) -> JSONValue {
        [
            "status": .string(result.status.rawValue), "network": json(result.network),
            "migratedDevices": .array(result.migratedDevices.map(JSONValue.string)),
        ]
    }

    static func networkResult(_ reader: WireReader) throws(FlowError) -> NetworkOperationResult {
        NetworkOperationResult(
            status: try reader.enumeration(
                "status", NetworkOperationStatus.self, allowed: NetworkOperationStatus.allCases.map(\.rawValue)),
            network: try network(try reader.optionalObject("network")),
            migratedDevices: try reader.strings("migratedDevices"))
    }

    static func json(_ settings: ThreadNetworkSettings) -> JSONValue {
        [
            "internetAccessOption": .string(settings.internetAccessOption.rawValue),
            "defaultThreadNetworkID": settings.defaultThreadNetworkID.map(JSONValue.string) ?? .null,
            "appliedTo": .array(settings.appliedTo.map(JSONValue.string)),
        ]
    }

    static func settings(_ reader: WireReader) throws(FlowError) -> ThreadNetworkSettings {
        ThreadNetworkSettings(
            internetAccessOption: try reader.enumeration("internetAccessOption", InternetAccessOption.self, allowed: optionNames),
            defaultThreadNetworkID: try reader.optionalString("defaultThreadNetworkID"),
            appliedTo: try reader.strings("appliedTo"))
    }

    // MARK: Datasets and events

    /// Hex of even length, upper- or lower-case, white space around it ignored; nil otherwise.
    static func bytes(hex: String) -> [UInt8]? {
        try? Hex.decode(hex)
    }

    static func json(_ event: HubEvent) -> JSONValue {
        [
            "name": .string(event.name), "value": .string(event.value), "fields": .object(event.fields),
            "time": .double(Double(event.time.components.seconds) + Double(event.time.components.attoseconds) / 1e18),
        ]
    }

    static func event(_ reader: WireReader, structure: StructureID) throws(FlowError) -> HubEvent {
        // Seconds on the hub's clock, as `openedAt` is: since 1970, or since the hub started.
        guard let time = reader.object["time"]?.doubleValue, NumberLimits.epochSeconds.contains(time) else {
            throw reader.failure("time", "a number of seconds in \(NumberLimits.epochSeconds)", reader.object["time"])
        }
        guard let fields = reader.object["fields"]?.objectValue else {
            throw reader.failure("fields", "an object", reader.object["fields"])
        }
        return HubEvent(
            name: try reader.string("name"), structureID: structure, value: try reader.string("value"), fields: fields,
            time: .seconds(time))
    }
}
