extension EpskcSession {
    /// Every event in every state, with what it does, produced by running the events on sessions brought into
    /// each state through events alone (so the table is the code's behaviour, not a copy of it).
    ///
    /// Rows that depend on more than the state carry a condition: the tenth wrong key, an expiry timer firing
    /// early, an activation asking for too long a duration. A move's output is the deactivation it reports, as
    /// `reason (detail)`.
    public static let transitionTable: StateMachineDescription = {
        var rows: [StateMachineDescription.Transition] = []
        for phase in Phase.allCases {
            for event in Event.allCases {
                for variant in variants(of: event, in: phase) {
                    var session = sample(phase, failedAttempts: variant.failedAttemptsBefore)
                    let outcome: StateMachineDescription.Outcome
                    do throws(FlowError) {
                        let deactivation = try variant.apply(&session)
                        outcome = .moves(
                            to: session.phase.rawValue,
                            output: deactivation.map { "\($0.reason.rawValue) (\($0.detail.rawValue))" })
                    } catch {
                        outcome = .refused(error.cause)
                    }
                    rows.append(
                        .init(from: phase.rawValue, event: event.rawValue, condition: variant.condition, outcome: outcome))
                }
            }
        }
        return StateMachineDescription(
            name: "ePSKc", states: Phase.allCases.map(\.rawValue),
            initialStates: [Phase.disabled.rawValue, Phase.stopped.rawValue], events: Event.allCases.map(\.rawValue),
            transitions: rows)
    }()

    /// One way of applying an event, and the condition that selects it.
    fileprivate struct Variant {
        var condition: String?
        var failedAttemptsBefore = 0
        var apply: (inout EpskcSession) throws(FlowError) -> EpskcDeactivation?
    }

    /// The key the samples issue, and one that is not it.
    private static let sampleKey = EpskcKey.generate(using: SeededRandomSource(seed: 0x6570_736B_63))
    private static var wrongKey: String {
        let digits = Array(sampleKey.revealedDigits)
        return String(digits[0] == "0" ? "1" : "0") + String(digits.dropFirst())
    }

    private static let sampleDuration = 30
    private static let sampleActivation = Duration.seconds(100)

    /// A session in a state, reached from a new session through events only.
    /// - Parameter failedAttempts: Wrong keys tried after activation (for `started`).
    static func sample(_ phase: Phase, failedAttempts: Int = 0) -> EpskcSession {
        do {
            switch phase {
            case .disabled:
                return EpskcSession(supported: false)
            case .stopped:
                return EpskcSession(supported: true)
            case .started, .connected, .accepted:
                var session = EpskcSession(supported: true)
                _ = try session.activate(
                    requestedDurationSeconds: sampleDuration, key: sampleKey, at: sampleActivation)
                for _ in 0..<failedAttempts { _ = try session.connect(key: wrongKey) }
                if phase == .started { return session }
                _ = try session.connect(key: sampleKey.revealedDigits)
                if phase == .connected { return session }
                try session.acceptPetition()
                return session
            }
        } catch {
            preconditionFailure("the sample events for \(phase.rawValue) are allowed by construction: \(error)")
        }
    }

    private static func variants(of event: Event, in phase: Phase) -> [Variant] {
        let active = phase == .started || phase == .connected || phase == .accepted
        switch event {
        case .enable:
            return [Variant { session throws(FlowError) in try session.enable(); return nil }]
        case .disable:
            return [Variant { session throws(FlowError) in try session.disable() }]
        case .activate:
            func activate(_ seconds: Int) -> (inout EpskcSession) throws(FlowError) -> EpskcDeactivation? {
                { session throws(FlowError) in
                    _ = try session.activate(requestedDurationSeconds: seconds, key: sampleKey, at: sampleActivation)
                    return nil
                }
            }
            guard phase == .stopped else { return [Variant(apply: activate(sampleDuration))] }
            return [
                Variant(condition: "duration absent, 0 or 1...600 s", apply: activate(sampleDuration)),
                Variant(condition: "duration negative or above 600 s", apply: activate(maxDurationSeconds + 1)),
            ]
        case .deactivate:
            return [Variant { session throws(FlowError) in try session.deactivate() }]
        case .connectWithIssuedKey:
            return [Variant { session throws(FlowError) in try session.connect(key: sampleKey.revealedDigits) }]
        case .connectWithWrongKey:
            let connect: (inout EpskcSession) throws(FlowError) -> EpskcDeactivation? = { session throws(FlowError) in
                try session.connect(key: wrongKey)
            }
            guard phase == .started else { return [Variant(apply: connect)] }
            return [
                Variant(condition: "fewer than \(maxFailedAttempts - 1) wrong keys before", apply: connect),
                Variant(
                    condition: "\(maxFailedAttempts - 1) wrong keys before", failedAttemptsBefore: maxFailedAttempts - 1,
                    apply: connect),
            ]
        case .acceptPetition:
            return [Variant { session throws(FlowError) in try session.acceptPetition(); return nil }]
        case .disconnect:
            return [Variant { session throws(FlowError) in try session.disconnect() }]
        case .expire:
            func expire(_ offset: Duration) -> (inout EpskcSession) throws(FlowError) -> EpskcDeactivation? {
                { session throws(FlowError) in try session.expire(at: (session.activeKey?.expiresAt ?? .zero) + offset) }
            }
            guard active else { return [Variant(apply: expire(.zero))] }
            return [
                Variant(condition: "at the key's expiry", apply: expire(.zero)),
                Variant(condition: "before the key's expiry", apply: expire(.seconds(-1))),
            ]
        }
    }
}

extension EpskcSession.Variant {
    fileprivate init(_ apply: @escaping (inout EpskcSession) throws(FlowError) -> EpskcDeactivation?) {
        self.init(condition: nil, apply: apply)
    }
}
