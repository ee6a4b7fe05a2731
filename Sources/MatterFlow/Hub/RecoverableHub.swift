/// A hub that can tell recovery what it holds for a structure's commissioning session.
///
/// Recovery of an interrupted run never retries blindly: it reads the hub's state to decide whether a call whose
/// outcome was never recorded took effect, and releases a session only when it belongs to that run. A hub that
/// does not conform still recovers, but recovery then cannot tell an in-doubt `prepareCommissioning`'s session
/// from another client's and leaves it to the session lease.
public protocol RecoverableHub: Hub {
    /// The structure's active commissioning session, or nil when none is active. Does not renew its lease.
    func activeSession(structure: StructureID) async throws -> HubSessionInfo?
}

extension Hub {
    /// The hub itself when it is a ``RecoverableHub``; nil otherwise.
    public var sessionReader: (any RecoverableHub)? { self as? any RecoverableHub }
}

/// An active commissioning session as its hub reports it to recovery.
public struct HubSessionInfo: Sendable, Hashable {
    /// The session's identifier, as `prepareCommissioning` returned it.
    public var sessionID: String
    /// The phase the session is in (an active one).
    public var phase: CommissioningSession.Phase
    /// The run that opened it (``HubCallContext/runID``), when known.
    public var owner: String?
    /// Devices commissioned in the session and not completed yet.
    public var pendingDeviceIDs: [String]
    /// The attempt in progress while `commissioning`, or the one whose devices are pending (`commissioned`,
    /// `configured`), when the hub says.
    public var commissioningID: String?
    /// The chosen device name once `configured`.
    public var deviceName: String?

    /// A session as the hub reports it; `owner` is nil when the hub does not know who opened it.
    public init(
        sessionID: String, phase: CommissioningSession.Phase, owner: String?, pendingDeviceIDs: [String],
        commissioningID: String? = nil, deviceName: String? = nil
    ) {
        self.sessionID = sessionID
        self.phase = phase
        self.owner = owner
        self.pendingDeviceIDs = pendingDeviceIDs
        self.commissioningID = commissioningID
        self.deviceName = deviceName
    }

    /// Whether this session is run `runID`'s. The owner the hub names decides, as a session ID can repeat (a home
    /// whose state was reset issues the same IDs again, and another run may hold one now); only for a hub that names
    /// no owner does a session ID the run is known to have opened (`openedIDs`) say so. Without either: not the run's.
    public func belongs(to runID: String, openedIDs: some Collection<String> = [String]()) -> Bool {
        if let owner { return owner == runID }
        return openedIDs.contains(sessionID)
    }
}
