import MatterFlowJSON

/// A commissioning session the hub opened for a call after the run had stopped waiting for it (the call timed out,
/// or a cancel stopped it before it answered), and what the run's release of it did as the run ended.
///
/// The workflow cannot see such a session: the call's state had already failed or taken its cancel path without
/// the result. So the run releases it itself before it ends, unless the run holds a session of its own (then the
/// hub, which keeps one session per structure, holds no other). The release names the session
/// (``HubCallContext/expectedSessionID``), so a hub that enforces it never releases another client's session.
struct LateSession: Sendable, Equatable {
    /// What the release did.
    enum Release: Sendable, Equatable {
        /// The hub released the session.
        case released
        /// The hub no longer held it: its lease had run out, or someone had released it.
        case alreadyEnded
        /// The release failed with this message; the hub's session lease ends the session.
        case failed(String)
    }

    /// The session the call's late result named.
    var sessionID: String
    /// The call, as reports name it (`prepareCommissioning in state prepare`).
    var call: String
    var release: Release

    /// The warning the run reports and keeps in its result.
    var message: String {
        let opened = "the hub opened commissioning session \"\(sessionID)\" for \(call) after the run had stopped waiting for it"
        switch release {
        case .released:
            return opened + "; the run released it (cancelCommissioning) before ending"
        case .alreadyEnded:
            return opened + "; it had already ended when the run released it (cancelCommissioning) before ending"
        case .failed(let message):
            return opened + "; releasing it before the run ended failed (\(message)), so the structure stays busy until "
                + "the hub's session lease ends it (\(Int(SessionLease.defaultDuration.secondsValue)) s by default) or "
                + "someone cancels it"
        }
    }
}

extension AbandonedCalls {
    /// Releases each session noted late (``noteLateSession(_:call:)``), unless the run holds a session (`holding`):
    /// then the hub, with one session per structure, holds no other. Each release is `cancelCommissioning` in that
    /// session (its context names it), not raced against a cancel, with the operation's timeout.
    func releaseLateSessions(
        holding: String?, hub: any Hub, structure: StructureID, clock: any WorkflowClock, runID: String
    ) async -> [LateSession] {
        let opened = takeLateSessions()
        guard holding == nil else { return [] }
        var settled: [LateSession] = []
        for (sessionID, call) in opened {
            var context = HubCallContext.current ?? HubCallContext(runID: runID, idempotencyKey: "\(runID)/late-release/\(sessionID)")
            context.expectedSessionID = sessionID
            let release = Self.lateRelease
            let outcome = await HubCallContext.$current.withValue(context) {
                await StepRace(clock: clock, signal: nil).call(release, hub: hub, structure: structure, arguments: [:], timeout: release.timeout)
            }
            let done: LateSession.Release
            switch outcome {
            case .finished(let value): done = value["released"]?.boolValue == true ? .released : .alreadyEnded
            case .failed(let error): done = .failed(error.message)
            case .timedOut: done = .failed("the hub did not answer within \(Int(release.timeoutSeconds)) s")
            case .cancelled: done = .failed("the release was cancelled")
            }
            settled.append(LateSession(sessionID: sessionID, call: call, release: done))
        }
        return settled
    }

    /// The call that releases a session opened late.
    private static let lateRelease = PlannedCall(
        CommissioningOperations.cancelCommissioning, arguments: [],
        timeoutSeconds: CommissioningOperations.cancelCommissioning.defaultTimeoutSeconds)
}
