/// The hub-side commissioning session of one structure, as an explicit state machine.
///
/// ```
///            prepare            request             beginCommissioning
///   idle ───────────▶ prepared ────────▶ requested ───────────────────▶ commissioning
///    ▲                                       ▲   failCommissioning           │ finishCommissioning
///    │                                       └──────────────────────────────┤
///    │                                                                       ▼
///    │  (prepare again)     complete                 configure          commissioned ──▶ configured
///  completed / cancelled ◀──────────── commissioned | configured ◀────────────────────┘   (configure again)
///                         ◀── cancel, from any active state
///  expired                ◀── expire (the hub's lease ran out), from any active state
/// ```
/// `completed`, `cancelled`, `expired` and `idle` hold no session: a new `prepare` may start one. Every other state is
/// *active* and blocks another `prepare` with `sessionBusy`. An event that is not allowed in the current state
/// throws ``FlowError`` with cause `sessionOutOfOrder` (or `noActiveSession`) naming the state and the event, and
/// leaves the state unchanged; after `expire`, every session event but `prepare` fails with `sessionExpired`.
public struct CommissioningSession: Sendable, Hashable {
    /// The session's states, named for display and persistence.
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        case idle, prepared, requested, commissioning, commissioned, configured, completed, cancelled, expired
    }

    private enum State: Sendable, Hashable {
        case idle
        case prepared(sessionID: String)
        case requested(sessionID: String, request: AddDeviceRequest)
        case commissioning(sessionID: String, request: AddDeviceRequest, commissioningID: String)
        /// `commissioningID`: the attempt that commissioned the pending devices, by which a repeat of it is known.
        case commissioned(sessionID: String, request: AddDeviceRequest, commissioningID: String, deviceIDs: [String])
        case configured(
            sessionID: String, request: AddDeviceRequest, commissioningID: String, deviceIDs: [String], name: String, roomName: String?)
        case completed(sessionID: String, deviceIDs: [String])
        case cancelled(sessionID: String)
        case expired(sessionID: String, phase: Phase)
    }

    private var state: State

    /// A structure with no session.
    public init() { state = .idle }

    /// The current phase.
    public var phase: Phase {
        switch state {
        case .idle: .idle
        case .prepared: .prepared
        case .requested: .requested
        case .commissioning: .commissioning
        case .commissioned: .commissioned
        case .configured: .configured
        case .completed: .completed
        case .cancelled: .cancelled
        case .expired: .expired
        }
    }

    /// Whether a session is open (and blocks another `prepare`).
    public var isActive: Bool {
        switch state {
        case .idle, .completed, .cancelled, .expired: false
        case .prepared, .requested, .commissioning, .commissioned, .configured: true
        }
    }

    /// The open or last session's identifier.
    public var sessionID: String? {
        switch state {
        case .idle: nil
        case .prepared(let id), .requested(let id, _), .commissioning(let id, _, _), .commissioned(let id, _, _, _),
            .configured(let id, _, _, _, _, _), .completed(let id, _), .cancelled(let id), .expired(let id, _):
            id
        }
    }

    /// Devices commissioned in this session and not yet completed (what a cancel undoes).
    public var pendingDeviceIDs: [String] {
        switch state {
        case .commissioned(_, _, _, let ids), .configured(_, _, _, let ids, _, _): ids
        case .idle, .prepared, .requested, .commissioning, .completed, .cancelled, .expired: []
        }
    }

    /// The add-device request, once made: the hub's ID for it and its topology.
    public var addDeviceRequest: AddDeviceRequest? {
        switch state {
        case .requested(_, let request), .commissioning(_, let request, _), .commissioned(_, let request, _, _),
            .configured(_, let request, _, _, _, _):
            request
        case .idle, .prepared, .completed, .cancelled, .expired: nil
        }
    }

    /// The request's topology, once requested.
    public var topology: Topology? { addDeviceRequest?.topology }

    /// The commissioning attempt in progress, or the one that commissioned the pending devices.
    public var commissioningID: String? {
        switch state {
        case .commissioning(_, _, let id), .commissioned(_, _, let id, _), .configured(_, _, let id, _, _, _): id
        case .idle, .prepared, .requested, .completed, .cancelled, .expired: nil
        }
    }

    /// The chosen device name and room, once configured.
    public var configuration: (name: String, roomName: String?)? {
        if case .configured(_, _, _, _, let name, let roomName) = state { return (name, roomName) }
        return nil
    }

    private func outOfOrder(_ event: String) -> FlowError {
        if case .expired(let id, let phase) = state {
            return FlowError(
                .sessionExpired,
                "\(event) is not allowed: the commissioning session \(id) expired while \(phase.rawValue) because its lease ran out without activity (its pending devices were removed); run prepare again")
        }
        if isActive {
            return FlowError(
                .sessionOutOfOrder,
                "\(event) is not allowed while the commissioning session is \(phase.rawValue)")
        }
        return FlowError(
            .noActiveSession,
            "\(event) needs an active commissioning session, but the structure's session is \(phase.rawValue); run prepare first")
    }

    /// Opens a session. Fails with `sessionBusy` while another is active.
    public mutating func prepare(sessionID: String) throws(FlowError) {
        switch state {
        case .idle, .completed, .cancelled, .expired:
            state = .prepared(sessionID: sessionID)
        case .prepared, .requested, .commissioning, .commissioned, .configured:
            throw FlowError.sessionBusy(phase: phase, heldBy: SessionHolder(sessionID: self.sessionID, commissioningID: commissioningID))
        }
    }

    /// Records the add-device request, and returns the request the session holds: `request`, or the one made before
    /// when the same topology is requested again (a retry after a timeout finds its idempotent write made).
    @discardableResult
    public mutating func request(_ request: AddDeviceRequest) throws(FlowError) -> AddDeviceRequest {
        switch state {
        case .prepared(let id):
            state = .requested(sessionID: id, request: request)
            return request
        case .requested(_, let recorded) where recorded.topology == request.topology:
            return recorded
        case .idle, .requested, .commissioning, .commissioned, .configured, .completed, .cancelled, .expired:
            throw outOfOrder("request")
        }
    }

    /// Starts commissioning a device for the request.
    public mutating func beginCommissioning(commissioningID: String) throws(FlowError) {
        switch state {
        case .requested(let id, let request):
            state = .commissioning(sessionID: id, request: request, commissioningID: commissioningID)
        case .idle, .prepared, .commissioning, .commissioned, .configured, .completed, .cancelled, .expired:
            throw outOfOrder("commission")
        }
    }

    /// The device joined: it (and, for a bridge, its bridged devices) now exist, pending completion.
    public mutating func finishCommissioning(deviceIDs: [String]) throws(FlowError) {
        switch state {
        case .commissioning(let id, let request, let attempt):
            state = .commissioned(sessionID: id, request: request, commissioningID: attempt, deviceIDs: deviceIDs)
        case .idle, .prepared, .requested, .commissioned, .configured, .completed, .cancelled, .expired:
            throw outOfOrder("finishCommissioning")
        }
    }

    /// Commissioning the device failed; the request stands, so commissioning may be tried again or cancelled.
    public mutating func failCommissioning() throws(FlowError) {
        switch state {
        case .commissioning(let id, let request, _):
            state = .requested(sessionID: id, request: request)
        case .idle, .prepared, .requested, .commissioned, .configured, .completed, .cancelled, .expired:
            throw outOfOrder("failCommissioning")
        }
    }

    /// Names the device and places it in a room; allowed again to change the choice.
    public mutating func configure(name: String, roomName: String?) throws(FlowError) {
        switch state {
        case .commissioned(let id, let request, let attempt, let ids), .configured(let id, let request, let attempt, let ids, _, _):
            state = .configured(
                sessionID: id, request: request, commissioningID: attempt, deviceIDs: ids, name: name, roomName: roomName)
        case .idle, .prepared, .requested, .commissioning, .completed, .cancelled, .expired:
            throw outOfOrder("configure")
        }
    }

    /// Completes the session and returns the commissioned device IDs.
    public mutating func complete() throws(FlowError) -> [String] {
        switch state {
        case .commissioned(let id, _, _, let ids), .configured(let id, _, _, let ids, _, _):
            state = .completed(sessionID: id, deviceIDs: ids)
            return ids
        case .idle, .prepared, .requested, .commissioning, .completed, .cancelled, .expired:
            throw outOfOrder("complete")
        }
    }

    /// Cancels the active session. Returns the devices to remove (commissioned but not completed), or nil when
    /// there was no active session (cancel is then a harmless no-op, as the platform's cancel never throws).
    public mutating func cancel() -> [String]? {
        switch state {
        case .prepared(let id), .requested(let id, _), .commissioning(let id, _, _):
            state = .cancelled(sessionID: id)
            return []
        case .commissioned(let id, _, _, let ids), .configured(let id, _, _, let ids, _, _):
            state = .cancelled(sessionID: id)
            return ids
        case .idle, .completed, .cancelled, .expired:
            return nil
        }
    }

    /// The hub's lease on the active session ran out: the session ends as `expired`, and its pending devices are
    /// to be removed, as for a cancel. Returns the transition's event, or nil when no session was active.
    public mutating func expire() -> SessionExpiry? {
        switch state {
        case .prepared(let id), .requested(let id, _), .commissioning(let id, _, _):
            let expiry = SessionExpiry(sessionID: id, phase: phase, releasedDeviceIDs: [])
            state = .expired(sessionID: id, phase: phase)
            return expiry
        case .commissioned(let id, _, _, let ids), .configured(let id, _, _, let ids, _, _):
            let expiry = SessionExpiry(sessionID: id, phase: phase, releasedDeviceIDs: ids)
            state = .expired(sessionID: id, phase: phase)
            return expiry
        case .idle, .completed, .cancelled, .expired:
            return nil
        }
    }
}
