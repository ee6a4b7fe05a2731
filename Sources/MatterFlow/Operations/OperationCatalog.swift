import MatterFlowJSON
import MatterPayload
import Synchronization

/// The operations workflows may invoke, by name.
///
/// ``OperationCatalog/standard`` holds the commissioning operations of the ``Hub`` protocol. The catalog is a
/// value: an embedding service may build one with more operations for a hub of its own.
public struct OperationCatalog: Sendable {
    /// The most bytes of UTF-8 a device's name takes (`configureDevice`'s `name`): a Matter device keeps it in its
    /// Basic Information NodeLabel.
    public static let deviceNameMaxBytes = 32

    public private(set) var operations: [OperationDescriptor]
    private var byName: [String: Int]
    private var causesByName: [String: DeclaredCause] = [:]
    /// The events hubs may report, which wait states can wait for.
    public var events: [EventDescriptor]
    /// The custom guards workflow steps may list beside the built-in ones (``GuardDescriptor``), in the order added.
    public private(set) var guards: [GuardDescriptor] = []
    /// Replaced whenever an operation is added or replaced, so run models (``RunModel``) can tell whether
    /// the operations they looked up are still this catalog's.
    private(set) var identity = Identity()

    /// A token of one version of a catalog's operations, compared by identity.
    final class Identity: Sendable {
        /// The errors of this version's operations and guards, numbered by the first load that asked
        /// (``PossibleErrorTable/Seed``): later loads start from it.
        let errorSeed = Mutex<PossibleErrorTable.Seed?>(nil)
    }

    /// A catalog of `operations`, in order (a later one of the same name replaces an earlier one), and custom `events`.
    public init(_ operations: [OperationDescriptor], events: [EventDescriptor] = []) {
        self.operations = []
        self.byName = [:]
        self.events = events
        for operation in operations { add(operation) }
    }

    /// The names of every secret argument, result field and event field of the catalog's operations and events
    /// (`onboardingPayload`, `epskc`, ...): what ``SharedSecrets`` takes the values of out of text no run knows.
    public var secretNames: Set<String> {
        var names = Set<String>()
        for operation in operations {
            names.formUnion(operation.secretArguments)
            names.formUnion(operation.secretResultFields)
        }
        for event in events { names.formUnion(event.secretFields) }
        return names
    }

    /// The event with a name.
    public func event(named name: String) -> EventDescriptor? {
        events.first { $0.name == name }
    }

    /// Adds or replaces an operation.
    public mutating func add(_ operation: OperationDescriptor) {
        identity = Identity()
        if let index = byName[operation.name] {
            operations[index] = operation
        } else {
            byName[operation.name] = operations.count
            operations.append(operation)
        }
        for declared in operation.declaredCauses { causesByName[declared.cause.rawValue] = declared }
    }

    /// Adds or replaces a custom guard; its declared causes become known causes of the catalog.
    public mutating func add(_ descriptor: GuardDescriptor) {
        identity = Identity()
        if let index = guards.firstIndex(where: { $0.name == descriptor.name }) {
            guards[index] = descriptor
        } else {
            guards.append(descriptor)
        }
        for declared in descriptor.declaredCauses { causesByName[declared.cause.rawValue] = declared }
    }

    /// The custom guard with a name.
    public func customGuard(named name: String) -> GuardDescriptor? {
        guards.first { $0.name == name }
    }

    /// The cause with a name, as one of the catalog's operations or guards declares it.
    public func declaredCause(named name: String) -> DeclaredCause? { causesByName[name] }

    /// Every cause this catalog's operations and guards declare, by name in alphabetical order, for spelling hints.
    public var declaredCauseNames: [String] { causesByName.keys.sorted() }

    /// The operation with a name.
    public subscript(name: String) -> OperationDescriptor? {
        byName[name].map { operations[$0] }
    }

    /// The names, in catalog order.
    public var names: [String] { operations.map(\.name) }

    /// The commissioning and border-router operations of the ``Hub`` protocol, and its events.
    public static let standard = OperationCatalog(
        CommissioningOperations.all + BorderRouterOperations.all,
        events: CommissioningEvents.all + BorderRouterOperations.events)
}

/// The descriptors behind ``OperationCatalog/standard``.
enum CommissioningOperations {
    static let all: [OperationDescriptor] = [
        readHubStatus, prepareCommissioning, createAddDeviceRequest, commissionDevice, fetchRooms, configureDevice,
        completeCommissioning, cancelCommissioning, readBasicInformation,
    ]

    static let readHubStatus = OperationDescriptor(
        name: "readHubStatus",
        summary: "Reads whether the hub is online and reachable, permission is granted and a session is active.",
        arguments: [],
        result: .object([
            .init("online", .boolean, "the hub is online"),
            .init("reachable", .boolean, "the hub can be reached"),
            .init("permissionGranted", .boolean, "the user granted access to the structure"),
            .init("activeSession", .boolean, "a commissioning session is active"),
        ]),
        errors: [.structureNotFound], defaultTimeoutSeconds: 10, effect: .read
    ) { hub, structure, _ in
        let status = try await hub.status(structure: structure)
        return [
            "online": .bool(status.online), "reachable": .bool(status.reachable),
            "permissionGranted": .bool(status.permissionGranted), "activeSession": .bool(status.activeSession),
        ]
    }

    static let prepareCommissioning = OperationDescriptor(
        name: "prepareCommissioning",
        summary: "Checks permission, hub reachability and that no other session is active, then opens a session.",
        arguments: [],
        result: .object([.init("sessionID", .string, "the new commissioning session")]),
        errors: [.permissionNotGranted, .hubOffline, .hubUnreachable, .sessionBusy, .structureNotFound],
        defaultTimeoutSeconds: 30, effect: .nonIdempotentWrite, acquiresSession: true
    ) { hub, structure, _ in
        ["sessionID": .string(try await hub.prepareCommissioning(structure: structure))]
    }

    static let createAddDeviceRequest = OperationDescriptor(
        name: "createAddDeviceRequest",
        summary: "Creates the add-device request with its topology (ecosystem name and homes).",
        arguments: [
            .init("ecosystemName", .string, required: true, "the ecosystem shown to the user, e.g. \"Google Home\""),
            .init("homes", .array(.string), required: false, "home display names; omitted: the structure's name"),
        ],
        result: .object([
            .init("requestID", .string, "the request"),
            .init("ecosystemName", .string, "the ecosystem name"),
            .init("homes", .array(.string), "the homes offered"),
        ]),
        errors: [.noActiveSession, .sessionOutOfOrder, .sessionExpired, .invalidArgumentValue, .hubOffline, .hubUnreachable],
        defaultTimeoutSeconds: 10, effect: .idempotentWrite
    ) { hub, structure, arguments in
        let homes = arguments["homes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        let topology = Topology(ecosystemName: arguments["ecosystemName"]?.stringValue ?? "", homes: homes)
        let request = try await hub.createAddDeviceRequest(structure: structure, topology: topology)
        return [
            "requestID": .string(request.requestID), "ecosystemName": .string(request.topology.ecosystemName),
            "homes": .array(request.topology.homes.map(JSONValue.string)),
        ]
    }

    static let commissionDevice = OperationDescriptor(
        name: "commissionDevice",
        summary: "Commissions the device described by an onboarding payload (QR code or manual pairing code).",
        arguments: [
            .init(
                "onboardingPayload", .string, required: true, secret: true, onboardingPayload: true,
                "the QR code (MT:...) or manual pairing code; it holds the setup passcode"),
            .init("commissioningID", .string, required: false, "an identifier for this attempt; generated if absent"),
        ],
        result: .object([.init("commissioningID", .string, "the attempt's identifier")]),
        errors: [
            .noActiveSession, .sessionOutOfOrder, .sessionExpired, .invalidPayload, .deviceUnreachable,
            .commissioningFailed, .deviceAlreadyCommissioned, .hubOffline, .hubUnreachable,
        ],
        defaultTimeoutSeconds: 120, effect: .nonIdempotentWrite, idempotencyKey: "commissioningID"
    ) { hub, structure, arguments in
        // Its code was checked with the arguments (``OperationDescriptor/Argument/onboardingPayload``).
        let payload = arguments["onboardingPayload"]?.stringValue ?? ""
        // A run always passes one (see the runner's generated idempotency keys); a direct call gets a fresh one.
        let commissioningID = arguments["commissioningID"]?.stringValue ?? "commissioning-" + SystemRandomSource().hexDigits(12)
        try await hub.commissionDevice(structure: structure, onboardingPayload: payload, commissioningID: commissioningID)
        return ["commissioningID": .string(commissioningID)]
    }

    static let fetchRooms = OperationDescriptor(
        name: "fetchRooms",
        summary: "Lists the structure's rooms to offer during commissioning.",
        arguments: [],
        result: .object([
            .init("rooms", .array(.object([.init("id", .string, "room ID"), .init("name", .string, "room name")])), "the rooms"),
            .init("roomNames", .array(.string), "the room names, in order"),
        ]),
        errors: [.hubOffline, .hubUnreachable, .structureNotFound],
        defaultTimeoutSeconds: 10, effect: .read
    ) { hub, structure, _ in
        let rooms = try await hub.fetchRooms(structure: structure)
        return [
            "rooms": .array(rooms.map { ["id": .string($0.id), "name": .string($0.name)] }),
            "roomNames": .array(rooms.map { .string($0.name) }),
        ]
    }

    static let configureDevice = OperationDescriptor(
        name: "configureDevice",
        summary: "Names the commissioned device and optionally places it in a room.",
        arguments: [
            .init(
                "name", .string, required: true, maxBytes: OperationCatalog.deviceNameMaxBytes,
                "the device's name, at most \(OperationCatalog.deviceNameMaxBytes) bytes of UTF-8 (a Matter NodeLabel)"),
            .init("room", .string, required: false, "the room's name; omitted or null: no room"),
        ],
        result: .object([.init("name", .string, "the name set"), .init("room", .string, "the room, if any")]),
        errors: [
            .noActiveSession, .sessionOutOfOrder, .sessionExpired, .roomNotFound, .invalidArgumentValue, .hubOffline,
            .hubUnreachable,
        ],
        defaultTimeoutSeconds: 10, effect: .idempotentWrite
    ) { hub, structure, arguments in
        let name = arguments["name"]?.stringValue ?? ""
        let room = arguments["room"]?.stringValue
        try await hub.configureDevice(structure: structure, name: name, roomName: room)
        return ["name": .string(name), "room": room.map(JSONValue.string) ?? .null]
    }

    static let completeCommissioning = OperationDescriptor(
        name: "completeCommissioning",
        summary: "Completes commissioning, releases the session and returns the commissioned device IDs.",
        arguments: [],
        result: .object([.init("deviceIDs", .array(.string), "every device commissioned (several for a bridge)")]),
        errors: [.noActiveSession, .sessionOutOfOrder, .sessionExpired, .hubOffline, .hubUnreachable],
        defaultTimeoutSeconds: 30, effect: .nonIdempotentWrite, releasesSession: true
    ) { hub, structure, _ in
        ["deviceIDs": .array(try await hub.completeCommissioning(structure: structure).map(JSONValue.string))]
    }

    static let cancelCommissioning = OperationDescriptor(
        name: "cancelCommissioning",
        summary: "Cancels commissioning, undoes partial work and releases the session; harmless when none is active.",
        arguments: [],
        result: .object([.init("released", .boolean, "a session was active and has been released")]),
        errors: [.hubOffline, .hubUnreachable],
        defaultTimeoutSeconds: 30, effect: .idempotentWrite, releasesSession: true, releaseAttemptSuffices: true
    ) { hub, structure, _ in
        ["released": .bool(try await hub.cancelCommissioning(structure: structure))]
    }

    static let readBasicInformation = OperationDescriptor(
        name: "readBasicInformation",
        summary: "Reads a device's Matter Basic Information.",
        arguments: [.init("deviceID", .string, required: true, "the device")],
        result: .object([
            .init("vendorName", .string, "vendor name"), .init("vendorID", .integer, "vendor ID"),
            .init("productID", .integer, "product ID"), .init("productName", .string, "product name"),
            .init("softwareVersion", .integer, "software version"),
        ]),
        errors: [.deviceNotFound, .hubOffline, .hubUnreachable],
        defaultTimeoutSeconds: 10, effect: .read
    ) { hub, structure, arguments in
        let info = try await hub.basicInformation(
            structure: structure, deviceID: arguments["deviceID"]?.stringValue ?? "")
        return [
            "vendorName": .string(info.vendorName), "vendorID": .int(info.vendorID), "productID": .int(info.productID),
            "productName": .string(info.productName), "softwareVersion": .int(info.softwareVersion),
        ]
    }
}
