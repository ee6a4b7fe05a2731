import MatterFlow

/// Session leases, shared state directories and recovery reads.
///
/// - **Hub time** is ``timeOrigin`` (the wall clock when the hub's clock started) plus the hub clock's `now`: real
///   time on a `SystemClock`, simulated time on a `VirtualClock` or `ManualClock`; or the wall clock itself after
///   ``followWallClock()``. Lease deadlines are persisted in it.
/// - **Leases** (``SessionLease``): `prepare` starts one, every change to the active session renews it, and the
///   first access after it runs out takes the session machine's `expire` transition, removes the pending devices,
///   saves, and reports a ``SessionLease/expiredEventName`` event to subscribers (and in ``sessionExpiryEvents``).
/// - **Shared state directories**: with a ``HomeStateStore``, every access re-reads `home.json` under the
///   directory's lock, and every change is saved before the lock is released.
extension SimulatedHub {
    /// The hub's current time, in seconds since the Unix epoch.
    public var hubTime: Double {
        followsWallClock ? WallClock.now() : timeOrigin + clock.now.secondsValue
    }

    /// Makes hub time the wall clock, whatever the hub's clock says: for a home in a state directory that processes
    /// on virtual clocks share (a worker's), whose virtual time runs ahead of the wall clock by every delay it
    /// skipped, so that a lease one of them persisted would mean another time to the others. Delays, latencies and
    /// timeouts still follow the hub's clock; session leases then run out on the wall clock.
    public func followWallClock() {
        followsWallClock = true
    }

    /// Moves where hub time starts (seconds since the Unix epoch), for tests that need fixed lease deadlines.
    public func setTimeOrigin(_ seconds: Double) {
        timeOrigin = seconds
    }

    /// The session expiries the hub has reported, as hub events, in order.
    public var sessionExpiryEvents: [HubEvent] { sessionEvents }

    /// Runs `body` on the structure's up-to-date state: re-read from the state directory under its lock (when the
    /// structure is the store's) and with its lease settled.
    func synchronized<T>(_ structure: StructureID, _ body: () throws(FlowError) -> T) throws(FlowError) -> T {
        guard let stateStore, stateStore.structureID == structure else {
            try settleLease(structure)
            return try body()
        }
        return try stateStore.withLock { () throws(FlowError) -> T in
            try reload(structure, from: stateStore)
            try settleLease(structure)
            return try body()
        }
    }

    /// Adopts the saved state when another process has changed it. The file is read every time (under the lock);
    /// it is decoded only when its text is not the one this hub last read or wrote: decoding a building's home on
    /// every call made a run on a 5,000-device home ten times slower than without a state directory.
    private func reload(_ structure: StructureID, from store: HomeStateStore) throws(FlowError) {
        guard let text = try store.currentText() else { return }
        if text == stateText, structures[structure] != nil { return }
        let saved = try store.home(decoding: text)
        stateText = text
        guard saved.structure.id == structure else {
            throw FlowError(
                .hubFailure,
                "\(store.path) now holds structure \"\(saved.structure.id)\", not \"\(structure)\"; another process replaced it")
        }
        if saved != structures[structure]?.description {
            structures[structure] = try SimulatedStructure(saved)
        }
    }

    /// Expires a session whose lease has run out (or starts a missing lease), saving and reporting the change.
    private func settleLease(_ structure: StructureID) throws(FlowError) {
        guard var state = structures[structure] else { return }
        let before = state
        let now = hubTime
        let expiry = state.expireIfDue(now: now)
        state.startMissingLease(now: now)
        guard state != before else { return }
        if state.description != before.description { try persist(state) }
        structures[structure] = state
        if let expiry {
            let event = expiry.hubEvent(structureID: structure, time: clock.now)
            sessionEvents.append(event)
            hubEvents.publish(event)
        }
    }
}

extension SimulatedHub {
    /// Why a call made for one session (``HubCallContext/expectedSessionID``) must not be served in the structure's
    /// active session: it is another one, so the caller's session ended and another client opened a new one. Nil
    /// when the call names no session, or names the active one, or no session is active (the operation's own
    /// checks then say so).
    func foreignSessionRefusal(_ state: SimulatedStructure, structure: StructureID) -> FlowError? {
        guard let expected = HubCallContext.current?.expectedSessionID, state.session.isActive,
            let active = state.session.sessionID, active != expected
        else { return nil }
        return FlowError(
            .noActiveSession,
            "session \"\(expected)\" is no longer active on structure \"\(structure)\": the active session \"\(active)\" is "
                + "another client's, and this call was not made in it; prepare a new session once that one ends")
    }
}

extension SimulatedHub: RecoverableHub {
    /// The structure's active session with its owner and pending devices; nil when none is active. Not recorded
    /// as a call and does not renew the lease (an expired lease is settled first).
    public func activeSession(structure: StructureID) async throws -> HubSessionInfo? {
        try existing(structure, else: structureNotFound(structure)).sessionInfo
    }
}
