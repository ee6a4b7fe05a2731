import MatterFlow

/// Test and fixture controls: change a structure's conditions at any time, script faults, read the call record,
/// and take snapshots. Condition changes are persisted like any other change.
extension SimulatedHub {
    /// The structures, in the order the homes were given.
    public var structureIDs: [StructureID] { order }

    /// Turns a structure's hub on or off line (offline: `hubOffline` from prepare, commission, rooms, basic info).
    public func setOnline(_ online: Bool, structure: StructureID) throws(FlowError) {
        try mutate(structure, else: structureNotFound(structure)) { state throws(FlowError) in
            state.home.hub.online = online
        }
    }

    /// Makes a structure's hub reachable or not (unreachable: `hubUnreachable` from prepare and rooms).
    public func setReachable(_ reachable: Bool, structure: StructureID) throws(FlowError) {
        try mutate(structure, else: structureNotFound(structure)) { state throws(FlowError) in
            state.home.hub.reachable = reachable
        }
    }

    /// Grants or withdraws the app's permission for a structure (withdrawn: `permissionNotGranted` from prepare).
    public func setPermissionGranted(_ granted: Bool, structure: StructureID) throws(FlowError) {
        try mutate(structure, else: structureNotFound(structure)) { state throws(FlowError) in
            state.home.permissionGranted = granted
        }
    }

    /// Removes a room from a structure (as another app would), so a later `configureDevice` into it fails with
    /// `roomNotFound`. Devices in it keep no room.
    public func removeRoom(named name: String, structure: StructureID) throws(FlowError) {
        try mutate(structure, else: structureNotFound(structure)) { state throws(FlowError) in
            guard state.home.rooms.contains(where: { $0.name == name }) else {
                throw FlowError(.roomNotFound, "the structure has no room \"\(name)\" to remove")
            }
            state.home.rooms.removeAll { $0.name == name }
            for index in state.home.devices.indices where state.home.devices[index].room == name {
                state.home.devices[index].room = nil
            }
        }
    }

    /// Replaces the fault plan of a structure (an empty plan removes every fault). Attempt numbers keep counting.
    public func setFaultPlan(_ plan: FaultPlan, structure: StructureID) {
        faultPlans[structure] = plan.isEmpty ? nil : plan
        appliedFaultRules[structure] = nil
    }

    /// Adds one rule to a structure's fault plan.
    public func addFault(_ rule: FaultRule, structure: StructureID) {
        faultPlans[structure, default: FaultPlan()].rules.append(rule)
    }

    /// The indices (in the structure's fault plan) of the rules some call applied since the plan was set: a rule
    /// missing here never changed a call.
    public func appliedFaultRules(structure: StructureID) -> Set<Int> {
        appliedFaultRules[structure] ?? []
    }

    /// The fault plan of a structure.
    public func faultPlan(structure: StructureID) -> FaultPlan {
        faultPlans[structure] ?? FaultPlan()
    }

    /// The calls the hub has answered, in the order they ended: every one, or the newest 100,000
    /// (``setCallRecordLimit(_:)``) when it answered more.
    public var callRecords: [HubCallRecord] { Array(keptRecords) }

    /// The records ``callRecords`` shows: the newest ``callRecordLimit`` of those held (``keep(_:)`` holds up to twice
    /// as many).
    private var keptRecords: ArraySlice<HubCallRecord> { records.suffix(callRecordLimit) }

    /// The calls for one structure among ``callRecords``, in the order they ended.
    public func calls(structure: StructureID) -> [HubCallRecord] {
        keptRecords.filter { $0.structure == structure }
    }

    /// The calls of one operation for one structure among ``callRecords``, in the order they ended.
    public func calls(_ operation: SimulatedOperation, structure: StructureID) -> [HubCallRecord] {
        keptRecords.filter { $0.structure == structure && $0.operation == operation }
    }

    /// Keeps the newest `limit` calls' records (at least 1) instead of 100,000. Attempt numbers count every call.
    public func setCallRecordLimit(_ limit: Int) {
        callRecordLimit = max(1, limit)
        if records.count > callRecordLimit { records.removeFirst(records.count - callRecordLimit) }
    }

    /// How many calls of an operation a structure has had (the last attempt number).
    public func attemptCount(_ operation: SimulatedOperation, structure: StructureID) -> Int {
        attempts[structure]?[operation] ?? 0
    }

    /// Forgets a structure's call records and restarts its attempt numbers at 1.
    public func resetCallHistory(structure: StructureID) {
        records.removeAll { $0.structure == structure }
        attempts[structure] = nil
    }

    /// The structure's current state as a home description, including its active session (if any). Pending
    /// devices of the session are among `devices`.
    public func snapshot(structure: StructureID) throws(FlowError) -> HomeDescription {
        try existing(structure, else: structureNotFound(structure)).description
    }

    /// Every structure's current state, in the order the homes were given.
    public func snapshots() -> [HomeDescription] {
        order.compactMap { structures[$0]?.description }
    }
}
