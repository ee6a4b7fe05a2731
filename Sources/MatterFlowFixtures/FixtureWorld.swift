import MatterFlow
import MatterFlowSimulator
import Synchronization

/// The simulated world of one fixture run: the hub, the fixture's events and which have happened, and a way to
/// cancel the run. Hub calls (through ``FixtureHub``), the scheduler and the run's observer all act through it.
final class FixtureWorld: Sendable {
    let hub: SimulatedHub
    let structure: StructureID
    let events: [FixtureEvent]
    let clock: any WorkflowClock

    private struct State {
        var callCounts: [SimulatedOperation: Int] = [:]
        /// Calls of custom operations so far, by name.
        var customCallCounts: [String: Int] = [:]
        /// Indices of the events that have happened.
        var fired: Set<Int> = []
        /// The task applying the hub actions of `entering` events, each task after the one before it; a hub call
        /// waits for it, so the call sees every action of the states entered before it.
        var applying: Task<Void, Never>?
        /// Why events that happened could not do what they say (a commissioner refused, ...), by index.
        var refusals: [Int: String] = [:]
        /// Indices of the custom operation rules some call applied.
        var appliedCustomRules: Set<Int> = []
        /// The last ePSKc key issued to each border router in this run.
        var issuedKeys: [String: String] = [:]
        /// Whether the hub's events reach the run.
        var deliversHubEvents = true
        var finished = false
        /// Holds virtual time from the run task's creation until the engine accounts for the run.
        var startHold: ClockHold?
        /// Holds virtual time from the run's end until the home has been read.
        var finishHold: ClockHold?
        var cancelRun: (@Sendable () -> Void)?
        var cancelWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    init(hub: SimulatedHub, structure: StructureID, events: [FixtureEvent], clock: any WorkflowClock) {
        self.hub = hub
        self.structure = structure
        self.events = events
        self.clock = clock
    }

    /// Indices of the events that happened.
    var firedEvents: Set<Int> { state.withLock { $0.fired } }

    /// Why events that happened could not do what they say, by index.
    var refusals: [Int: String] { state.withLock { $0.refusals } }

    /// Whether the hub's events reach the run (``FixtureAction/setHubEventsDelivered(_:)``).
    var deliversHubEvents: Bool { state.withLock { $0.deliversHubEvents } }

    /// Indices of the custom operation rules some call applied.
    var appliedCustomRules: Set<Int> { state.withLock { $0.appliedCustomRules } }

    /// Remembers that a call applied these custom operation rules.
    func noteCustomRulesApplied(_ indices: [Int]) {
        guard !indices.isEmpty else { return }
        state.withLock { $0.appliedCustomRules.formUnion(indices) }
    }

    /// Remembers the key a border router issued, for commissioner actions.
    func recordIssuedKey(_ key: String, deviceID: String) {
        state.withLock { $0.issuedKeys[deviceID] = key }
    }

    // MARK: - The run

    /// Sets how to cancel the run, and lets anyone waiting to cancel it do so.
    func setCanceller(_ cancel: @escaping @Sendable () -> Void) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.cancelRun = cancel
            defer { state.cancelWaiters = [] }
            return state.cancelWaiters
        }
        waiters.forEach { $0.resume() }
    }

    /// Cancels the run, waiting (without letting virtual time pass) until the run can be cancelled.
    private func cancelRun() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.cancelRun != nil { return true }
                state.cancelWaiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
        state.withLock { $0.cancelRun }?()
    }

    /// Holds virtual time until ``releaseStartActivity()``: from before the run's task is created, so no time
    /// passes before the run has started.
    func holdUntilStarted() {
        let hold = ClockHold(clock)
        state.withLock { $0.startHold = hold }
    }

    /// The engine accounts for the run now (or the run could not start): lets go of the hold taken before it.
    func releaseStartActivity() {
        state.withLock { $0.startHold }?.release()
    }

    /// The run has ended: events still to come do not happen, and virtual time stops (the run's task still
    /// counts as working, so no time passes between this and the freeze) until ``thaw()``, so the home can be read
    /// as the run left it, before the hub's own timers (a key's expiry) move on.
    func markFinished() {
        let hold = ClockHold(clock)
        let earlier = state.withLock { state -> ClockHold? in
            state.finished = true
            defer { state.finishHold = hold }
            return state.finishHold
        }
        earlier?.release()
    }

    /// Lets virtual time move again after ``markFinished()``.
    func thaw() {
        state.withLock { $0.finishHold }?.release()
    }

    var isFinished: Bool { state.withLock { $0.finished } }

    // MARK: - Triggers

    /// Called by the hub before each call, once the hub actions of `entering` events have been applied. Returns
    /// the call's attempt number for its operation.
    func beforeCall(_ operation: SimulatedOperation) async -> Int {
        await enteringActionsApplied()
        return state.withLock { state -> Int in
            state.callCounts[operation, default: 0] += 1
            return state.callCounts[operation, default: 0]
        }
    }

    /// Counts a call of a custom operation and returns its attempt number (from 1), once the hub actions of
    /// `entering` events have been applied, as for every call.
    func beforeCustomCall(_ operation: String) async -> Int {
        await enteringActionsApplied()
        return state.withLock { state -> Int in
            state.customCallCounts[operation, default: 0] += 1
            return state.customCallCounts[operation, default: 0]
        }
    }

    /// Waits until the hub actions of the states entered so far have been applied (before a call, and before the
    /// final home is read).
    func enteringActionsApplied() async {
        await state.withLock { $0.applying }?.value
    }

    /// Called by the hub when a call of a custom operation ends, before the engine sees its answer: runs the
    /// `after` events for it.
    func afterCustomCall(_ operation: String, attempt: Int) async {
        for index in take({ $0 == .afterCustom(operation, attempt: attempt) }) { await apply(index) }
    }

    /// Called by the hub when a call ends, before the engine sees its answer: runs the `after` events for it.
    func afterCall(_ operation: SimulatedOperation, attempt: Int) async {
        for index in take({ $0 == .after(operation, attempt: attempt) }) { await apply(index) }
    }

    /// Runs the `at` event with this index, unless the run has ended.
    func fireScheduled(_ index: Int) async {
        let fire = state.withLock { state -> Bool in
            !state.finished && state.fired.insert(index).inserted
        }
        if fire { await apply(index) }
    }

    /// Called synchronously as the run enters a state (from its observer): returns whether the run must be
    /// cancelled now. Whether hub events reach the run changes at once; hub actions start at once, as work of the
    /// simulated world (no virtual time passes until they are done), and the hub's next call waits for them.
    func entering(_ qualifiedState: String) -> Bool {
        var cancel = false
        var actions: [Int] = []
        for index in take({ $0 == .entering(qualifiedState) }) {
            switch events[index].action {
            case .cancelRun:
                cancel = true
            case .setHubEventsDelivered(let delivered):
                state.withLock { $0.deliversHubEvents = delivered }
            case .setHubOnline, .setHubReachable, .setPermissionGranted, .commissionerConnects,
                .commissionerPetitionAccepted, .commissionerLeaves, .commissionerUsesKey, .epskcActivatedElsewhere,
                .epskcDeactivatedElsewhere, .removeRoom:
                actions.append(index)
            }
        }
        if !actions.isEmpty {
            state.withLock { state in
                let earlier = state.applying
                state.applying = clock.task { [self, actions] in
                    await earlier?.value
                    for index in actions { await apply(index) }
                }
            }
        }
        return cancel
    }


    /// Marks the events whose trigger matches as happened (once each) and returns their indices, in file order.
    private func take(_ matches: (FixtureEvent.Trigger) -> Bool) -> [Int] {
        state.withLock { state in
            var indices: [Int] = []
            for (index, event) in events.enumerated() where matches(event.trigger) && !state.fired.contains(index) {
                state.fired.insert(index)
                indices.append(index)
            }
            return indices
        }
    }

    /// Does what an event says; a refusal (a commissioner turned away) is kept for the report.
    private func apply(_ index: Int) async {
        do throws(FlowError) {
            // Hub conditions: the structure is the hub's own, so these controls cannot fail.
            switch events[index].action {
            case .setHubOnline(let online): try await hub.setOnline(online, structure: structure)
            case .setHubReachable(let reachable): try await hub.setReachable(reachable, structure: structure)
            case .setPermissionGranted(let granted): try await hub.setPermissionGranted(granted, structure: structure)
            case .cancelRun: await cancelRun()
            case .commissionerConnects(let deviceID, let which, let count):
                let key = try issuedKey(deviceID)
                for _ in 0..<count {
                    try await hub.commissionerConnects(
                        structure: structure, deviceID: deviceID, key: which == .issued ? key : Self.wrongKey(for: key))
                }
            case .commissionerPetitionAccepted(let deviceID):
                try await hub.commissionerPetitionAccepted(structure: structure, deviceID: deviceID)
            case .commissionerLeaves(let deviceID):
                try await hub.commissionerLeaves(structure: structure, deviceID: deviceID)
            case .commissionerUsesKey(let deviceID):
                try await hub.commissionerConnects(
                    structure: structure, deviceID: deviceID, key: try issuedKey(deviceID))
                try await hub.commissionerPetitionAccepted(structure: structure, deviceID: deviceID)
                try await hub.commissionerLeaves(structure: structure, deviceID: deviceID)
            case .epskcActivatedElsewhere(let deviceID, let seconds):
                do {
                    let activation = try await hub.activateEpskc(
                        structure: structure, deviceID: deviceID, requestedDurationSeconds: seconds)
                    recordIssuedKey(activation.epskc, deviceID: deviceID)
                } catch {
                    throw FlowError.from(error)
                }
            case .epskcDeactivatedElsewhere(let deviceID):
                do {
                    try await hub.deactivateEpskc(structure: structure, deviceID: deviceID)
                } catch {
                    throw FlowError.from(error)
                }
            case .setHubEventsDelivered(let delivered):
                state.withLock { $0.deliversHubEvents = delivered }
            case .removeRoom(let room):
                try await hub.removeRoom(named: room, structure: structure)
            }
        } catch {
            state.withLock { $0.refusals[index] = "\(error)" }
        }
    }

    private func issuedKey(_ deviceID: String) throws(FlowError) -> String {
        guard let key = state.withLock({ $0.issuedKeys[deviceID] }) else {
            throw FlowError(
                .epskcNotActive, "no ePSKc key was issued to \(deviceID) in this run before the commissioner came")
        }
        return key
    }

    /// A key that is not the issued one: its first digit changed.
    static func wrongKey(for issued: String) -> String {
        (issued.first == "0" ? "1" : "0") + issued.dropFirst()
    }
}
