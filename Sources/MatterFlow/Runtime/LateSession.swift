import MatterFlowJSON

/// A commissioning session the hub opened for a call whose answer the run did not take: one that came after the
/// run had stopped waiting for it (the call timed out, or a cancel stopped it before it answered), or one the run
/// could not read (`hubFailure`: the hub then reports the session as the run's); and what the run's release of it
/// did as the run ended.
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

    /// How the run learnt of the session.
    enum Origin: Sendable, Equatable {
        /// The call's answer came after the run had stopped waiting for it.
        case lateAnswer
        /// The call ended without an answer the run could read, and the hub reports the session as the run's.
        case unreadAnswer
    }

    /// The session the call's late result named.
    var sessionID: String
    /// The call, as reports name it (`prepareCommissioning in state prepare`).
    var call: String
    var release: Release
    var origin = Origin.lateAnswer

    /// The warning the run reports and keeps in its result.
    var message: String {
        if sessionID.isEmpty, case .failed(let why) = release {
            return "the run could not read the answer to \(call), so the hub may hold a commissioning session opened for it, "
                + "and it could not find out (\(why)); if the hub shows one active, release it (Workflows/cancel.json on "
                + "the structure, or `matterflow recover` for a journaled run)"
        }
        let opened =
            switch origin {
            case .lateAnswer: "the hub opened commissioning session \"\(sessionID)\" for \(call) after the run had stopped waiting for it"
            case .unreadAnswer:
                "the hub holds commissioning session \"\(sessionID)\" for this run, opened by \(call), whose answer the run could not read"
            }
        switch release {
        case .released:
            return opened + "; the run released it (cancelCommissioning) before ending"
        case .alreadyEnded:
            return opened + "; the hub had already ended it when the run was to release it before ending"
        case .failed(let message):
            return opened + "; releasing it before the run ended failed (\(message)), so the structure stays busy until "
                + "the hub's session lease ends it (\(Int(SessionLease.defaultDuration.secondsValue)) s by default) or "
                + "someone cancels it"
        }
    }
}

extension AbandonedCalls {
    /// Whether nothing is kept and no late session noted: a run's end then has nothing to settle.
    var isSettled: Bool { isEmpty && !hasLateSessions }

    /// Whether a run's end has nothing to settle for `settlement`: nothing kept, no late session noted, and no
    /// session-opening call whose answer it could not read.
    func hasNothingToSettle(for settlement: LateSettlement) -> Bool {
        isSettled && settlement.unreadOpen == nil
    }

    /// Releases each session noted late (``noteLateSession(_:call:)``) as `settlement` says: none while the run holds
    /// a session (then the hub, with one session per structure, holds no other), and not the run's own last one
    /// (its workflow settled it). Each release is the run's catalog's `cancelCommissioning` in that session (its
    /// context names it), not raced against a cancel, with the operation's timeout; a hub that can tell its active
    /// session (``RecoverableHub``) is asked first, within that timeout too: a session it no longer holds is not
    /// released again, and one it cannot answer for is not released blind (another client may hold the structure
    /// by now). When no late answer came for a session-opening call whose answer the run could not read
    /// (``LateSettlement/unreadOpen``), that question is whether the hub's active session is the run's: if so, it is
    /// released.
    func releaseLateSessions(
        _ settlement: LateSettlement, hub: any Hub, structure: StructureID, clock: any WorkflowClock, runID: String
    ) async -> [LateSession] {
        let opened = takeLateSessions()
        guard settlement.holding == nil, let release = settlement.release else { return [] }
        func released(_ sessionID: String) async -> LateSession.Release {
            var context = HubCallContext.current ?? HubCallContext(runID: runID, idempotencyKey: "")
            context.idempotencyKey = HubCallContext.lateReleaseKey(runID: context.runID, sessionID: sessionID)
            context.expectedSessionID = sessionID
            context.element = settlement.element
            let outcome = await StepRace(clock: clock, signal: nil).call(
                release, hub: hub, structure: structure, arguments: [:], timeout: release.timeout, context: context)
            switch outcome {
            case .finished(let value): return value["released"]?.boolValue == true ? .released : .alreadyEnded
            case .failed(let error): return .failed(error.message)
            case .timedOut: return .failed("the hub did not answer within \(release.timeout.secondsText) s")
            case .cancelled: return .failed("the release was cancelled")
            }
        }
        var settled: [LateSession] = []
        if let call = settlement.unreadOpen, opened.isEmpty {
            switch await Self.sessionOwned(byRun: runID, hub: hub, structure: structure, clock: clock, timeout: release.timeout) {
            case .owned(let sessionID) where sessionID != settlement.own:
                settled.append(LateSession(sessionID: sessionID, call: call, release: await released(sessionID), origin: .unreadAnswer))
            case .owned, .none:
                break
            case .unknown(let why):
                settled.append(LateSession(sessionID: "", call: call, release: .failed(why), origin: .unreadAnswer))
            }
        }
        for (sessionID, call) in opened where sessionID != settlement.own {
            let done: LateSession.Release
            switch await Self.holding(sessionID, hub: hub, structure: structure, clock: clock, timeout: release.timeout) {
            case .no: done = .alreadyEnded
            case .unknown(let why): done = .failed("the hub could not say whether it still holds it (\(why)), and it is not released blind")
            case .yes: done = await released(sessionID)
            }
            settled.append(LateSession(sessionID: sessionID, call: call, release: done))
        }
        return settled
    }

    /// What the hub says of a session of the run whose opening answer the run could not read.
    private enum Owned {
        /// The hub's active session is the run's (its owner is the run's ID).
        case owned(String)
        /// Another client's session, or none, is active; or the hub cannot say whose it is, and the run leaves it.
        case none
        /// The hub could not be asked: why.
        case unknown(String)
    }

    /// Whether the hub's active session on `structure` is one `runID` opened, asked with `timeout` on the clock. A
    /// hub that cannot tell its active session (no ``RecoverableHub``) cannot be asked.
    private static func sessionOwned(
        byRun runID: String, hub: any Hub, structure: StructureID, clock: any WorkflowClock, timeout: Duration
    ) async -> Owned {
        guard let recoverable = hub.sessionReader else {
            return .unknown("the hub cannot tell its active session (it offers no activeSession)")
        }
        let answer = await StepRace(clock: clock, signal: nil).work(timeout: timeout) {
            try await recoverable.activeSession(structure: structure)
        }
        switch answer {
        case .finished(let active):
            guard let active, active.owner == runID else { return .none }
            return .owned(active.sessionID)
        case .failed(let error): return .unknown("asking the hub for its active session failed: \(error.message)")
        case .timedOut: return .unknown("the hub did not say within \(timeout.secondsText) s which session is active")
        case .cancelled: return .unknown("the question was cancelled")
        }
    }

    /// What the hub says of the late session.
    private enum Holding {
        /// It holds it, or cannot tell its active session (it is no ``RecoverableHub``): the release names the
        /// session, so a hub that enforces ``HubCallContext/expectedSessionID`` releases no other.
        case yes
        /// It shows another session or none.
        case no
        /// Its answer failed or did not come in time: a session of another client could be active by now.
        case unknown(String)
    }

    /// Whether the hub's active session is `sessionID`, asked with `timeout` on the clock.
    private static func holding(
        _ sessionID: String, hub: any Hub, structure: StructureID, clock: any WorkflowClock, timeout: Duration
    ) async -> Holding {
        guard let recoverable = hub.sessionReader else { return .yes }
        let answer = await StepRace(clock: clock, signal: nil).work(timeout: timeout) {
            try await recoverable.activeSession(structure: structure)?.sessionID
        }
        switch answer {
        case .finished(let active): return active == sessionID ? .yes : .no
        case .failed(let error): return .unknown(error.message)
        case .timedOut: return .unknown("no answer within \(timeout.secondsText) s")
        case .cancelled: return .unknown("the question was cancelled")
        }
    }
}
