extension CommissioningSession {
    /// The events of the session machine, each applied through the session's own method.
    public enum Event: String, Sendable, Hashable, CaseIterable {
        case prepare, request, beginCommissioning, finishCommissioning, failCommissioning, configure, complete, cancel,
            expire

        /// Applies the event with sample arguments (for the transition table, not for a real session); returns what
        /// the move reports (`nothing to release` for a cancel with no session).
        /// - Throws: ``FlowError`` when the session refuses the event in its state.
        @discardableResult
        func apply(to session: inout CommissioningSession) throws(FlowError) -> String? {
            switch self {
            case .prepare: try session.prepare(sessionID: "session-2")
            case .request:
                let repeated = session.phase == .requested
                try session.request(AddDeviceRequest(requestID: "request-2", topology: CommissioningSession.sampleTopology))
                // The sample repeats the topology it requested; another topology is refused.
                if repeated { return "same topology: the request made" }
            case .beginCommissioning: try session.beginCommissioning(commissioningID: "commissioning-2")
            case .finishCommissioning: try session.finishCommissioning(deviceIDs: ["device-2"])
            case .failCommissioning: try session.failCommissioning()
            case .configure: try session.configure(name: "Lamp", roomName: "Kitchen")
            case .complete: _ = try session.complete()
            case .cancel: return session.cancel() == nil ? "nothing to release" : nil
            case .expire: return session.expire() == nil ? "nothing to expire" : nil
            }
            return nil
        }
    }

    static let sampleTopology = Topology(ecosystemName: "Google Home", homes: ["Home"])

    /// A session in a phase, reached from a new one through events only.
    static func sample(_ phase: Phase) -> CommissioningSession {
        let path: [Event] = switch phase {
        case .idle: []
        case .prepared: [.prepare]
        case .requested: [.prepare, .request]
        case .commissioning: [.prepare, .request, .beginCommissioning]
        case .commissioned: [.prepare, .request, .beginCommissioning, .finishCommissioning]
        case .configured: [.prepare, .request, .beginCommissioning, .finishCommissioning, .configure]
        case .completed: [.prepare, .request, .beginCommissioning, .finishCommissioning, .complete]
        case .cancelled: [.prepare, .cancel]
        case .expired: [.prepare, .expire]
        }
        var session = CommissioningSession()
        do {
            for event in path { try event.apply(to: &session) }
        } catch {
            preconditionFailure("the sample events for \(phase.rawValue) are allowed by construction: \(error)")
        }
        return session
    }

    /// Every event in every phase, with what it does, produced by applying the events to a sample session in each
    /// phase through the session's own methods (see ``StateMachineDescription``), so a picture of it cannot drift
    /// from the code.
    public static let transitionTable: StateMachineDescription = {
        var rows: [StateMachineDescription.Transition] = []
        for phase in Phase.allCases {
            for event in Event.allCases {
                var session = sample(phase)
                let outcome: StateMachineDescription.Outcome
                do throws(FlowError) {
                    let output = try event.apply(to: &session)
                    outcome = .moves(to: session.phase.rawValue, output: output)
                } catch {
                    outcome = .refused(error.cause)
                }
                rows.append(.init(from: phase.rawValue, event: event.rawValue, outcome: outcome))
            }
        }
        return StateMachineDescription(
            name: "commissioning session", states: Phase.allCases.map(\.rawValue),
            initialStates: [Phase.idle.rawValue], events: Event.allCases.map(\.rawValue), transitions: rows)
    }()

    /// The phases in which a session is open (and blocks another prepare).
    public static var activePhases: Set<String> {
        Set(Phase.allCases.filter { sample($0).isActive }.map(\.rawValue))
    }
}
