import MatterFlow
import Testing

/// The commissioning operations' session flags (``OperationDescriptor/acquiresSession``, `releasesSession`,
/// `releaseAttemptSuffices`, `usesSession`) and their protocol order (``OrderRequirement/standard``) are checked
/// against ``CommissioningSession/transitionTable``, which is produced from the session machine's own code: a
/// change to either side alone fails here.
@Suite struct SessionProtocolRulesTests {
    /// The session events a successful call of each operation makes, in order. Operations not listed never touch
    /// the session (`expire` is the hub's lease running out; `failCommissioning` is a `commissionDevice` that
    /// failed).
    static let events: [String: [CommissioningSession.Event]] = [
        "prepareCommissioning": [.prepare],
        "createAddDeviceRequest": [.request],
        "commissionDevice": [.beginCommissioning, .finishCommissioning],
        "configureDevice": [.configure],
        "completeCommissioning": [.complete],
        "cancelCommissioning": [.cancel],
    ]

    /// What the transition table says about the operations that drive the session.
    struct Derived: Equatable {
        var acquires: Set<String> = []
        var releases: Set<String> = []
        /// Releases that are never refused, so attempting one is enough.
        var releaseAttemptSuffices: Set<String> = []
        /// Operations that act inside a session they did not open.
        var usesSession: Set<String> = []
        /// For each operation, the operations that succeeded earlier in the same session on every path to a
        /// phase where the session accepts it.
        var requiredBefore: [String: Set<String>] = [:]
    }

    static func derive(from table: StateMachineDescription, active: Set<String>) -> Derived {
        var derived = Derived()
        let operationOf = Dictionary(uniqueKeysWithValues: events.map { ($0.value[0].rawValue, $0.key) })
        // The event that completes a successful call, and so counts as the operation having succeeded.
        let completes = Dictionary(uniqueKeysWithValues: events.map { ($0.value[$0.value.count - 1].rawValue, $0.key) })
        for row in table.moves {
            guard case .moves(let to, _) = row.outcome, let operation = operationOf[row.event] else { continue }
            if !active.contains(row.from), active.contains(to) { derived.acquires.insert(operation) }
            if active.contains(row.from), !active.contains(to) { derived.releases.insert(operation) }
        }
        for operation in derived.releases {
            let event = events[operation]![0].rawValue
            let refused = table.transitions.contains { row in
                if row.event == event, case .refused = row.outcome { true } else { false }
            }
            if !refused { derived.releaseAttemptSuffices.insert(operation) }
        }
        derived.usesSession = Set(events.keys).subtracting(derived.acquires)

        // What has succeeded in the current session on every path to each phase: a fixpoint from "everything"
        // in every phase but the initial ones, intersected over the moves into the phase.
        let everything = Set(events.keys)
        var succeeded = Dictionary(uniqueKeysWithValues: table.states.map { ($0, everything) })
        for initial in table.initialStates { succeeded[initial] = [] }
        var changed = true
        while changed {
            changed = false
            for phase in table.states where !table.initialStates.contains(phase) {
                var meet = everything
                for row in table.moves {
                    guard case .moves(let to, _) = row.outcome, to == phase else { continue }
                    let carried: Set<String>
                    if !active.contains(to) {
                        carried = []
                    } else if !active.contains(row.from) {
                        carried = Set(completes[row.event].map { [$0] } ?? [])
                    } else {
                        carried = succeeded[row.from]!.union(completes[row.event].map { [$0] } ?? [])
                    }
                    meet.formIntersection(carried)
                }
                if meet != succeeded[phase] {
                    succeeded[phase] = meet
                    changed = true
                }
            }
        }
        for (operation, calls) in events {
            let event = calls[0].rawValue
            let rows = table.transitions.filter { $0.event == event }
            let refusedSomewhere = rows.contains { if case .refused = $0.outcome { true } else { false } }
            let acceptedIn = rows.filter { row in
                if case .moves = row.outcome { active.contains(row.from) } else { false }
            }.map(\.from)
            guard refusedSomewhere, !acceptedIn.isEmpty else {
                derived.requiredBefore[operation] = []
                continue
            }
            derived.requiredBefore[operation] = acceptedIn.map { succeeded[$0]! }.reduce(everything) { $0.intersection($1) }
        }
        return derived
    }

    /// The catalog's side: its flags, and each operation's session requirements with theirs, transitively.
    static func declared(_ catalog: OperationCatalog) -> Derived {
        var declared = Derived()
        for operation in catalog.operations {
            if operation.acquiresSession { declared.acquires.insert(operation.name) }
            if operation.releasesSession { declared.releases.insert(operation.name) }
            if operation.releaseAttemptSuffices { declared.releaseAttemptSuffices.insert(operation.name) }
            if operation.usesSession { declared.usesSession.insert(operation.name) }
        }
        func before(_ name: String, visiting: Set<String>) -> Set<String> {
            guard let operation = catalog[name], !visiting.contains(name) else { return [] }
            var found: Set<String> = []
            for requirement in operation.requires where requirement.scope == .session {
                for earlier in requirement.operations {
                    found.insert(earlier)
                    found.formUnion(before(earlier, visiting: visiting.union([name])))
                }
            }
            return found
        }
        for name in events.keys { declared.requiredBefore[name] = before(name, visiting: []) }
        return declared
    }

    @Test func theCatalogAgreesWithTheSessionMachine() {
        let derived = Self.derive(from: CommissioningSession.transitionTable, active: CommissioningSession.activePhases)
        let declared = Self.declared(.standard)
        #expect(declared.acquires == derived.acquires)
        #expect(declared.releases == derived.releases)
        #expect(declared.releaseAttemptSuffices == derived.releaseAttemptSuffices)
        #expect(declared.usesSession == derived.usesSession)
        for name in Self.events.keys.sorted() {
            #expect(declared.requiredBefore[name] == derived.requiredBefore[name], "operation \(name)")
        }
    }

    @Test func theDerivationReadsTheProtocol() {
        let derived = Self.derive(from: CommissioningSession.transitionTable, active: CommissioningSession.activePhases)
        #expect(derived.acquires == ["prepareCommissioning"])
        #expect(derived.releases == ["completeCommissioning", "cancelCommissioning"])
        #expect(derived.releaseAttemptSuffices == ["cancelCommissioning"])
        #expect(derived.requiredBefore["commissionDevice"] == ["prepareCommissioning", "createAddDeviceRequest"])
        #expect(derived.requiredBefore["configureDevice"] == ["prepareCommissioning", "createAddDeviceRequest", "commissionDevice"])
        #expect(derived.requiredBefore["cancelCommissioning"] == [])
    }

    @Test func aSessionThatAcceptedConfigureEarlierWouldDisagreeWithTheCatalog() {
        // The same table, but `configure` also accepted right after the request.
        var table = CommissioningSession.transitionTable
        for index in table.transitions.indices
        where table.transitions[index].from == "requested" && table.transitions[index].event == "configure" {
            table.transitions[index].outcome = .moves(to: "configured", output: nil)
        }
        let derived = Self.derive(from: table, active: CommissioningSession.activePhases)
        #expect(derived.requiredBefore["configureDevice"] != Self.declared(.standard).requiredBefore["configureDevice"])
    }
}
