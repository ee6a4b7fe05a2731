import MatterFlow
import MatterFlowJSON

/// How the simulated hub carries out a call: attempt counting, faults, latency, recording, and changes that are
/// committed (and persisted) only when they succeed.
extension SimulatedHub {
    /// Runs one call: counts the attempt, applies the fault plan and the simulated latency (unless `faultsInside`:
    /// then `work` applies the faults it is given where they belong), runs `work` and records the outcome.
    func perform<T>(
        _ operation: SimulatedOperation, _ structure: StructureID, faultsInside: Bool = false,
        _ work: ([FaultRule.Fault]) async throws -> T
    ) async throws -> T {
        let attempt = (attempts[structure]?[operation] ?? 0) + 1
        attempts[structure, default: [:]][operation] = attempt
        let element = HubCallContext.current?.element
        var elementAttempt = 0
        if let element {
            elementAttempt = (elementAttempts[structure]?[operation.rawValue + " " + element] ?? 0) + 1
            elementAttempts[structure, default: [:]][operation.rawValue + " " + element] = elementAttempt
        }
        let plan = faultPlans[structure]
        let applying = plan?.applyingRules(for: operation, attempt: attempt, element: element, elementAttempt: elementAttempt) ?? []
        if !applying.isEmpty { appliedFaultRules[structure, default: []].formUnion(applying) }
        let faults = applying.compactMap { plan?.rules[$0].fault }
        let startedAt = clock.now
        func record(_ outcome: HubCallRecord.Outcome) {
            keep(
                HubCallRecord(
                    operation: operation, structure: structure, attempt: attempt, startedAt: startedAt,
                    finishedAt: clock.now, outcome: outcome, faultInjected: !faults.isEmpty))
        }
        do {
            if !faultsInside {
                try await inject(faults)
                try await simulateLatency(operation, structure)
            }
            let result = try await work(faults)
            for case .failAfterActing(let error) in faults { throw error }
            record(.succeeded)
            return result
        } catch {
            let flowError = FlowError.from(error)
            record(.failed(code: flowError.code, cause: flowError.cause))
            throw error
        }
    }

    /// Adds a call's record, dropping the oldest once twice ``callRecordLimit`` are kept (down to the limit, so that
    /// dropping costs little per call).
    func keep(_ record: HubCallRecord) {
        records.append(record)
        if records.count >= 2 * callRecordLimit { records.removeFirst(records.count - callRecordLimit) }
    }

    /// Applies scripted faults in order: delays wait, a failure throws, a hang waits until cancelled (a failure after
    /// acting comes after the work).
    func inject(_ faults: [FaultRule.Fault]) async throws {
        for fault in faults {
            switch fault {
            case .delay(let duration):
                if duration > .zero { try await clock.sleep(for: duration) }
            case .fail(let error):
                throw error
            case .hang:
                while true {
                    try Task.checkCancellation()
                    try await clock.sleep(for: .seconds(365 * 86_400))
                }
            case .failAfterActing:
                // Thrown once the work is done (``perform(_:_:faultsInside:_:)``).
                continue
            }
        }
    }

    /// Waits the structure's simulated latency for an operation, if any (cancellable).
    func simulateLatency(_ operation: SimulatedOperation, _ structure: StructureID) async throws {
        guard let latency = simulatedLatency(of: operation, structure) else { return }
        try await clock.sleep(for: latency)
    }

    /// The structure's simulated latency for an operation; nil when it has none.
    ///
    /// A synchronous method of its own: the lookup copies the structure's state, which in the body of
    /// ``simulateLatency(_:_:)`` took 1.5 KB of its frame, held by every call in flight while it sleeps.
    private func simulatedLatency(of operation: SimulatedOperation, _ structure: StructureID) -> Duration? {
        guard let latency = structures[structure]?.home.simulation.latency(of: operation), latency > .zero else { return nil }
        return latency
    }

    /// The structure's current state (re-read from a shared state directory, its lease checked), or `missing`
    /// thrown.
    func existing(_ structure: StructureID, else missing: @autoclosure () -> FlowError) throws(FlowError)
        -> SimulatedStructure
    {
        guard structures[structure] != nil else { throw missing() }
        // A read works from memory when the state directory cannot be used; a change would fail with hubFailure.
        try? synchronized(structure) { () throws(FlowError) in }
        guard let state = structures[structure] else { throw missing() }
        return state
    }

    /// Applies a change to a copy of the structure and commits it only if it succeeds and, with a state store,
    /// is saved: a failed call leaves both memory and file as they were. With a state store the whole cycle holds
    /// the directory's lock and starts from the saved file, so concurrent processes never lose each other's
    /// changes; a successful change renews the session's lease. A call made for another session than the active
    /// one is refused before any change, unless `checksSession` is false (the change then decides).
    ///
    /// Never inlined: inlined into the async closures of the hub's operations, its two copies of the structure
    /// (`state` and `before`) took slots in each of their frames, which every call in flight holds
    /// (`concurrent.10000`: 325 MB peak RSS inlined, 238 MB not, release build, 5 alternated rounds).
    @inline(never)
    func mutate<T>(
        _ structure: StructureID, else missing: @autoclosure () -> FlowError, checksSession: Bool = true,
        _ change: (inout SimulatedStructure) throws(FlowError) -> T
    ) throws(FlowError) -> T {
        guard structures[structure] != nil else { throw missing() }
        return try synchronized(structure) { () throws(FlowError) -> T in
            guard var state = structures[structure] else { throw missing() }
            if checksSession, let refusal = foreignSessionRefusal(state, structure: structure) { throw refusal }
            let before = state
            let result = try change(&state)
            state.updateLease(after: before, now: hubTime, owner: HubCallContext.current?.runID)
            if state != before { try persist(state) }
            structures[structure] = state
            return result
        }
    }

    /// Saves a structure through the state store, if it is the store's.
    func persist(_ state: SimulatedStructure) throws(FlowError) {
        guard let stateStore, stateStore.structureID == state.home.structure.id else { return }
        stateText = try stateStore.save(state.description)
    }

    // MARK: - Errors for unknown structures

    func structureNotFound(_ structure: StructureID) -> FlowError {
        FlowError(
            .structureNotFound,
            "structure \"\(structure)\" is not known to this hub\(knownStructuresHint(structure))")
    }

    func noSession(_ structure: StructureID) -> FlowError {
        FlowError(
            .noActiveSession,
            "structure \"\(structure)\" is not known to this hub, so it has no commissioning session\(knownStructuresHint(structure))")
    }

    func knownStructuresHint(_ structure: StructureID) -> String {
        let hint = SpellingSuggestion.hint(for: structure, among: order)
        if !hint.isEmpty { return hint }
        return order.isEmpty ? "; it has no structures" : " (structures: \(order.joined(separator: ", ")))"
    }
}
