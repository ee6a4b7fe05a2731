import MatterFlowJSON
import ThreadDataset

/// The border-router descriptors of ``OperationCatalog/standard``, and the events they cause.
enum BorderRouterOperations {
    static let all: [OperationDescriptor] = [
        listBorderRouters, readBorderRouter, readThreadCapabilities, activateEpskc, deactivateEpskc, joinThreadNetwork, leaveThreadNetwork,
        readThreadNetworkSettings, setInternetAccess,
    ]

    static let events: [EventDescriptor] = [epskcModeDeactivated]

    static let deviceArgument = OperationDescriptor.Argument("deviceID", .string, required: true, "the border router")

    static let networkShape = ValueShape.object([
        .init("networkName", .string, "network name"), .init("panId", .integer, "PAN ID"),
        .init("extPanId", .string, "Extended PAN ID, lowercase hex"), .init("channel", .integer, "channel"),
    ])

    static let epskcModeDeactivated = EventDescriptor(
        name: "epskcModeDeactivated",
        summary: "A border router's ePSKc mode ended: the key was used, expired, or was cancelled.",
        valueField: "reason", values: ["keyUsed", "expired", "cancelled"],
        payload: .object([
            .init("deviceID", .string, "the border router"),
            .init("reason", .string, "keyUsed, expired or cancelled"),
            .init("detail", .string, "more about the reason, e.g. tooManyFailedAttempts"),
            .init("failedAttempts", .integer, "wrong keys tried while the key was active"),
        ]))

    static func json(_ network: ThreadNetworkSummary?) -> JSONValue {
        guard let network else { return .null }
        return [
            "networkName": .string(network.networkName), "panId": .int(network.panID),
            "extPanId": .string(network.extendedPANID), "channel": .int(network.channel),
        ]
    }

    static func json(_ router: BorderRouterDescription) -> JSONValue {
        let members = router.supportedMembers
        return [
            "deviceID": .string(router.deviceID), "name": .string(router.name), "deviceType": .string(router.deviceType),
            "vendorName": .string(router.basicInformation.vendorName),
            "productName": .string(router.basicInformation.productName),
            "traits": .array(router.traits.map { .string($0.name) }),
            "attributes": .array(members.attributes.map(JSONValue.string)),
            "commands": .array(members.commands.map(JSONValue.string)),
            "events": .array(members.events.map(JSONValue.string)),
            "network": json(router.network),
        ]
    }

    static let routerShape = ValueShape.object([
        .init("deviceID", .string, "device ID"), .init("name", .string, "name"), .init("deviceType", .string, "device type"),
        .init("vendorName", .string, "vendor"), .init("productName", .string, "product"),
        .init("traits", .array(.string), "supported traits"),
        .init("attributes", .array(.string), "supported attributes as Trait.attribute"),
        .init("commands", .array(.string), "supported commands as Trait.command"),
        .init("events", .array(.string), "supported events as Trait.event"),
        .init("network", networkShape, "the Thread network it is on, or null"),
    ])

    static let listBorderRouters = OperationDescriptor(
        name: "listBorderRouters",
        summary: "Lists the structure's border routers with their supported traits, attributes, commands and network.",
        arguments: [],
        result: .object([
            .init("borderRouters", .array(routerShape), "the border routers"),
            .init("deviceIDs", .array(.string), "their device IDs"),
        ]),
        errors: [.hubOffline, .hubUnreachable, .structureNotFound], defaultTimeoutSeconds: 10, effect: .read
    ) { hub, structure, _ in
        let routers = try await hub.borderRouters(structure: structure)
        return ["borderRouters": .array(routers.map(json)), "deviceIDs": .array(routers.map { .string($0.deviceID) })]
    }

    static let readBorderRouter = OperationDescriptor(
        name: "readBorderRouter",
        summary: "Describes one border router: its supported traits, attributes, commands and events, and its network.",
        arguments: [deviceArgument],
        result: routerShape,
        errors: [.deviceNotFound, .notBorderRouter, .hubOffline, .hubUnreachable], defaultTimeoutSeconds: 10, effect: .read
    ) { hub, structure, arguments in
        json(try await hub.borderRouter(structure: structure, deviceID: arguments["deviceID"]?.stringValue ?? ""))
    }

    static let readThreadCapabilities = OperationDescriptor(
        name: "readThreadCapabilities",
        summary: "Reads a border router's ThreadNetworkCapabilities (ePSKc support, internet access option).",
        arguments: [deviceArgument],
        result: .object([
            .init("epskcSupported", .boolean, "ePSKc credential sharing is supported (null: not reported)"),
            .init("internetAccessOption", .string, "unspecified, none, all, nat64Only or dhcpv6PdOnly (null: not reported)"),
        ]),
        errors: [.deviceNotFound, .notBorderRouter, .notSupported, .hubOffline, .hubUnreachable], defaultTimeoutSeconds: 10, effect: .read
    ) { hub, structure, arguments in
        let capabilities = try await hub.threadCapabilities(structure: structure, deviceID: arguments["deviceID"]?.stringValue ?? "")
        return [
            "epskcSupported": capabilities.epskcSupported.map(JSONValue.bool) ?? .null,
            "internetAccessOption": capabilities.internetAccessOption.map { .string($0.rawValue) } ?? .null,
        ]
    }

    static let activateEpskc = OperationDescriptor(
        name: "activateEpskc",
        summary: "Activates ePSKc mode: the border router issues a one-time 9-digit key valid for the granted duration.",
        arguments: [
            deviceArgument,
            .init(
                "requestedDurationSeconds", .integer, required: false, range: 0...EpskcSession.maxDurationSeconds,
                "absent or 0: \(EpskcSession.defaultDurationSeconds) s; at most \(EpskcSession.maxDurationSeconds)"),
        ],
        result: .object([
            .init("status", .string, "success"), .init("epskc", .string, "the one-time key (secret)"),
            .init("validDurationSeconds", .integer, "how long the key is valid"),
        ]),
        errors: [
            .deviceNotFound, .notBorderRouter, .notSupported, .epskcAlreadyActive, .notOnThreadNetwork, .epskcNotActivated,
            .invalidArgumentValue, .hubOffline, .hubUnreachable,
        ],
        defaultTimeoutSeconds: 10, effect: .nonIdempotentWrite, secretResultFields: ["epskc"]
    ) { hub, structure, arguments in
        let activation = try await hub.activateEpskc(
            structure: structure, deviceID: arguments["deviceID"]?.stringValue ?? "",
            requestedDurationSeconds: arguments["requestedDurationSeconds"]?.intValue)
        return [
            "status": .string(activation.status), "epskc": .string(activation.epskc),
            "validDurationSeconds": .int(activation.validDurationSeconds),
        ]
    }

    static let deactivateEpskc = OperationDescriptor(
        name: "deactivateEpskc",
        summary: "Deactivates ePSKc mode at once; the deactivation event's reason is cancelled.",
        arguments: [deviceArgument],
        result: .object([]),
        errors: [.deviceNotFound, .notBorderRouter, .notSupported, .epskcNotActive, .hubOffline, .hubUnreachable],
        defaultTimeoutSeconds: 10, effect: .idempotentWrite
    ) { hub, structure, arguments in
        try await hub.deactivateEpskc(structure: structure, deviceID: arguments["deviceID"]?.stringValue ?? "")
        return .object(JSONObject())
    }

    static let joinThreadNetwork = OperationDescriptor(
        name: "joinThreadNetwork",
        summary: "Joins the Thread network of an active Operational Dataset (hex), migrating attached devices if needed.",
        arguments: [
            deviceArgument,
            .init(
                "operationalDataset", .string, required: true, secret: true,
                "the Operational Dataset TLVs as hex; it holds the network key and PSKc"),
        ],
        result: .object([
            .init("status", .string, "joined, alreadyJoined or migrated"), .init("network", networkShape, "the network"),
            .init("migratedDevices", .array(.string), "Thread devices that moved with it"),
        ]),
        errors: [.deviceNotFound, .notBorderRouter, .notSupported, .invalidDataset, .hubOffline, .hubUnreachable],
        defaultTimeoutSeconds: 60, effect: .idempotentWrite,
        argumentWarnings: { arguments in datasetWarnings(arguments["operationalDataset"]?.stringValue ?? "") }
    ) { hub, structure, arguments in
        let bytes = try validatedDataset(arguments["operationalDataset"]?.stringValue ?? "")
        let result = try await hub.joinThreadNetwork(
            structure: structure, deviceID: arguments["deviceID"]?.stringValue ?? "", operationalDataset: bytes)
        return json(result)
    }

    static let leaveThreadNetwork = OperationDescriptor(
        name: "leaveThreadNetwork",
        summary: "Leaves the Thread network and forgets its dataset (the Thread stack is reset).",
        arguments: [deviceArgument],
        result: .object([
            .init("status", .string, "left, or notOnNetwork when it was on none"), .init("network", networkShape, "null"),
            .init("migratedDevices", .array(.string), "empty"),
        ]),
        errors: [.deviceNotFound, .notBorderRouter, .notSupported, .hubOffline, .hubUnreachable],
        defaultTimeoutSeconds: 30, effect: .idempotentWrite
    ) { hub, structure, arguments in
        json(try await hub.leaveThreadNetwork(structure: structure, deviceID: arguments["deviceID"]?.stringValue ?? ""))
    }

    static let settingsShape = ValueShape.object([
        .init("internetAccessOption", .string, "unspecified, none, all, nat64Only or dhcpv6PdOnly"),
        .init("defaultThreadNetworkId", .string, "the structure's default Thread network, or null"),
        .init("appliedTo", .array(.string), "border routers the option applies to"),
    ])

    static let readThreadNetworkSettings = OperationDescriptor(
        name: "readThreadNetworkSettings",
        summary: "Reads the structure's Thread network settings (internet access option, default network).",
        arguments: [], result: settingsShape, errors: [.structureNotFound, .hubOffline, .hubUnreachable],
        defaultTimeoutSeconds: 10, effect: .read
    ) { hub, structure, _ in
        json(try await hub.threadNetworkSettings(structure: structure))
    }

    static let setInternetAccess = OperationDescriptor(
        name: "setInternetAccess",
        summary: "Sets the structure's internet access option for the border routers that support it.",
        arguments: [.init("option", .string, required: true, "none, all, nat64Only or dhcpv6PdOnly (unspecified is only read)")],
        result: settingsShape,
        errors: [.permissionNotGranted, .notSupported, .invalidArgumentValue, .structureNotFound, .hubOffline, .hubUnreachable],
        defaultTimeoutSeconds: 10, effect: .idempotentWrite
    ) { hub, structure, arguments in
        let text = arguments["option"]?.stringValue ?? ""
        let settable = InternetAccessOption.allCases.filter { $0 != .unspecified }
        guard let option = InternetAccessOption(rawValue: text), option != .unspecified else {
            let why = text == InternetAccessOption.unspecified.rawValue
                ? "unspecified is what a structure reads before any policy is set, not a policy to set" : "\"\(text)\" is not an internet access option"
            throw FlowError(.invalidArgumentValue, "\(why); use \(settable.map(\.rawValue).joined(separator: ", "))")
        }
        return json(try await hub.setInternetAccess(structure: structure, option: option))
    }

    static func json(_ result: NetworkOperationResult) -> JSONValue {
        [
            "status": .string(result.status.rawValue), "network": json(result.network),
            "migratedDevices": .array(result.migratedDevices.map(JSONValue.string)),
        ]
    }

    static func json(_ settings: ThreadNetworkSettings) -> JSONValue {
        [
            "internetAccessOption": .string(settings.internetAccessOption.rawValue),
            "defaultThreadNetworkId": settings.defaultThreadNetworkID.map(JSONValue.string) ?? .null,
            "appliedTo": .array(settings.appliedTo.map(JSONValue.string)),
        ]
    }

    /// Parses and checks an active Operational Dataset before it reaches the hub; the message names every problem
    /// and never the network key or PSKc.
    static func validatedDataset(_ hex: String) throws(FlowError) -> [UInt8] {
        // Every problem at once, as `matterflow dataset` lists them, not only the first.
        let diagnosis = OperationalDataset.diagnose(hex: hex)
        guard let dataset = diagnosis.dataset else {
            throw FlowError(
                .invalidDataset, "the Operational Dataset is malformed: \(diagnosis.parseErrors.map(\.message).joined(separator: "; "))")
        }
        try ThreadNetworkRecord.requireJoinable(dataset)
        return dataset.encode()
    }

    /// What a joinable dataset holds that a network should not (a broadcast PAN ID, a mesh-local prefix that is not
    /// unique local, ...), as `matterflow dataset` warns of it: `operational dataset: CODE: message`, never the
    /// Network Key or PSKc. None for a dataset that cannot be joined (its call fails `invalidDataset`, saying why).
    static func datasetWarnings(_ hex: String) -> [String] {
        guard let validation = OperationalDataset.diagnose(hex: hex).validation, validation.isComplete else { return [] }
        return validation.warnings.map { "operational dataset: \($0.code.rawValue): \($0.message)" }
    }

    /// Why hex text is not an Active Operational Dataset a border router can join (every problem, never the Network
    /// Key or PSKc); nil when it is one.
    static func datasetProblem(_ hex: String) -> String? {
        do throws(FlowError) {
            _ = try validatedDataset(hex)
            return nil
        } catch {
            return error.message
        }
    }
}
