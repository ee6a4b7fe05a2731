import MatterFlow
import MatterFlowJSON

/// A ``Hub`` that simulates one or more homes in memory (optionally persisted with a ``HomeStateStore``): the
/// engine's built-in hub, and the base for test fixtures.
///
/// Each structure has its own ``CommissioningSession``; every transition goes through it, so out-of-order calls get
/// the session's typed errors. Simulated latency (`simulation.latencySeconds` of the home) and scripted faults
/// (``FaultPlan``) wait on the injected clock, so tests drive time with a `ManualClock` and never sleep. Every call
/// is recorded (``HubCallRecord``), without its arguments.
///
/// Each operation raises only the causes ``OperationCatalog/standard`` declares for it, plus cancellation
/// (`CancellationError`) and `hubFailure` when a state store cannot save. Where a structure is unknown to an
/// operation that does not declare `structureNotFound`, the error is the nearest declared cause (`noActiveSession`
/// for session operations, `deviceNotFound` for `readBasicInformation`); `cancelCommissioning` then returns false.
public actor SimulatedHub: Hub {
    var structures: [StructureID: SimulatedStructure]
    /// Structure IDs in the order the homes were given.
    let order: [StructureID]
    let clock: any WorkflowClock
    let stateStore: HomeStateStore?
    /// The state file's text as this hub last read or wrote it: the same text again needs no decoding.
    var stateText: String?
    var faultPlans: [StructureID: FaultPlan] = [:]
    /// The indices of the rules of each structure's fault plan that some call applied.
    var appliedFaultRules: [StructureID: Set<Int>] = [:]
    var attempts: [StructureID: [SimulatedOperation: Int]] = [:]
    /// Calls so far per structure, operation and element of a concurrent map state (``HubCallContext/element``),
    /// for fault rules that name an element.
    var elementAttempts: [StructureID: [String: Int]] = [:]
    /// The calls answered, oldest first: at least the newest ``callRecordLimit`` (see ``keep(_:)``).
    var records: [HubCallRecord] = []
    /// How many calls ``callRecords`` keeps: the newest this many, so that a hub serving for days (`hub serve`, a
    /// worker's simulated homes) does not keep every call it ever answered.
    var callRecordLimit = 100_000
    /// Calls of this hub running a commissioning attempt now, by `structure/commissioningID`.
    var attemptsInFlight: [String: Int] = [:]
    /// ePSKc sessions, their timers and simulated commissioners; memory only (see `SimulatedHub+Epskc.swift`).
    var epskc = EpskcRuntime()
    /// Subscribers to the hub's events (see `SimulatedHub+Events.swift`).
    let hubEvents = HubEventBroadcaster()
    /// Where the hub's time starts, in seconds since the Unix epoch: hub time is this plus the clock's `now`, so
    /// persisted lease deadlines mean the same in every process (see `SimulatedHub+Sessions.swift`). The wall clock
    /// when the hub's clock started (not when the hub was made: a worker makes a structure's hub long after its
    /// clock started, and hub time would run ahead of the wall clock by that long).
    var timeOrigin: Double
    /// Whether hub time is the wall clock itself, whatever the hub's clock says (``followWallClock()``).
    var followsWallClock = false
    /// Session expiries the hub has reported, in order (see `SimulatedHub+Sessions.swift`).
    var sessionEvents: [HubEvent] = []

    /// A hub for some homes.
    /// - Parameters:
    ///   - homes: The structures, each with a distinct structure ID.
    ///   - clock: Times latencies, delays and hangs; use a `ManualClock` in tests.
    ///   - stateStore: When given, the structure it persists (``HomeStateStore/structureID``, which must be one of
    ///     `homes`) is saved after every change.
    /// - Throws: ``FlowError`` `invalidArgumentValue` for a repeated structure ID, a store for a structure not in
    ///   `homes`, or an active session that cannot be restored.
    public init(
        homes: [HomeDescription], clock: any WorkflowClock = SystemClock(), stateStore: HomeStateStore? = nil
    ) throws(FlowError) {
        var structures: [StructureID: SimulatedStructure] = [:]
        var order: [StructureID] = []
        for home in homes {
            let id = home.structure.id
            guard structures[id] == nil else {
                throw FlowError(.invalidArgumentValue, "two homes have the structure ID \"\(id)\"; give each its own")
            }
            structures[id] = try SimulatedStructure(home)
            order.append(id)
        }
        if let stateStore, structures[stateStore.structureID] == nil {
            throw FlowError(
                .invalidArgumentValue,
                "the state store persists structure \"\(stateStore.structureID)\", which is not one of the hub's homes")
        }
        self.structures = structures
        self.order = order
        self.clock = clock
        self.stateStore = stateStore
        timeOrigin = WallClock.now() - clock.now.secondsValue
    }

    /// A hub for one home.
    public init(home: HomeDescription, clock: any WorkflowClock = SystemClock()) throws(FlowError) {
        try self.init(homes: [home], clock: clock)
    }

    /// A hub for the home of a state store (its saved state, or its starting home), saving every change to it.
    public init(stateStore: HomeStateStore, clock: any WorkflowClock = SystemClock()) throws(FlowError) {
        try self.init(homes: [stateStore.home], clock: clock, stateStore: stateStore)
    }

    // MARK: - Hub

    /// The structure's hub conditions and whether a session is active; `structureNotFound` for an unknown one.
    public func status(structure: StructureID) async throws -> HubStatus {
        try await perform(.readHubStatus, structure) { _ in
            try self.existing(structure, else: self.structureNotFound(structure)).status
        }
    }

    /// Checks the structure, permission, online, reachable, then opens a session (`sessionBusy` if one is active).
    public func prepareCommissioning(structure: StructureID) async throws -> String {
        try await perform(.prepareCommissioning, structure) { _ in
            try self.mutate(structure, else: self.structureNotFound(structure)) { state throws(FlowError) in
                try state.prepare(for: HubCallContext.current?.runID)
            }
        }
    }

    /// Records the request; empty `homes` becomes the structure's name, an empty ecosystem name is refused.
    public func createAddDeviceRequest(structure: StructureID, topology: Topology) async throws -> AddDeviceRequest {
        try await perform(.createAddDeviceRequest, structure) { _ in
            try self.mutate(structure, else: self.noSession(structure)) { state throws(FlowError) in
                try state.createRequest(topology: topology)
            }
        }
    }

    /// Commissions the payload's device after the simulated latency; it stays pending until completion. Any
    /// failure or cancellation returns the session to `requested` and is rethrown.
    ///
    /// The same commissioning ID is the caller saying it is the same attempt. An attempt another process left
    /// `commissioning` when it died (the saved session is in that phase with that ID, and no call of this hub is
    /// running it) is abandoned and started again. An attempt that finished (the session's pending device came from
    /// it, with this payload) answers at once with success and commissions nothing more: its reply was lost.
    public func commissionDevice(
        structure: StructureID, onboardingPayload: String, commissioningID: String
    ) async throws {
        let attempt = structure + "/" + commissioningID
        try await perform(.commissionDevice, structure, faultsInside: true) { faults in
            let orphaned = self.attemptsInFlight[attempt, default: 0] == 0
            let deviceKey = (try? PayloadIdentity(payload: onboardingPayload))?.deviceKey
            let start = try self.mutate(structure, else: self.noSession(structure)) { state throws(FlowError) in
                if orphaned { state.failCommissioning(sessionID: state.session.sessionID, commissioningID: commissioningID) }
                return try state.beginCommissioning(commissioningID: commissioningID, deviceKey: deviceKey)
            }
            guard case .began(let sessionID) = start else {
                // The repeat answers as the attempt did, but the faults a test plans for it still apply.
                try await self.inject(faults)
                return
            }
            self.attemptsInFlight[attempt, default: 0] += 1
            defer { self.attemptsInFlight[attempt, default: 1] -= 1 }
            do {
                try await self.inject(faults)
                try await self.simulateLatency(.commissionDevice, structure)
                let identity = try PayloadIdentity(payload: onboardingPayload)
                _ = try self.mutate(structure, else: self.noSession(structure)) { state throws(FlowError) in
                    try state.finishCommissioning(
                        identity: identity, sessionID: sessionID, commissioningID: commissioningID)
                }
            } catch {
                // The session goes back to `requested` (if it is still this attempt's); the error stands.
                _ = try? self.mutate(structure, else: self.noSession(structure)) { state throws(FlowError) in
                    state.failCommissioning(sessionID: sessionID, commissioningID: commissioningID)
                }
                throw error
            }
        }
    }

    /// The structure's rooms, when the hub is online and reachable.
    public func fetchRooms(structure: StructureID) async throws -> [Room] {
        try await perform(.fetchRooms, structure) { _ in
            try self.existing(structure, else: self.structureNotFound(structure)).rooms()
        }
    }

    /// Names the pending device and puts it (with any bridged devices) in a room; `roomNotFound` changes nothing.
    public func configureDevice(structure: StructureID, name: String, roomName: String?) async throws {
        try await perform(.configureDevice, structure) { _ in
            try self.mutate(structure, else: self.noSession(structure)) { state throws(FlowError) in
                try state.configure(name: name, roomName: roomName)
            }
        }
    }

    /// Completes the session: pending devices become permanent; returns their IDs, sorted.
    public func completeCommissioning(structure: StructureID) async throws -> [String] {
        try await perform(.completeCommissioning, structure) { _ in
            try self.mutate(structure, else: self.noSession(structure)) { state throws(FlowError) in
                try state.complete()
            }
        }
    }

    /// Releases the session and removes its pending devices; false (and no change) when none is active, or when
    /// the call was made for another session than the active one (``HubCallContext/expectedSessionID``).
    /// `hubOffline` / `hubUnreachable` (and no change) while the hub cannot be reached.
    public func cancelCommissioning(structure: StructureID) async throws -> Bool {
        try await perform(.cancelCommissioning, structure) { _ in
            guard self.structures[structure] != nil else { return false }
            return try self.mutate(structure, else: self.noSession(structure), checksSession: false) { state throws(FlowError) in
                try state.requireReachable()
                guard self.foreignSessionRefusal(state, structure: structure) == nil else { return false }
                return try state.cancel()
            }
        }
    }

    /// A device's Basic Information (pending devices included).
    public func basicInformation(structure: StructureID, deviceID: String) async throws -> BasicInformation {
        try await perform(.readBasicInformation, structure) { _ in
            let missing = FlowError(
                .deviceNotFound,
                "no device \"\(deviceID)\": structure \"\(structure)\" is not known to this hub\(self.knownStructuresHint(structure))")
            return try self.existing(structure, else: missing).basicInformation(deviceID: deviceID)
        }
    }
}
