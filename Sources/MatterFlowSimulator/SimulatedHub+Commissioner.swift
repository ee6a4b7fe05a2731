import MatterFlow

/// The commissioner side of ePSKc: what a phone or another border router does with an issued key. A home's
/// border router may script it (``HomeDescription/BorderRouter/commissioner``), `matterflow run --commissioner`
/// replaces the script, and tests and fixtures can act as the commissioner directly.
extension SimulatedHub {
    /// Replaces the scripted commissioner of every border router of a structure, for the keys activated from now
    /// on; nil goes back to each router's own script. An empty script means no commissioner ever connects.
    public func setCommissionerScript(_ steps: [HomeDescription.CommissionerStep]?, structure: StructureID) {
        epskc.scriptOverrides[structure] = steps
    }

    /// Whether the structure has a border router offering ePSKc, whose commissioner a script could act as.
    public func offersEpskc(structure: StructureID) -> Bool {
        structures[structure]?.home.thread.borderRouters.contains(where: \.offersEpskc) ?? false
    }

    /// Where new ePSKc keys' digits come from (by default the system's secure generator); tests pass a seeded one.
    public func setEpskcRandomSource(_ random: any RandomSource) {
        epskc.random = random
    }

    /// A border router's ePSKc state, or nil for a device that is not a border router of the structure.
    public func epskcPhase(structure: StructureID, deviceID: String) -> EpskcSession.Phase? {
        guard let router = structures[structure]?.home.thread.borderRouter(deviceID: deviceID) else { return nil }
        return epskcEntry(structure, router).session.phase
    }

    /// A commissioner tries to connect with `key`: the issued key connects it, a wrong one is a failed attempt
    /// (the tenth withdraws the key and reports `cancelled`).
    /// - Throws: the session's refusal (`epskcNotActive`, `epskcOutOfOrder` while another commissioner is
    ///   connected, `notSupported`), or `notBorderRouter` for another device.
    public func commissionerConnects(structure: StructureID, deviceID: String, key: String) throws(FlowError) {
        try commissionerEvent(structure, deviceID) { session throws(FlowError) in try session.connect(key: key) }
    }

    /// The connected commissioner's petition is accepted.
    public func commissionerPetitionAccepted(structure: StructureID, deviceID: String) throws(FlowError) {
        try commissionerEvent(structure, deviceID) { session throws(FlowError) in
            try session.acceptPetition()
            return nil
        }
    }

    /// The connected commissioner leaves: the key is spent (`keyUsed`).
    public func commissionerLeaves(structure: StructureID, deviceID: String) throws(FlowError) {
        try commissionerEvent(structure, deviceID) { session throws(FlowError) in try session.disconnect() }
    }

    private func commissionerEvent(
        _ structure: StructureID, _ deviceID: String,
        _ event: (inout EpskcSession) throws(FlowError) -> EpskcDeactivation?
    ) throws(FlowError) {
        let state = try existing(structure, else: structureNotFound(structure))
        guard let router = state.home.thread.borderRouter(deviceID: deviceID), let device = state.home.device(id: deviceID)
        else {
            throw FlowError(.notBorderRouter, "\"\(deviceID)\" is not a border router of structure \"\(structure)\"")
        }
        var entry = epskcEntry(structure, router)
        do throws(FlowError) {
            if let deactivation = try event(&entry.session) {
                endKey(&entry, structure, deviceID, deactivation)
            } else {
                epskc.routers[structure, default: [:]][deviceID] = entry
            }
        } catch {
            throw Self.labelled(error, device)
        }
    }

    /// Plays a commissioner script against one activation, step by step at its times (counted from the
    /// activation), until the script ends or the key does. Refused steps are skipped: a commissioner that finds the
    /// border router busy simply does not get in.
    func runCommissioner(
        _ script: [HomeDescription.CommissionerStep], _ structure: StructureID, _ deviceID: String,
        _ activatedAt: Duration, _ activation: Int
    ) async {
        for step in script.sorted(by: { $0.atSeconds < $1.atSeconds }) {
            guard await sleep(until: activatedAt + .seconds(rounding: step.atSeconds)), isActiveKey(structure, deviceID, activation),
                let issued = epskc.routers[structure]?[deviceID]?.session.activeKey?.key.revealedDigits
            else { return }
            switch step.action {
            case .useKey:
                guard (try? commissionerConnects(structure: structure, deviceID: deviceID, key: issued)) != nil,
                    (try? commissionerPetitionAccepted(structure: structure, deviceID: deviceID)) != nil,
                    await sleep(until: clock.now + .seconds(rounding: step.sessionSeconds)),
                    isActiveKey(structure, deviceID, activation)
                else { continue }
                try? commissionerLeaves(structure: structure, deviceID: deviceID)
            case .connect:
                try? commissionerConnects(structure: structure, deviceID: deviceID, key: issued)
            case .wrongKey:
                let wrong = Self.wrongKey(for: issued)
                for _ in 0..<step.count where isActiveKey(structure, deviceID, activation) {
                    try? commissionerConnects(structure: structure, deviceID: deviceID, key: wrong)
                }
            case .deactivate:
                guard var entry = epskc.routers[structure]?[deviceID],
                    let deactivation = try? entry.session.deactivate()
                else { continue }
                endKey(&entry, structure, deviceID, deactivation)
            }
        }
    }

    /// A key that is not the issued one (its first digit changed).
    static func wrongKey(for issued: String) -> String {
        let first = issued.first == "0" ? "1" : "0"
        return first + issued.dropFirst()
    }
}
