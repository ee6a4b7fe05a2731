/// One border router's ePSKc mode, as an explicit state machine after OpenThread's ephemeral-key manager
/// (`otBorderAgentEphemeralKeyState`).
///
/// ```
///              enable              activate            connect (issued key)
///   disabled ─────────▶ stopped ───────────▶ started ────────────────────────▶ connected
///       ▲    ◀───────── │  ▲ ▲                │  ▲ │                              │
///       │     disable   │  │ └────────────────┘  └─┘ wrong key (1st to 9th)     │ acceptPetition
///       │               │  │  deactivate, expire,                               ▼
///       │               │  │  10th wrong key                                accepted
///       │               │  └─── deactivate, expire, disconnect ◀──── connected or accepted
///       └── disable ────┴────── (from started, connected or accepted too)
/// ```
///
/// - `disabled`: the border router does not offer ePSKc (its `epskcSupported` capability is false).
/// - `stopped`: ePSKc is available and no key is active.
/// - `started`: a key is active and the border router listens for a commissioner.
/// - `connected`: a commissioner connected with the key (its DTLS session is up).
/// - `accepted`: the commissioner's petition was accepted: it is a full commissioner and may read the dataset.
///
/// Every state but `disabled` and `stopped` holds the active key (``ActiveKey``). The rules:
/// - ``activate(requestedDurationSeconds:key:at:)`` works only when `stopped`; while a key is active it is
///   refused with `epskcAlreadyActive` (OTBR's BUSY). The duration is 120 s when absent or 0, 1...600 s as asked,
///   and anything else is `invalidArgumentValue` (OTBR refuses what OpenThread's core would clamp).
/// - The key is single-use: when a connected commissioner leaves, the key is spent (`keyUsed`).
/// - Expiry ends the mode even when a commissioner is connected, and ends its session (`expired`).
/// - A wrong key counts as a failed attempt; the tenth withdraws the key (`cancelled`, detail
///   `tooManyFailedAttempts`). While a commissioner is connected, another one is refused and nothing is counted.
/// - ``deactivate()`` ends the mode at once, a connected commissioner included (`cancelled`).
///
/// An event that is not allowed in the current state throws a ``FlowError`` naming the state and the event and
/// leaves the state unchanged: `notSupported` while disabled, `epskcNotActive` while stopped,
/// `epskcAlreadyActive` for a second activation, `epskcOutOfOrder` otherwise. ``transitionTable`` lists every
/// event in every state, produced by running these methods.
public struct EpskcSession: Sendable, Hashable {
    /// The states, named as OpenThread names them.
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        case disabled, stopped, started, connected, accepted
    }

    /// The events, one method each (``connect(key:)`` is one method for both kinds of key).
    public enum Event: String, Sendable, Hashable, CaseIterable {
        case enable, disable, activate, deactivate, connectWithIssuedKey, connectWithWrongKey, acceptPetition, disconnect,
            expire
    }

    /// The default duration when none (or 0) is asked for (`OT_BORDER_AGENT_DEFAULT_EPHEMERAL_KEY_TIMEOUT`).
    public static let defaultDurationSeconds = 120
    /// The longest duration a key may be valid for (`OT_BORDER_AGENT_MAX_EPHEMERAL_KEY_TIMEOUT`).
    public static let maxDurationSeconds = 600
    /// Wrong keys that withdraw the key (OpenThread `kMaxConnectionAttempts`).
    public static let maxFailedAttempts = 10

    /// The active key and what is known about it.
    public struct ActiveKey: Sendable, Hashable {
        /// The key.
        public var key: EpskcKey
        /// How long it is valid, as granted.
        public var validDurationSeconds: Int
        /// When it was activated, on the hub's clock.
        public var activatedAt: Duration
        /// Wrong keys tried so far.
        public var failedAttempts: Int

        /// When it expires, on the hub's clock.
        public var expiresAt: Duration { activatedAt + .seconds(validDurationSeconds) }
    }

    private enum State: Sendable, Hashable {
        case disabled
        case stopped
        case started(ActiveKey)
        case connected(ActiveKey)
        case accepted(ActiveKey)
    }

    private var state: State

    /// A border router's ePSKc mode: `stopped` when it supports ePSKc, `disabled` otherwise.
    public init(supported: Bool) {
        state = supported ? .stopped : .disabled
    }

    /// The current state.
    public var phase: Phase {
        switch state {
        case .disabled: .disabled
        case .stopped: .stopped
        case .started: .started
        case .connected: .connected
        case .accepted: .accepted
        }
    }

    /// The active key, in `started`, `connected` and `accepted`.
    public var activeKey: ActiveKey? {
        switch state {
        case .disabled, .stopped: nil
        case .started(let key), .connected(let key), .accepted(let key): key
        }
    }

    /// Whether a key is active.
    public var isActive: Bool { activeKey != nil }

    // MARK: - Events

    /// Makes ePSKc available: `disabled` → `stopped`.
    public mutating func enable() throws(FlowError) {
        switch state {
        case .disabled:
            state = .stopped
        case .stopped, .started, .connected, .accepted:
            throw refused(.enable, .epskcOutOfOrder, "ePSKc is already enabled")
        }
    }

    /// Withdraws ePSKc: any enabled state → `disabled`, ending an active key (`cancelled`, detail `disabled`).
    /// - Returns: the deactivation, when a key was active.
    public mutating func disable() throws(FlowError) -> EpskcDeactivation? {
        switch state {
        case .disabled:
            throw refused(.disable, .epskcOutOfOrder, "ePSKc is already disabled")
        case .stopped:
            state = .disabled
            return nil
        case .started(let key), .connected(let key), .accepted(let key):
            state = .disabled
            return EpskcDeactivation(detail: .disabled, failedAttempts: key.failedAttempts)
        }
    }

    /// Activates ePSKc mode with a new key: `stopped` → `started`.
    /// - Parameters:
    ///   - requestedDurationSeconds: nil or 0 for the default 120 s; 1...600 as asked.
    ///   - key: The key to issue (``EpskcKey/generate(using:)``).
    ///   - now: The hub's clock, from which the key's expiry is counted.
    /// - Returns: the key as activated.
    /// - Throws: `notSupported` when disabled, `epskcAlreadyActive` while a key is active (checked first, as OTBR
    ///   does), then `invalidArgumentValue` for a duration outside 0...600.
    public mutating func activate(requestedDurationSeconds: Int?, key: EpskcKey, at now: Duration) throws(FlowError)
        -> ActiveKey
    {
        switch state {
        case .disabled:
            throw refused(.activate, .notSupported, "this border router does not offer ePSKc (epskcSupported is false)")
        case .started, .connected, .accepted:
            throw refused(.activate, .epskcAlreadyActive, "a key is already active; deactivate it or wait until it ends")
        case .stopped:
            let duration = try Self.grantedDuration(requestedDurationSeconds)
            let active = ActiveKey(key: key, validDurationSeconds: duration, activatedAt: now, failedAttempts: 0)
            state = .started(active)
            return active
        }
    }

    /// Deactivates ePSKc mode at once: any active state → `stopped`, ending a connected commissioner's session.
    /// - Returns: the deactivation (`cancelled`, detail `deactivated`).
    public mutating func deactivate() throws(FlowError) -> EpskcDeactivation {
        switch state {
        case .disabled:
            throw refused(.deactivate, .notSupported, "this border router does not offer ePSKc")
        case .stopped:
            throw refused(.deactivate, .epskcNotActive, "no key is active")
        case .started(let key), .connected(let key), .accepted(let key):
            state = .stopped
            return EpskcDeactivation(detail: .deactivated, failedAttempts: key.failedAttempts)
        }
    }

    /// A commissioner tries to connect with `key`. The issued key: `started` → `connected`. A wrong one counts as
    /// a failed attempt and stays `started`, except the tenth, which withdraws the key: → `stopped`.
    /// - Returns: the deactivation when the attempt withdrew the key (`cancelled`, `tooManyFailedAttempts`).
    /// - Throws: `epskcOutOfOrder` while a commissioner is connected (one session at a time; nothing is counted).
    public mutating func connect(key candidate: String) throws(FlowError) -> EpskcDeactivation? {
        switch state {
        case .disabled:
            throw refused("connect", .notSupported, "this border router does not offer ePSKc")
        case .stopped:
            throw refused("connect", .epskcNotActive, "no key is active, so no commissioner can connect")
        case .connected(let key), .accepted(let key):
            let event: Event = key.key.matches(candidate) ? .connectWithIssuedKey : .connectWithWrongKey
            throw refused(event, .epskcOutOfOrder, "a commissioner is already connected; one session at a time")
        case .started(var key):
            if key.key.matches(candidate) {
                state = .connected(key)
                return nil
            }
            key.failedAttempts += 1
            if key.failedAttempts >= Self.maxFailedAttempts {
                state = .stopped
                return EpskcDeactivation(detail: .tooManyFailedAttempts, failedAttempts: key.failedAttempts)
            }
            state = .started(key)
            return nil
        }
    }

    /// The connected commissioner's petition is accepted: `connected` → `accepted`.
    public mutating func acceptPetition() throws(FlowError) {
        switch state {
        case .disabled:
            throw refused(.acceptPetition, .notSupported, "this border router does not offer ePSKc")
        case .stopped:
            throw refused(.acceptPetition, .epskcNotActive, "no key is active")
        case .started:
            throw refused(.acceptPetition, .epskcOutOfOrder, "no commissioner is connected")
        case .accepted:
            throw refused(.acceptPetition, .epskcOutOfOrder, "the commissioner's petition was already accepted")
        case .connected(let key):
            state = .accepted(key)
        }
    }

    /// The connected commissioner leaves: `connected` or `accepted` → `stopped`. The key is spent.
    /// - Returns: the deactivation (`keyUsed`, detail `commissionerFinished` after an accepted petition,
    ///   `commissionerDisconnected` before).
    public mutating func disconnect() throws(FlowError) -> EpskcDeactivation {
        switch state {
        case .disabled:
            throw refused(.disconnect, .notSupported, "this border router does not offer ePSKc")
        case .stopped:
            throw refused(.disconnect, .epskcNotActive, "no key is active")
        case .started:
            throw refused(.disconnect, .epskcOutOfOrder, "no commissioner is connected")
        case .connected(let key):
            state = .stopped
            return EpskcDeactivation(detail: .commissionerDisconnected, failedAttempts: key.failedAttempts)
        case .accepted(let key):
            state = .stopped
            return EpskcDeactivation(detail: .commissionerFinished, failedAttempts: key.failedAttempts)
        }
    }

    /// The key's timer fired: any active state → `stopped`, ending a connected commissioner's session.
    /// - Parameter now: The hub's clock; it must have reached the key's expiry.
    /// - Returns: the deactivation (`expired`, detail `timeout`, or `timeoutEndedSession` with a commissioner).
    public mutating func expire(at now: Duration) throws(FlowError) -> EpskcDeactivation {
        switch state {
        case .disabled:
            throw refused(.expire, .notSupported, "this border router does not offer ePSKc")
        case .stopped:
            throw refused(.expire, .epskcNotActive, "no key is active")
        case .started(let key), .connected(let key), .accepted(let key):
            guard now >= key.expiresAt else {
                throw refused(
                    .expire, .epskcOutOfOrder,
                    "the key is valid until \(key.expiresAt.components.seconds) s on the hub's clock, and it is \(now.components.seconds) s")
            }
            let endedSession = phase != .started
            state = .stopped
            return EpskcDeactivation(detail: endedSession ? .timeoutEndedSession : .timeout, failedAttempts: key.failedAttempts)
        }
    }

    // MARK: - Rules

    /// The duration a request is granted: nil or 0 → 120, 1...600 as asked.
    /// - Throws: `invalidArgumentValue` for a negative duration or one above 600.
    public static func grantedDuration(_ requested: Int?) throws(FlowError) -> Int {
        guard let requested, requested != 0 else { return defaultDurationSeconds }
        guard (1...maxDurationSeconds).contains(requested) else {
            throw FlowError(
                .invalidArgumentValue,
                "requestedDurationSeconds must be 1...\(maxDurationSeconds) (or 0 or absent for \(defaultDurationSeconds)), found \(requested)")
        }
        return requested
    }

    private func refused(_ event: Event, _ cause: ErrorCause, _ why: String) -> FlowError {
        refused(event.rawValue, cause, why)
    }

    private func refused(_ event: String, _ cause: ErrorCause, _ why: String) -> FlowError {
        FlowError(cause, "ePSKc event \(event) is not allowed while the session is \(phase.rawValue): \(why)")
    }
}
