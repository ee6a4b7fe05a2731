import MatterFlowJSON

/// Why a border router's ePSKc mode ended: the values of the `epskcModeDeactivated` event
/// (`EpskcModeDeactivationReason` in the Home APIs).
public enum EpskcDeactivationReason: String, Sendable, Hashable, CaseIterable {
    /// A commissioner connected with the key and its session ended: the key is single-use.
    case keyUsed
    /// The key's valid duration ran out (ending a connected commissioner's session, if any).
    case expired
    /// The key was withdrawn before it was used or expired: deactivated by an app, ePSKc disabled, or too many
    /// wrong keys (see ``EpskcDeactivationDetail/tooManyFailedAttempts``).
    case cancelled
}

/// The finer reason behind an ePSKc deactivation (the event's `detail`), after OpenThread's deactivation reasons.
public enum EpskcDeactivationDetail: String, Sendable, Hashable, CaseIterable {
    /// keyUsed: the commissioner's petition was accepted and it finished (OpenThread: peer disconnect after
    /// Accepted).
    case commissionerFinished
    /// keyUsed: a commissioner connected with the key and left before its petition was accepted; the key is spent
    /// all the same (OpenThread: peer disconnect after Connected).
    case commissionerDisconnected
    /// expired: no commissioner was connected when the key expired.
    case timeout
    /// expired: the key expired while a commissioner was connected, and its session was ended with it.
    case timeoutEndedSession
    /// cancelled: an app deactivated ePSKc mode (`deactivateEpskc`).
    case deactivated
    /// cancelled: ePSKc was disabled on the border router while a key was active.
    case disabled
    /// cancelled: the tenth wrong key made the border router withdraw the key (OpenThread
    /// `kReasonMaxFailedAttempts`). Reported as `cancelled` because the Home APIs' reasons have no value of their
    /// own for it, and neither `keyUsed` (no commissioner ever got in) nor `expired` (time had not run out) is true.
    case tooManyFailedAttempts

    /// The reason this detail belongs to.
    public var reason: EpskcDeactivationReason {
        switch self {
        case .commissionerFinished, .commissionerDisconnected: .keyUsed
        case .timeout, .timeoutEndedSession: .expired
        case .deactivated, .disabled, .tooManyFailedAttempts: .cancelled
        }
    }
}

/// How an ePSKc session ended, as its state machine reports it.
public struct EpskcDeactivation: Sendable, Hashable {
    /// What ended it, finely.
    public var detail: EpskcDeactivationDetail
    /// Wrong keys tried while the key was active.
    public var failedAttempts: Int

    /// The reason the event carries.
    public var reason: EpskcDeactivationReason { detail.reason }

    /// A deactivation.
    public init(detail: EpskcDeactivationDetail, failedAttempts: Int) {
        self.detail = detail
        self.failedAttempts = failedAttempts
    }
}

/// An `epskcModeDeactivated` event: a border router's ePSKc mode ended, with its reason and when.
///
/// Hubs report it as a ``HubEvent`` (which wait states wait for); ``Hub/epskcModeDeactivatedEvents(structure:)``
/// turns those into a stream of these.
public struct EpskcModeDeactivatedEvent: Sendable, Hashable {
    /// The event's name in the catalog.
    public static let name = "epskcModeDeactivated"

    /// The border router.
    public var deviceID: String
    /// Why the mode ended.
    public var reason: EpskcDeactivationReason
    /// More about the reason.
    public var detail: EpskcDeactivationDetail
    /// Wrong keys tried while the key was active.
    public var failedAttempts: Int
    /// When it happened, on the hub's clock.
    public var time: Duration

    /// An event.
    public init(deviceID: String, deactivation: EpskcDeactivation, time: Duration) {
        self.deviceID = deviceID
        self.reason = deactivation.reason
        self.detail = deactivation.detail
        self.failedAttempts = deactivation.failedAttempts
        self.time = time
    }

    /// Reads the event back from a hub event; nil for any other event or a payload that does not fit.
    public init?(_ event: HubEvent) {
        guard event.name == Self.name, let reason = EpskcDeactivationReason(rawValue: event.value),
            let deviceID = event.fields["deviceID"]?.stringValue,
            let detail = event.fields["detail"]?.stringValue.flatMap(EpskcDeactivationDetail.init(rawValue:)),
            detail.reason == reason
        else { return nil }
        self.deviceID = deviceID
        self.reason = reason
        self.detail = detail
        self.failedAttempts = event.fields["failedAttempts"]?.intValue ?? 0
        self.time = event.time
    }

    /// The event as hubs deliver it to subscribers (and wait states see it).
    public func hubEvent(structure: StructureID) -> HubEvent {
        HubEvent(
            name: Self.name, structureID: structure, value: reason.rawValue,
            fields: [
                "deviceID": .string(deviceID), "reason": .string(reason.rawValue), "detail": .string(detail.rawValue),
                "failedAttempts": .int(failedAttempts),
            ],
            time: time)
    }
}
