import MatterFlowJSON

/// The lease a hub holds on an active commissioning session, in the spirit of Matter's fail-safe timer: a client
/// that vanishes cannot block its structure forever.
///
/// The lease starts when `prepare` opens the session and is renewed by every call that advances or changes it
/// (request, commission, configure). When it runs out, the hub takes the session machine's `expire` transition
/// (``CommissioningSession/expire()``): the session ends, its pending devices are removed, the hub reports a
/// ``SessionLease/expiredEventName`` event, and any further call on the session fails with `sessionExpired`.
public enum SessionLease {
    /// The documented default: five minutes, longer than any operation's default timeout (the longest,
    /// `commissionDevice`, is 120 s), so a working client never loses its session between two calls.
    public static let defaultDuration: Duration = .seconds(300)

    /// The name of the hub event reported when a session expires.
    public static let expiredEventName = "commissioningSessionExpired"
}

/// The event of the session machine's `expire` transition: which session ended, in which phase, and which pending
/// devices it took with it.
public struct SessionExpiry: Sendable, Hashable {
    /// The session that expired.
    public var sessionID: String
    /// The phase it was in when its lease ran out.
    public var phase: CommissioningSession.Phase
    /// Devices it had commissioned and not completed; the hub removes them, as for a cancel.
    public var releasedDeviceIDs: [String]

    /// The expiry of session `sessionID` in `phase`, taking `releasedDeviceIDs` with it.
    public init(sessionID: String, phase: CommissioningSession.Phase, releasedDeviceIDs: [String]) {
        self.sessionID = sessionID
        self.phase = phase
        self.releasedDeviceIDs = releasedDeviceIDs
    }

    /// The expiry as a hub event (value `leaseExpired`), for subscribers and wait states.
    public func hubEvent(structureID: StructureID, time: Duration) -> HubEvent {
        HubEvent(
            name: SessionLease.expiredEventName, structureID: structureID, value: "leaseExpired",
            fields: [
                "sessionID": .string(sessionID), "phase": .string(phase.rawValue),
                "releasedDeviceIDs": .array(releasedDeviceIDs.map(JSONValue.string)), "reason": "leaseExpired",
            ],
            time: time)
    }
}
