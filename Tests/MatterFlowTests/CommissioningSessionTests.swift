import MatterFlow
import Testing

/// The hub-side session state machine: every event in every state.
@Suite struct CommissioningSessionTests {
    typealias Phase = CommissioningSession.Phase

    enum Event: String, CaseIterable, Sendable {
        case prepare, request, beginCommissioning, finishCommissioning, failCommissioning, configure, complete, cancel, expire
    }

    /// Reaches a phase only through public events.
    static func session(in phase: Phase) throws -> CommissioningSession {
        var session = CommissioningSession()
        let path: [Event]
        switch phase {
        case .idle: path = []
        case .prepared: path = [.prepare]
        case .requested: path = [.prepare, .request]
        case .commissioning: path = [.prepare, .request, .beginCommissioning]
        case .commissioned: path = [.prepare, .request, .beginCommissioning, .finishCommissioning]
        case .configured: path = [.prepare, .request, .beginCommissioning, .finishCommissioning, .configure]
        case .completed: path = [.prepare, .request, .beginCommissioning, .finishCommissioning, .complete]
        case .cancelled: path = [.prepare, .cancel]
        case .expired: path = [.prepare, .request, .beginCommissioning, .finishCommissioning, .expire]
        }
        for event in path { _ = try apply(event, to: &session) }
        #expect(session.phase == phase)
        return session
    }

    /// Applies an event; returns the devices a cancel must remove (nil: nothing was active).
    @discardableResult
    static func apply(_ event: Event, to session: inout CommissioningSession) throws(FlowError) -> [String]? {
        switch event {
        case .prepare: try session.prepare(sessionID: "s-1")
        case .request: try session.request(AddDeviceRequest(requestID: "request-1", topology: Topology(ecosystemName: "Google Home", homes: ["Home"])))
        case .beginCommissioning: try session.beginCommissioning(commissioningID: "c-1")
        case .finishCommissioning: try session.finishCommissioning(deviceIDs: ["d-1", "d-2"])
        case .failCommissioning: try session.failCommissioning()
        case .configure: try session.configure(name: "Lamp", roomName: "Kitchen")
        case .complete: return try session.complete()
        case .cancel: return session.cancel()
        case .expire: return session.expire()?.releasedDeviceIDs
        }
        return []
    }

    /// The phase each event leads to from each phase; nil means the event is refused there.
    static let allowed: [Phase: [Event: Phase]] = [
        .idle: [.prepare: .prepared, .cancel: .idle, .expire: .idle],
        .prepared: [.request: .requested, .cancel: .cancelled, .expire: .expired],
        // The same request again (an idempotent write retried) finds it made; another one is refused (below).
        .requested: [.request: .requested, .beginCommissioning: .commissioning, .cancel: .cancelled, .expire: .expired],
        .commissioning: [
            .finishCommissioning: .commissioned, .failCommissioning: .requested, .cancel: .cancelled, .expire: .expired,
        ],
        .commissioned: [.configure: .configured, .complete: .completed, .cancel: .cancelled, .expire: .expired],
        .configured: [.configure: .configured, .complete: .completed, .cancel: .cancelled, .expire: .expired],
        .completed: [.prepare: .prepared, .cancel: .completed, .expire: .completed],
        .cancelled: [.prepare: .prepared, .cancel: .cancelled, .expire: .cancelled],
        .expired: [.prepare: .prepared, .cancel: .expired, .expire: .expired],
    ]

    static let pairs: [(Phase, Event)] = Phase.allCases.flatMap { phase in Event.allCases.map { (phase, $0) } }

    @Test("a request repeated in phase requested is the same request when its topology is; another topology is refused")
    func repeatedRequest() throws {
        var session = try Self.session(in: .requested)
        let made = try #require(session.addDeviceRequest)
        let repeated = try session.request(
            AddDeviceRequest(requestID: "request-9", topology: Topology(ecosystemName: "Google Home", homes: ["Home"])))
        #expect(repeated == made, "a repeat answers with the request made, under its ID")
        #expect(session.phase == .requested)
        #expect(session.addDeviceRequest == made)
        #expect(throws: FlowError.self) {
            try session.request(AddDeviceRequest(requestID: "request-9", topology: Topology(ecosystemName: "Other", homes: ["Home"])))
        }
        #expect(session.phase == .requested)
        #expect(session.addDeviceRequest == made)
    }

    @Test("every event in every state", arguments: pairs)
    func transition(phase: Phase, event: Event) throws {
        var session = try Self.session(in: phase)
        let wasActive = session.isActive
        if let target = Self.allowed[phase]?[event] {
            _ = try Self.apply(event, to: &session)
            #expect(session.phase == target)
        } else {
            do {
                try Self.apply(event, to: &session)
                Issue.record("\(event) should be refused in \(phase)")
            } catch {
                // A refused event names the state and the event, and leaves the state unchanged.
                #expect(session.phase == phase)
                #expect(error.message.contains(phase.rawValue))
                if event == .prepare {
                    #expect(error.cause == .sessionBusy)
                } else if phase == .expired {
                    // An operation on an expired session says so, and what to do.
                    #expect(error.cause == .sessionExpired)
                    #expect(error.code == .failedPrecondition)
                    #expect(error.message.contains("expired") && error.message.contains("prepare again"))
                } else {
                    #expect(error.cause == (wasActive ? .sessionOutOfOrder : .noActiveSession))
                    #expect(error.code == .failedPrecondition)
                }
            }
        }
    }

    @Test func activePhasesBlockAnotherPrepare() throws {
        for phase in Phase.allCases {
            let session = try Self.session(in: phase)
            let active: Set<Phase> = [.prepared, .requested, .commissioning, .commissioned, .configured]
            #expect(session.isActive == active.contains(phase), "\(phase)")
        }
    }

    @Test func expiryIsAnEventThatReleasesPendingDevices() throws {
        var configured = try Self.session(in: .configured)
        let expiry = configured.expire()
        #expect(expiry == SessionExpiry(sessionID: "s-1", phase: .configured, releasedDeviceIDs: ["d-1", "d-2"]))
        #expect(configured.phase == .expired)
        #expect(configured.isActive == false)
        let again = configured.expire()
        #expect(again == nil, "expiring again changes nothing")
        var requested = try Self.session(in: .requested)
        let released = requested.expire()?.releasedDeviceIDs
        #expect(released == [])
    }

    @Test func cancelUndoesCommissionedDevicesOnly() throws {
        var commissioned = try Self.session(in: .configured)
        #expect(commissioned.cancel() == ["d-1", "d-2"])
        var requested = try Self.session(in: .requested)
        #expect(requested.cancel() == [])
        var idle = try Self.session(in: .idle)
        #expect(idle.cancel() == nil)
    }

    @Test func completeReturnsEveryDeviceOfABridge() throws {
        var session = try Self.session(in: .configured)
        #expect(try session.complete() == ["d-1", "d-2"])
        #expect(throws: FlowError.self) { try session.complete() }
    }

    @Test("snapshots restore the same session", arguments: Phase.allCases)
    func snapshotRoundTrip(phase: Phase) throws {
        let session = try Self.session(in: phase)
        let restored = try CommissioningSession(restoring: session.snapshot)
        #expect(restored.phase == session.phase)
        #expect(restored.isActive == session.isActive)
        #expect(restored.pendingDeviceIDs == session.pendingDeviceIDs)
    }
}
