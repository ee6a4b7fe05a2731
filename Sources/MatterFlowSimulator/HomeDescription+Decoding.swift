import MatterFlow
import MatterFlowJSON

/// Diagnostic codes specific to home descriptions; the shared ones (`unknownKey`, `wrongType`, ...) are in
/// ``DiagnosticCode``.
public enum HomeDiagnosticCode {
    /// Two rooms or two devices share an identifier.
    public static let duplicateID = "duplicateID"
    /// Two rooms share a name (rooms are chosen by name, so names must be unique).
    public static let duplicateName = "duplicateName"
    /// A device or the active session names a room the home does not have.
    public static let unknownRoom = "unknownRoom"
    /// The active session names a device the home does not have.
    public static let unknownDevice = "unknownDevice"
    /// A workflow or a fixture was given where a home description belongs.
    public static let notAHome = "notAHome"

    /// Every code a home description can produce, shared ones included.
    public static let all: [String] = [
        DiagnosticCode.syntaxError, DiagnosticCode.fileNotFound, DiagnosticCode.unreadableFile,
        DiagnosticCode.duplicateKey, DiagnosticCode.unknownKey, DiagnosticCode.missingKey, DiagnosticCode.wrongType,
        DiagnosticCode.invalidValue, DiagnosticCode.numberOutOfRange, DiagnosticCode.unsupportedVersion, duplicateID,
        duplicateName, unknownRoom, unknownDevice, notAHome,
    ]
}

extension HomeDescription {
    /// Decodes a parsed document, collecting every problem (never only the first).
    /// - Returns: the home when there are no errors, and all findings ordered by position.
    public static func decode(_ document: JSONDocument) -> (home: HomeDescription?, diagnostics: [Diagnostic]) {
        let decoder = HomeDecoder(document: document)
        let home = decoder.decode()
        let diagnostics = decoder.collector.diagnostics.sortedByLocation()
        return (diagnostics.hasErrors ? nil : home, diagnostics)
    }

    /// Decodes a parsed document.
    /// - Throws: every finding, when any is an error.
    public init(document: JSONDocument) throws(DiagnosticsError) {
        let (home, diagnostics) = Self.decode(document)
        guard let home else { throw DiagnosticsError(diagnostics) }
        self = home
    }

    /// Parses and decodes JSON text; `file` names it in diagnostics.
    /// - Throws: every finding, when any is an error; a number JSON cannot hold (`NaN`, an integer beyond 64 bits)
    ///   is reported with the file's other findings.
    public static func parse(_ text: String, file: String) throws(DiagnosticsError) -> HomeDescription {
        let (document, numberProblems) = try JSONDocument.parseKeepingNumberProblems(text, file: file)
        return try decode(document, numberProblems: numberProblems).home
    }

    /// Reads, parses and decodes a home description file.
    /// - Throws: as ``parse(_:file:)``, or the file's `fileNotFound` or `unreadableFile`.
    public static func load(path: String) throws(DiagnosticsError) -> HomeDescription {
        try loadWithWarnings(path: path).home
    }

    /// Reads, parses and decodes a home description file, with what it holds that a home should not, though it
    /// can be used (a Thread dataset with a broadcast PAN ID): for a command to say before it uses the home.
    /// - Throws: as ``load(path:)``.
    public static func loadWithWarnings(path: String) throws(DiagnosticsError) -> (home: HomeDescription, warnings: [Diagnostic]) {
        let (document, numberProblems) = try JSONDocument.loadKeepingNumberProblems(path: path)
        return try decode(document, numberProblems: numberProblems)
    }

    /// The home of a document and its warnings, whose numbers no value can hold (`numberProblems`) are reported
    /// with its other findings.
    private static func decode(
        _ document: JSONDocument, numberProblems: [Diagnostic]
    ) throws(DiagnosticsError) -> (home: HomeDescription, warnings: [Diagnostic]) {
        let (home, diagnostics) = decode(document)
        guard let home, numberProblems.isEmpty else {
            throw DiagnosticsError(diagnostics.replacingFindings(at: numberProblems))
        }
        return (home, diagnostics)
    }
}

/// Turns a JSON document into a ``HomeDescription``, reporting wrong types, missing and unknown keys, and values
/// that break the format's rules.
final class HomeDecoder {
    let collector: DiagnosticCollector

    init(document: JSONDocument) {
        collector = DiagnosticCollector(document: document)
    }

    func decode() -> HomeDescription? {
        collector.append(contentsOf: collector.document.duplicateKeyDiagnostics())
        guard let root = collector.object(collector.document.value, at: "", what: "a home description") else {
            return nil
        }
        // Another kind of MatterFlow file given as a home is said so once, not as a list of unknown keys.
        if let misplaced = FileKind.misplaced(root.object, as: .home) {
            collector.error(HomeDiagnosticCode.notAHome, at: "", misplaced)
            return nil
        }
        let version = root.int("version", required: true)
        if let version, version > HomeDescription.currentVersion {
            collector.error(
                DiagnosticCode.unsupportedVersion, at: root.pointer("version"),
                "this home description has version \(version), newer than this MatterFlow supports (\(HomeDescription.currentVersion)); upgrade MatterFlow or write a version \(HomeDescription.currentVersion) file")
            return nil
        }
        if let version, version < 1 {
            collector.error(
                DiagnosticCode.invalidValue, at: root.pointer("version"),
                "\"version\" must be \(HomeDescription.currentVersion), found \(version)")
        }
        let structure = root.object("structure", required: true).flatMap(decodeStructure)
        let hub = root.object("hub").map(decodeHub) ?? HomeDescription.HubConditions()
        let permissionGranted = root.bool("permissionGranted") ?? true
        let rooms = decodeRooms(root.array("rooms") ?? [], at: root.pointer("rooms"))
        let devices = decodeDevices(root.array("devices") ?? [], at: root.pointer("devices"), rooms: rooms)
        // Any integer seeds the identifiers; negative ones stand for the upper half of the 64-bit range.
        let seed = root.int("seed").map { UInt64(bitPattern: Int64($0)) } ?? 0
        let issuedIDs = root.int("issuedIDs", in: HomeDescription.issuedIDsRange) ?? 0
        let simulation = root.object("simulation").map(decodeSimulation) ?? HomeDescription.Simulation()
        let thread = root.object("thread").map { decodeThread($0, devices: devices) } ?? HomeDescription.ThreadSetup()
        var activeSession: CommissioningSessionSnapshot?
        if let value = root.value("activeSession"), !value.isNull,
            let reader = collector.object(value, at: root.pointer("activeSession"), what: "\"activeSession\"")
        {
            activeSession = decodeSession(reader, rooms: rooms, devices: devices)
        }
        root.finish()
        guard let structure else { return nil }
        return HomeDescription(
            structure: structure, hub: hub, permissionGranted: permissionGranted, rooms: rooms, devices: devices,
            activeSession: activeSession, seed: seed, issuedIDs: issuedIDs, simulation: simulation, thread: thread)
    }

    // MARK: - Members

    private func decodeStructure(_ reader: ObjectReader) -> HomeDescription.Structure? {
        let id = reader.nonEmptyString("id", required: true)
        let name = reader.nonEmptyString("name", required: true)
        reader.finish()
        guard let id, let name else { return nil }
        return HomeDescription.Structure(id: id, name: name)
    }

    private func decodeHub(_ reader: ObjectReader) -> HomeDescription.HubConditions {
        let conditions = HomeDescription.HubConditions(
            online: reader.bool("online") ?? true, reachable: reader.bool("reachable") ?? true)
        reader.finish()
        return conditions
    }

    private func decodeRooms(_ elements: [JSONValue], at pointer: String) -> [Room] {
        var rooms: [Room] = []
        var ids: [String: String] = [:]
        var names: [String: String] = [:]
        for (index, element) in elements.enumerated() {
            let elementPointer = JSONPointer.appending(index, to: pointer)
            guard let reader = collector.object(element, at: elementPointer, what: "a room") else { continue }
            let id = reader.nonEmptyString("id", required: true)
            let name = reader.nonEmptyString("name", required: true)
            reader.finish()
            guard let id, let name,
                isFirstUse(
                    of: id, in: ids, at: reader.pointer("id"), HomeDiagnosticCode.duplicateID, "room ID",
                    advice: "give each room its own ID"),
                isFirstUse(
                    of: name, in: names, at: reader.pointer("name"), HomeDiagnosticCode.duplicateName, "room name",
                    advice: "rooms are chosen by name, so rename one")
            else { continue }
            ids[id] = elementPointer
            names[name] = elementPointer
            rooms.append(Room(id: id, name: name))
        }
        return rooms
    }

    private func decodeDevices(_ elements: [JSONValue], at pointer: String, rooms: [Room]) -> [HomeDescription.Device] {
        var devices: [HomeDescription.Device] = []
        var ids: [String: String] = [:]
        for (index, element) in elements.enumerated() {
            let elementPointer = JSONPointer.appending(index, to: pointer)
            guard let reader = collector.object(element, at: elementPointer, what: "a device") else { continue }
            let id = reader.nonEmptyString("id", required: true)
            let name = reader.nonEmptyString("name", required: true)
            let room = roomName(reader, "room", rooms: rooms)
            let vendorID = boundedInt(reader, "vendorID", required: true, 0...0xFFFF)
            let productID = boundedInt(reader, "productID", required: true, 0...0xFFFF)
            let vendorName = reader.nonEmptyString("vendorName")
            let productName = reader.nonEmptyString("productName")
            let softwareVersion = boundedInt(reader, "softwareVersion", 0...Int(UInt32.max))
            let payloadKey = reader.nonEmptyString("payloadKey")
            reader.finish()
            guard let id, let name, let vendorID, let productID,
                isFirstUse(
                    of: id, in: ids, at: reader.pointer("id"), HomeDiagnosticCode.duplicateID, "device ID",
                    advice: "give each device its own ID")
            else { continue }
            ids[id] = elementPointer
            devices.append(
                HomeDescription.Device(
                    id: id, name: name, room: room ?? nil, vendorID: vendorID, productID: productID,
                    vendorName: vendorName ?? ProductNames.vendorName(vendorID: vendorID),
                    productName: productName ?? ProductNames.productName(productID: productID),
                    softwareVersion: softwareVersion ?? 1, payloadKey: payloadKey))
        }
        return devices
    }

    private func decodeSimulation(_ reader: ObjectReader) -> HomeDescription.Simulation {
        var simulation = HomeDescription.Simulation()
        if let latencies = reader.object("latencySeconds") {
            let names = SimulatedOperation.allCases.map(\.rawValue)
            for key in latencies.object.keys {
                guard let operation = SimulatedOperation(rawValue: key) else {
                    latencies.allow(key)
                    let hint = SpellingSuggestion.hint(for: key, among: names)
                    collector.error(
                        DiagnosticCode.unknownKey, at: latencies.pointer(key), atKey: true,
                        "unknown operation \"\(key)\"\(hint)" + (hint.isEmpty ? " (operations: \(names.joined(separator: ", ")))" : ""))
                    continue
                }
                if let seconds = latencies.number(key, in: NumberLimits.elapsed) {
                    simulation.latencySeconds[operation] = seconds
                }
            }
            latencies.finish()
        }
        simulation.sessionLeaseSeconds = reader.number("sessionLeaseSeconds", in: NumberLimits.duration)
        var products: [String: String] = [:]
        for (index, element) in (reader.array("bridges") ?? []).enumerated() {
            let pointer = JSONPointer.appending(index, to: reader.pointer("bridges"))
            guard let bridge = collector.object(element, at: pointer, what: "a bridge") else { continue }
            let vendorID = boundedInt(bridge, "vendorID", required: true, 0...0xFFFF)
            let productID = boundedInt(bridge, "productID", required: true, 0...0xFFFF)
            let count = boundedInt(bridge, "bridgedDevices", required: true, 1...256)
            bridge.finish()
            guard let vendorID, let productID, let count else { continue }
            // The product makes a commissioned device a bridge: a second entry for it could only be ignored.
            let product = "vendorID \(vendorID), productID \(productID)"
            guard
                isFirstUse(
                    of: product, in: products, at: pointer, HomeDiagnosticCode.duplicateID, "bridge product",
                    advice: "give each product one entry, with the bridged devices it brings")
            else { continue }
            products[product] = pointer
            simulation.bridges.append(HomeDescription.Bridge(vendorID: vendorID, productID: productID, bridgedDevices: count))
        }
        reader.finish()
        return simulation
    }

    /// Whether no earlier element of an array has `value`; otherwise reports `code` at `pointer`, naming the
    /// element that has it.
    ///
    /// - Parameters:
    ///   - used: The values of the earlier elements, each with the pointer of the element that has it.
    ///   - what: What the value is, for the message: `"room ID"`.
    ///   - advice: How to fix the file, for the message.
    private func isFirstUse(
        of value: String, in used: [String: String], at pointer: String, _ code: String, _ what: String,
        advice: String
    ) -> Bool {
        guard let first = used[value] else { return true }
        collector.error(code, at: pointer, "\(what) \"\(value)\" is already used by \(first); \(advice)")
        return false
    }

    // MARK: - Typed helpers

    func boundedInt(_ reader: ObjectReader, _ key: String, required: Bool = false, _ range: ClosedRange<Int>) -> Int? {
        reader.int(key, in: NumberRange(integers: range), required: required)
    }

    /// An optional room name (absent or null: none). Returns `.some(nil)` for no room, nil when invalid.
    func roomName(_ reader: ObjectReader, _ key: String, rooms: [Room]) -> String?? {
        guard let value = reader.value(key), !value.isNull else { return .some(nil) }
        guard let name = reader.string(key) else { return nil }
        guard rooms.contains(where: { $0.name == name }) else {
            collector.error(
                HomeDiagnosticCode.unknownRoom, at: reader.pointer(key),
                "no room named \"\(name)\"\(HomeDescription.unknownRoomAdvice(name, among: rooms))")
            return nil
        }
        return .some(name)
    }
}
