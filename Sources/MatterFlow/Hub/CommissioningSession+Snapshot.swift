/// A plain, storable copy of a ``CommissioningSession`` for persisted hub state.
public struct CommissioningSessionSnapshot: Sendable, Hashable {
    /// The session's state.
    public var phase: CommissioningSession.Phase
    /// The open or last session's identifier; nil only when `idle`.
    public var sessionID: String?
    /// The add-device request's topology, in the `requested` to `configured` phases.
    public var topology: Topology?
    /// The add-device request's ID as the hub issued it, in the `requested` to `configured` phases; restoring a
    /// snapshot without one gives the request the session's ID.
    public var requestID: String?
    /// The commissioning attempt in progress (`commissioning`), or the one that commissioned the pending devices
    /// (`commissioned`, `configured`).
    public var commissioningID: String?
    /// Devices commissioned and not yet completed, in the `commissioned` and `configured` phases.
    public var deviceIDs: [String]
    /// The device's chosen name, in the `configured` phase.
    public var deviceName: String?
    /// The device's chosen room, in the `configured` phase; nil also when no room was chosen.
    public var roomName: String?
    /// Who opened the session, when the hub knows (the run ID from ``HubCallContext``); recovery uses it to tell a
    /// run's own session from another client's. Hub bookkeeping: not part of the state machine.
    public var owner: String?
    /// When the hub's lease on the session runs out, in seconds since the Unix epoch on the hub's clock; nil when
    /// the hub does not track it. Hub bookkeeping: not part of the state machine (see ``SessionLease``).
    public var leaseExpiresAt: Double?
    /// When the session was opened, in seconds since the Unix epoch on the hub's clock; nil when the hub does not
    /// track it. Hub bookkeeping, told to whoever finds the structure busy (``SessionHolder/openedAt``).
    public var openedAt: Double?

    /// A snapshot in `phase`; ``CommissioningSession/init(restoring:)`` throws unless it holds what that phase needs.
    public init(
        phase: CommissioningSession.Phase, sessionID: String? = nil, topology: Topology? = nil, requestID: String? = nil,
        commissioningID: String? = nil, deviceIDs: [String] = [], deviceName: String? = nil, roomName: String? = nil
    ) {
        self.phase = phase
        self.sessionID = sessionID
        self.topology = topology
        self.requestID = requestID
        self.commissioningID = commissioningID
        self.deviceIDs = deviceIDs
        self.deviceName = deviceName
        self.roomName = roomName
    }
}

extension CommissioningSession {
    /// A storable copy of the session.
    public var snapshot: CommissioningSessionSnapshot {
        var copy = CommissioningSessionSnapshot(phase: phase, sessionID: sessionID, topology: topology)
        copy.requestID = addDeviceRequest?.requestID
        copy.deviceIDs = pendingDeviceIDs
        copy.commissioningID = commissioningID
        copy.deviceName = configuration?.name
        copy.roomName = configuration?.roomName
        return copy
    }

    /// Rebuilds a session from a snapshot by replaying its events, so a restored session obeys the same rules.
    /// - Throws: ``FlowError`` (`invalidArgumentValue`) when the snapshot lacks what its phase needs.
    public init(restoring snapshot: CommissioningSessionSnapshot) throws(FlowError) {
        self.init()
        func require<T>(_ value: T?, _ field: String) throws(FlowError) -> T {
            guard let value else {
                throw FlowError(
                    .invalidArgumentValue,
                    "a session in phase \(snapshot.phase.rawValue) needs \"\(field)\"")
            }
            return value
        }
        let phase = snapshot.phase
        if phase == .idle { return }
        let id = try require(snapshot.sessionID, "id")
        try prepare(sessionID: id)
        switch phase {
        case .idle, .prepared:
            return
        case .cancelled:
            _ = cancel()
            return
        case .expired:
            _ = expire()
            return
        case .completed:
            // A completed session keeps only its device list; rebuild it through the normal path.
            try request(
                AddDeviceRequest(
                    requestID: snapshot.requestID ?? id, topology: snapshot.topology ?? Topology(ecosystemName: "", homes: [])))
            try beginCommissioning(commissioningID: snapshot.commissioningID ?? id)
            try finishCommissioning(deviceIDs: snapshot.deviceIDs)
            _ = try complete()
            return
        case .requested, .commissioning, .commissioned, .configured:
            try request(AddDeviceRequest(requestID: snapshot.requestID ?? id, topology: try require(snapshot.topology, "topology")))
        }
        if phase == .requested { return }
        try beginCommissioning(commissioningID: snapshot.commissioningID ?? id)
        if phase == .commissioning { return }
        try finishCommissioning(deviceIDs: snapshot.deviceIDs)
        if phase == .commissioned { return }
        try configure(name: try require(snapshot.deviceName, "deviceName"), roomName: snapshot.roomName)
    }
}
