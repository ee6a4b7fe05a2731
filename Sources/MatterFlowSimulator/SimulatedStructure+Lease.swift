import MatterFlow

/// The session lease of a simulated structure (see ``SessionLease``): started by `prepare`, renewed by every change
/// to the active session, and run out through the session machine's `expire` transition.
extension SimulatedStructure {
    /// The structure's lease length.
    var leaseSeconds: Double {
        home.simulation.sessionLeaseSeconds ?? Double(SessionLease.defaultDuration.components.seconds)
    }

    /// Expires the active session when its lease has run out by `now` (hub time), removing its pending devices.
    /// - Returns: the expiry event, or nil when nothing expired.
    mutating func expireIfDue(now: Double) -> SessionExpiry? {
        guard session.isActive, let deadline = leaseExpiresAt, now >= deadline, let expiry = session.expire() else {
            return nil
        }
        home.devices.removeAll { expiry.releasedDeviceIDs.contains($0.id) }
        sessionOwner = nil
        sessionOpenedAt = nil
        leaseExpiresAt = nil
        leaseStartedOnLoad = false
        return expiry
    }

    /// After a successful change: a new session gets its owner, its opening time and a fresh lease, a changed one a
    /// renewed lease, and a structure without an active session keeps no lease.
    mutating func updateLease(after before: SimulatedStructure, now: Double, owner: String?) {
        guard session.isActive else {
            sessionOwner = nil
            sessionOpenedAt = nil
            leaseExpiresAt = nil
            leaseStartedOnLoad = false
            return
        }
        if !before.session.isActive || before.session.sessionID != session.sessionID {
            sessionOwner = owner
            sessionOpenedAt = now
            leaseExpiresAt = now + leaseSeconds
            leaseStartedOnLoad = false
        } else if before.session != session || leaseExpiresAt == nil {
            leaseExpiresAt = now + leaseSeconds
            leaseStartedOnLoad = false
        }
    }

    /// Gives an active session restored without a lease (a hand-written home) one that starts now; it is kept in
    /// memory only, so the home reads back as it was written until the session changes.
    mutating func startMissingLease(now: Double) {
        guard session.isActive, leaseExpiresAt == nil else { return }
        leaseExpiresAt = now + leaseSeconds
        leaseStartedOnLoad = true
    }

    /// The active session as recovery sees it.
    var sessionInfo: HubSessionInfo? {
        guard session.isActive, let id = session.sessionID else { return nil }
        return HubSessionInfo(
            sessionID: id, phase: session.phase, owner: sessionOwner, pendingDeviceIDs: session.pendingDeviceIDs,
            commissioningID: session.commissioningID, deviceName: session.configuration?.name)
    }
}
