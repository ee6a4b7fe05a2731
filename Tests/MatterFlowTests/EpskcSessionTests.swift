import MatterFlow
import Testing

/// The ePSKc state machine: every event in every state, reached through public events only, against a table
/// written out here (so a change of behaviour shows up as a failing row), and the rules that need more than
/// one event.
@Suite struct EpskcSessionTests {
    typealias Phase = EpskcSession.Phase
    typealias Event = EpskcSession.Event

    static let key = EpskcKey.generate(using: SeededRandomSource(seed: 42))
    static var wrongKey: String { (key.revealedDigits.first == "0" ? "1" : "0") + key.revealedDigits.dropFirst() }
    static let activatedAt = Duration.seconds(10)

    /// A session in a state, reached through public events from a new session.
    static func makeSession(inState phase: Phase, failedAttempts: Int = 0) throws -> EpskcSession {
        var session = EpskcSession(supported: phase != .disabled)
        guard phase != .disabled, phase != .stopped else { return session }
        _ = try session.activate(requestedDurationSeconds: 60, key: key, at: activatedAt)
        for _ in 0..<failedAttempts { _ = try session.connect(key: wrongKey) }
        if phase == .started { return session }
        _ = try session.connect(key: key.revealedDigits)
        if phase == .connected { return session }
        try session.acceptPetition()
        return session
    }

    enum Expected: Equatable, CustomStringConvertible {
        case moves(Phase, EpskcDeactivationDetail?)
        case refused(ErrorCause)

        var description: String {
            switch self {
            case .moves(let phase, let detail): "→ \(phase)" + (detail.map { " (\($0))" } ?? "")
            case .refused(let cause): "refused \(cause)"
            }
        }
    }

    /// What each event does in each state (with a valid duration, a first wrong key, and at the key's expiry).
    static let table: [Phase: [Event: Expected]] = [
        .disabled: [
            .enable: .moves(.stopped, nil), .disable: .refused(.epskcOutOfOrder), .activate: .refused(.notSupported),
            .deactivate: .refused(.notSupported), .connectWithIssuedKey: .refused(.notSupported),
            .connectWithWrongKey: .refused(.notSupported), .acceptPetition: .refused(.notSupported),
            .disconnect: .refused(.notSupported), .expire: .refused(.notSupported),
        ],
        .stopped: [
            .enable: .refused(.epskcOutOfOrder), .disable: .moves(.disabled, nil), .activate: .moves(.started, nil),
            .deactivate: .refused(.epskcNotActive), .connectWithIssuedKey: .refused(.epskcNotActive),
            .connectWithWrongKey: .refused(.epskcNotActive), .acceptPetition: .refused(.epskcNotActive),
            .disconnect: .refused(.epskcNotActive), .expire: .refused(.epskcNotActive),
        ],
        .started: [
            .enable: .refused(.epskcOutOfOrder), .disable: .moves(.disabled, .disabled),
            .activate: .refused(.epskcAlreadyActive), .deactivate: .moves(.stopped, .deactivated),
            .connectWithIssuedKey: .moves(.connected, nil), .connectWithWrongKey: .moves(.started, nil),
            .acceptPetition: .refused(.epskcOutOfOrder), .disconnect: .refused(.epskcOutOfOrder),
            .expire: .moves(.stopped, .timeout),
        ],
        .connected: [
            .enable: .refused(.epskcOutOfOrder), .disable: .moves(.disabled, .disabled),
            .activate: .refused(.epskcAlreadyActive), .deactivate: .moves(.stopped, .deactivated),
            .connectWithIssuedKey: .refused(.epskcOutOfOrder), .connectWithWrongKey: .refused(.epskcOutOfOrder),
            .acceptPetition: .moves(.accepted, nil), .disconnect: .moves(.stopped, .commissionerDisconnected),
            .expire: .moves(.stopped, .timeoutEndedSession),
        ],
        .accepted: [
            .enable: .refused(.epskcOutOfOrder), .disable: .moves(.disabled, .disabled),
            .activate: .refused(.epskcAlreadyActive), .deactivate: .moves(.stopped, .deactivated),
            .connectWithIssuedKey: .refused(.epskcOutOfOrder), .connectWithWrongKey: .refused(.epskcOutOfOrder),
            .acceptPetition: .refused(.epskcOutOfOrder), .disconnect: .moves(.stopped, .commissionerFinished),
            .expire: .moves(.stopped, .timeoutEndedSession),
        ],
    ]

    static func apply(_ event: Event, to session: inout EpskcSession) throws(FlowError) -> EpskcDeactivation? {
        let expiry = session.activeKey?.expiresAt ?? .seconds(1000)
        switch event {
        case .enable: try session.enable(); return nil
        case .disable: return try session.disable()
        case .activate: _ = try session.activate(requestedDurationSeconds: 30, key: key, at: .seconds(500)); return nil
        case .deactivate: return try session.deactivate()
        case .connectWithIssuedKey: return try session.connect(key: key.revealedDigits)
        case .connectWithWrongKey: return try session.connect(key: wrongKey)
        case .acceptPetition: try session.acceptPetition(); return nil
        case .disconnect: return try session.disconnect()
        case .expire: return try session.expire(at: expiry)
        }
    }

    static let pairs: [(Phase, Event)] = Phase.allCases.flatMap { phase in Event.allCases.map { (phase, $0) } }

    @Test("every event in every state", arguments: Phase.allCases, Event.allCases)
    func eventInState(_ phase: Phase, _ event: Event) throws {
        var session = try Self.makeSession(inState: phase)
        let before = session
        let expected = try #require(Self.table[phase]?[event])
        do {
            let deactivation = try Self.apply(event, to: &session)
            #expect(expected == .moves(session.phase, deactivation?.detail), "\(event) in \(phase)")
            // A deactivation's reason always follows from its detail.
            if let deactivation { #expect(deactivation.reason == deactivation.detail.reason) }
        } catch {
            #expect(expected == .refused(error.cause), "\(event) in \(phase): \(error)")
            // A refused event leaves the session exactly as it was, and says which event and state.
            #expect(session == before)
            #expect(error.message.contains("is not allowed while the session is \(phase.rawValue)"))
            #expect(error.code == error.cause.code)
        }
    }

    @Test("the published transition table agrees with the machine, row for row")
    func transitionTableMatches() throws {
        let table = EpskcSession.transitionTable
        #expect(table.states == Phase.allCases.map(\.rawValue))
        #expect(table.events == Event.allCases.map(\.rawValue))
        for (phase, event) in Self.pairs {
            let rows = table.transitions(from: phase.rawValue, on: event.rawValue)
            let first = try #require(rows.first, "no row for \(event) in \(phase)")
            let expected: StateMachineDescription.Outcome =
                switch try #require(Self.table[phase]?[event]) {
                case .moves(let to, let detail):
                    .moves(to: to.rawValue, output: detail.map { "\($0.reason.rawValue) (\($0.rawValue))" })
                case .refused(let cause): .refused(cause)
                }
            #expect(first.outcome == expected, "\(event) in \(phase)")
        }
        // The conditional rows: a bad duration, the tenth wrong key, a timer firing early.
        let conditional = table.transitions.filter { $0.condition != nil }
        #expect(conditional.contains { $0.from == "stopped" && $0.event == "activate" && $0.outcome == .refused(.invalidArgumentValue) })
        #expect(conditional.contains {
            $0.from == "started" && $0.event == "connectWithWrongKey" && $0.outcome == .moves(to: "stopped", output: "cancelled (tooManyFailedAttempts)")
        })
        for phase in ["started", "connected", "accepted"] {
            #expect(conditional.contains { $0.from == phase && $0.event == "expire" && $0.outcome == .refused(.epskcOutOfOrder) })
        }
        // Every state is reachable from an initial state through the table's moves.
        var reached = Set(table.initialStates)
        var changed = true
        while changed {
            changed = false
            for move in table.moves where reached.contains(move.from) {
                if case .moves(let to, _) = move.outcome, reached.insert(to).inserted { changed = true }
            }
        }
        #expect(reached == Set(table.states))
    }

    @Test func theDurationDefaultsTo120AndAcceptsUpTo600() throws {
        for (requested, granted) in [(nil, 120), (0, 120), (1, 1), (300, 300), (600, 600)] as [(Int?, Int)] {
            var session = EpskcSession(supported: true)
            let active = try session.activate(requestedDurationSeconds: requested, key: Self.key, at: .seconds(5))
            #expect(active.validDurationSeconds == granted)
            #expect(active.expiresAt == .seconds(5 + granted))
            #expect(active.key == Self.key)
        }
        for requested in [601, 32767, -1] {
            var session = EpskcSession(supported: true)
            #expect(throws: FlowError.self) {
                _ = try session.activate(requestedDurationSeconds: requested, key: Self.key, at: .zero)
            }
            #expect(session.phase == .stopped)
        }
    }

    @Test func theBusyCheckComesBeforeTheDurationCheck() throws {
        var session = try Self.makeSession(inState: .started)
        do {
            _ = try session.activate(requestedDurationSeconds: 9999, key: Self.key, at: .zero)
            Issue.record("a second activation must be refused")
        } catch {
            #expect(error.cause == .epskcAlreadyActive)
            #expect(error.code == .failedPrecondition)
        }
    }

    @Test func theTenthWrongKeyWithdrawsTheKey() throws {
        var session = try Self.makeSession(inState: .started, failedAttempts: 8)
        #expect(session.activeKey?.failedAttempts == 8)
        #expect(try session.connect(key: Self.wrongKey) == nil)
        #expect(session.phase == .started)
        let withdrawn = try #require(try session.connect(key: Self.wrongKey))
        #expect(withdrawn == EpskcDeactivation(detail: .tooManyFailedAttempts, failedAttempts: 10))
        #expect(withdrawn.reason == .cancelled)
        #expect(session.phase == .stopped)
        // The issued key is gone with it.
        #expect(throws: FlowError.self) { _ = try session.connect(key: Self.key.revealedDigits) }
    }

    @Test func wrongKeysBeforeTheRightOneAreCountedAndReported() throws {
        var session = try Self.makeSession(inState: .started, failedAttempts: 9)
        #expect(try session.connect(key: Self.key.revealedDigits) == nil)
        #expect(session.phase == .connected)
        // While a commissioner is connected, another one is refused and nothing is counted.
        #expect(throws: FlowError.self) { _ = try session.connect(key: Self.wrongKey) }
        #expect(session.activeKey?.failedAttempts == 9)
        try session.acceptPetition()
        #expect(try session.disconnect() == EpskcDeactivation(detail: .commissionerFinished, failedAttempts: 9))
    }

    @Test func theKeyIsSingleUse() throws {
        var session = try Self.makeSession(inState: .connected)
        #expect(try session.disconnect().reason == .keyUsed)
        #expect(session.phase == .stopped)
        #expect(throws: FlowError.self) { _ = try session.connect(key: Self.key.revealedDigits) }
    }

    @Test func expiryEndsAConnectedCommissionersSessionButNotBeforeItsTime() throws {
        var session = try Self.makeSession(inState: .accepted)
        let expiry = try #require(session.activeKey?.expiresAt)
        #expect(throws: FlowError.self) { _ = try session.expire(at: expiry - .milliseconds(1)) }
        #expect(session.phase == .accepted)
        let ended = try session.expire(at: expiry)
        #expect(ended.detail == .timeoutEndedSession)
        #expect(ended.reason == .expired)
        #expect(session.phase == .stopped)
        #expect(session.activeKey == nil)
    }

    @Test func disablingWithAnActiveKeyCancelsIt() throws {
        var session = try Self.makeSession(inState: .connected)
        #expect(try session.disable()?.reason == .cancelled)
        #expect(session.phase == .disabled)
        try session.enable()
        #expect(session.phase == .stopped)
        #expect(session.activeKey == nil)
    }

    @Test func refusalsNameTheEventAndTheState() throws {
        var session = try Self.makeSession(inState: .started)
        do {
            try session.acceptPetition()
            Issue.record("accepting a petition with no commissioner must be refused")
        } catch {
            #expect(error.message == "ePSKc event acceptPetition is not allowed while the session is started: no commissioner is connected")
        }
    }
}
