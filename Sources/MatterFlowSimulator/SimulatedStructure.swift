import MatterFlow
import MatterFlowJSON

/// The live state of one simulated structure and the hub's rules for it, without timing, faults or persistence
/// (``SimulatedHub`` adds those). Every change goes through ``CommissioningSession``; a method that throws leaves
/// the value as it found it when the caller discards the copy it was mutating, which the hub always does.
struct SimulatedStructure: Sendable, Hashable {
    /// The home without its session (``session`` is the truth for that).
    var home: HomeDescription
    var session: CommissioningSession
    /// The run that opened the active session, when the call said (see `SimulatedStructure+Lease.swift`).
    var sessionOwner: String?
    /// When the active session was opened, in hub time (seconds since the Unix epoch); nil for a session restored
    /// from a home that does not say.
    var sessionOpenedAt: Double?
    /// When the active session's lease runs out, in hub time (seconds since the Unix epoch).
    var leaseExpiresAt: Double?
    /// The lease was started when the session was loaded without one (a hand-written home): it is not saved.
    var leaseStartedOnLoad = false

    /// Restores a structure, replaying an active session from its snapshot.
    init(_ description: HomeDescription) throws(FlowError) {
        home = description
        home.activeSession = nil
        if let snapshot = description.activeSession {
            session = try CommissioningSession(restoring: snapshot)
            sessionOwner = snapshot.owner
            sessionOpenedAt = snapshot.openedAt
            leaseExpiresAt = snapshot.leaseExpiresAt
        } else {
            session = CommissioningSession()
        }
    }

    /// The structure as a home description, with its session when one is active.
    var description: HomeDescription {
        var copy = home
        if session.isActive {
            var snapshot = session.snapshot
            snapshot.owner = sessionOwner
            snapshot.openedAt = sessionOpenedAt
            snapshot.leaseExpiresAt = leaseStartedOnLoad ? nil : leaseExpiresAt
            copy.activeSession = snapshot
        }
        return copy
    }

    private var name: String { "\"\(home.structure.name)\"" }

    var status: HubStatus {
        HubStatus(
            online: home.hub.online, reachable: home.hub.reachable, permissionGranted: home.permissionGranted,
            activeSession: session.isActive, holder: holder)
    }

    /// Who holds the active session, as `status` and a refused `prepare` tell it; nil when none is active.
    var holder: SessionHolder? {
        guard session.isActive else { return nil }
        return SessionHolder(
            sessionID: session.sessionID, owner: sessionOwner, commissioningID: session.commissioningID, openedAt: sessionOpenedAt)
    }

    // MARK: - Connectivity

    // Every hub operation but `readHubStatus` needs the hub online and reachable, and fails with `hubOffline` or
    // `hubUnreachable` otherwise: a hub that cannot be reached does nothing. The status read keeps answering (with
    // `online` / `reachable` false): it is how guards and workflows learn that the hub is down.

    func requireOnline() throws(FlowError) {
        guard home.hub.online else {
            throw FlowError(.hubOffline, "the hub of \(name) is offline; check its power and network, then try again")
        }
    }

    func requireReachable() throws(FlowError) {
        try requireOnline()
        guard home.hub.reachable else {
            throw FlowError(
                .hubUnreachable,
                "the hub of \(name) is online but cannot be reached from here; check that this device is on the hub's network")
        }
    }

    // MARK: - Commissioning

    /// Opens a session for run `runID` (when the call names one), or says who holds the one open.
    mutating func prepare(for runID: String?) throws(FlowError) -> String {
        guard home.permissionGranted else {
            throw FlowError(
                .permissionNotGranted,
                "the user has not granted this app access to \(name); ask them to grant it in the app, then try again")
        }
        try requireReachable()
        // Refused here rather than by the session machine, which does not know who holds the session.
        if let holder { throw FlowError.sessionBusy(phase: session.phase, heldBy: holder, refusing: runID) }
        let id = issueID(prefix: "session")
        try session.prepare(sessionID: id)
        return id
    }

    mutating func createRequest(topology: Topology) throws(FlowError) -> AddDeviceRequest {
        try requireReachable()
        var resolved = topology
        if resolved.homes.isEmpty { resolved.homes = [home.structure.name] }
        // The session's refusal comes first; a request with no ID yet stands for the one to be made.
        let unissued = AddDeviceRequest(requestID: "", topology: resolved)
        var trial = session
        let recorded = try trial.request(unissued)
        guard !topology.ecosystemName.allSatisfy(\.isWhitespace) else {
            throw FlowError(
                .invalidArgumentValue,
                "\"ecosystemName\" must not be empty; it is shown to the user (for example \"Google Home\")")
        }
        guard !resolved.homes.contains(where: { $0.allSatisfy(\.isWhitespace) }) else {
            throw FlowError(.invalidArgumentValue, "\"homes\" must not contain an empty name")
        }
        // The same request again finds the one made, under its ID: an idempotent write answers as it did.
        guard recorded == unissued else { return recorded }
        let made = AddDeviceRequest(requestID: issueID(prefix: "request"), topology: resolved)
        try session.request(made)
        return made
    }

    /// What a `commissionDevice` call finds when it starts.
    enum CommissioningStart: Equatable {
        /// The attempt began: the session is `commissioning` it, in the session with this ID.
        case began(sessionID: String?)
        /// The call repeats the attempt that commissioned the session's pending device (its reply was lost): the
        /// hub answers as it answered that attempt, and commissions nothing more.
        case alreadyCommissioned
    }

    /// Starts the attempt `commissioningID` of the device `deviceKey` (nil for a payload that does not decode), or
    /// finds it finished.
    mutating func beginCommissioning(commissioningID: String, deviceKey: String?) throws(FlowError) -> CommissioningStart {
        try requireReachable()
        if session.phase == .commissioned || session.phase == .configured, session.commissioningID == commissioningID, let deviceKey {
            let pending = session.pendingDeviceIDs
            guard home.devices.contains(where: { pending.contains($0.id) && $0.payloadKey == deviceKey }) else {
                throw FlowError(
                    .sessionOutOfOrder,
                    "commissioning attempt \"\(commissioningID)\" already commissioned another device in this session; a repeated attempt carries the same onboarding payload, and a new device needs a new session")
            }
            return .alreadyCommissioned
        }
        try session.beginCommissioning(commissioningID: commissioningID)
        return .began(sessionID: session.sessionID)
    }

    /// Whether the session is still the commissioning attempt that began with these identifiers.
    func isCommissioning(sessionID: String?, commissioningID: String) -> Bool {
        session.phase == .commissioning && session.sessionID == sessionID && session.commissioningID == commissioningID
    }

    /// The device joined: creates it (and any devices behind a bridge) as pending devices of the session.
    mutating func finishCommissioning(
        identity: PayloadIdentity, sessionID: String?, commissioningID: String
    ) throws(FlowError) -> [String] {
        guard isCommissioning(sessionID: sessionID, commissioningID: commissioningID) else {
            if session.phase == .expired {
                throw FlowError(
                    .sessionExpired,
                    "the commissioning session's lease ran out while the device was being commissioned, so the device was not added; run prepare again")
            }
            if !session.isActive {
                throw FlowError(
                    .noActiveSession,
                    "the commissioning session was \(session.phase.rawValue) while the device was being commissioned")
            }
            throw FlowError(
                .sessionOutOfOrder,
                "the commissioning session changed (it is now \(session.phase.rawValue)) while the device was being commissioned")
        }
        if let existing = home.devices.first(where: { $0.payloadKey == identity.deviceKey }) {
            throw FlowError(
                .deviceAlreadyCommissioned,
                "this device is already in \(name) as \"\(existing.name)\" (\(existing.id)); remove it first, or commission another device")
        }
        let vendorName = ProductNames.vendorName(vendorID: identity.vendorID)
        let productName = ProductNames.productName(productID: identity.productID)
        func device(_ name: String, key: String?) -> HomeDescription.Device {
            HomeDescription.Device(
                id: issueID(prefix: "device"), name: name, vendorID: identity.vendorID, productID: identity.productID,
                vendorName: vendorName, productName: productName, softwareVersion: 1, payloadKey: key)
        }
        var created = [device(productName, key: identity.deviceKey)]
        if let bridge = home.simulation.bridges.first(where: {
            $0.vendorID == identity.vendorID && $0.productID == identity.productID
        }) {
            for index in 1...max(1, bridge.bridgedDevices) {
                created.append(device(ProductNames.bridgedDeviceName(productName: productName, index: index), key: nil))
            }
        }
        let ids = created.map(\.id)
        try session.finishCommissioning(deviceIDs: ids)
        home.devices += created
        return ids
    }

    /// Returns a failed attempt's session to `requested`, if the session is still that attempt's.
    mutating func failCommissioning(sessionID: String?, commissioningID: String) {
        guard isCommissioning(sessionID: sessionID, commissioningID: commissioningID) else { return }
        try? session.failCommissioning()
    }

    func rooms() throws(FlowError) -> [Room] {
        try requireReachable()
        return home.rooms
    }

    mutating func configure(name deviceName: String, roomName: String?) throws(FlowError) {
        try requireReachable()
        var trial = session
        try trial.configure(name: deviceName, roomName: roomName)
        guard !deviceName.allSatisfy(\.isWhitespace) else {
            throw FlowError(.invalidArgumentValue, "the device name must not be empty")
        }
        // What a device's NodeLabel holds: at most 32 bytes of UTF-8, no control characters.
        guard deviceName.utf8.count <= OperationCatalog.deviceNameMaxBytes else {
            throw FlowError(
                .invalidArgumentValue,
                "the device name takes \(deviceName.utf8.count) bytes of UTF-8; a Matter device's name (its NodeLabel) takes at most \(OperationCatalog.deviceNameMaxBytes)")
        }
        guard !deviceName.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw FlowError(
                .invalidArgumentValue,
                "the device name holds a control character (a line break, tab or escape); remove it (a line read from a file with CRLF endings keeps its CR)")
        }
        // The room as the home spells it: a name typed with other code points for the same text finds it.
        var room: Room?
        if let roomName {
            room = home.room(named: roomName)
            if room == nil {
                throw FlowError(
                    .roomNotFound, "\(name) has no room named \"\(roomName)\"\(HomeDescription.unknownRoomAdvice(roomName, among: home.rooms))")
            }
        }
        session = trial
        let pending = session.pendingDeviceIDs
        for index in home.devices.indices where pending.contains(home.devices[index].id) {
            if home.devices[index].id == pending.first { home.devices[index].name = deviceName }
            home.devices[index].room = room?.name
        }
    }

    mutating func complete() throws(FlowError) -> [String] {
        try requireReachable()
        return try session.complete().sorted()
    }

    /// Cancels the active session and removes its pending devices; false when no session was active.
    /// - Throws: `hubOffline` / `hubUnreachable`: a hub that cannot be reached cannot release anything, so the
    ///   session stays active until the hub comes back and is asked again, or until its lease runs out.
    mutating func cancel() throws(FlowError) -> Bool {
        try requireReachable()
        guard let removed = session.cancel() else { return false }
        home.devices.removeAll { removed.contains($0.id) }
        return true
    }

    func basicInformation(deviceID: String) throws(FlowError) -> BasicInformation {
        try requireReachable()
        guard let device = home.device(id: deviceID) else {
            let hint = SpellingSuggestion.hint(for: deviceID, among: home.devices.map(\.id))
            throw FlowError(.deviceNotFound, "\(name) has no device with ID \"\(deviceID)\"\(hint)")
        }
        return device.basicInformation
    }

    // MARK: - Identifiers

    /// The next identifier for the seed, skipping any already used by a device or the session.
    private mutating func issueID(prefix: String) -> String {
        while true {
            let id = StableIdentifiers.make(prefix: prefix, seed: home.seed, counter: home.issuedIDs)
            // The counter starts again from 0 after its documented maximum; identifiers in use are skipped.
            home.issuedIDs = home.issuedIDs >= NumberRange.largestExactInteger || home.issuedIDs < 0 ? 0 : home.issuedIDs + 1
            if home.device(id: id) == nil && session.sessionID != id { return id }
        }
    }
}
