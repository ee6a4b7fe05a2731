import MatterFlow

/// ePSKc on the simulated hub: activation and deactivation calls, the key's expiry timer, the scripted
/// commissioner, and the `epskcModeDeactivated` events they cause.
///
/// Each border router's mode is an ``EpskcSession``. The tasks the hub starts for a key (its expiry timer, its
/// commissioner) are started with ``WorkflowClock/task(_:)``, working on the hub's clock until they end, and wait
/// only by sleeping on that clock, so on virtual time a key's two minutes pass at once. Events are delivered from the task that ends the key.
extension SimulatedHub {
    /// Activates ePSKc mode on a border router and issues a new key (8 random digits from a secure source, then a
    /// Verhoeff check digit); the key expires after the granted duration, on the hub's clock.
    public func activateEpskc(
        structure: StructureID, deviceID: String, requestedDurationSeconds: Int?
    ) async throws -> EpskcActivation {
        try await perform(.activateEpskc, structure) { _ in
            let (router, device) = try self.epskcTarget(
                structure, deviceID, command: BorderRouterTraits.activateEpskcMode)
            guard router.network != nil || !router.offersEpskc else {
                // ePSKc lets a commissioner reach the network the router is on: with none, there is nothing to share.
                // (A router without ePSKc is refused as such, below.)
                throw FlowError(
                    .notOnThreadNetwork,
                    "border router \(device.name) (\(deviceID)) is on no Thread network, so it has no credentials to share; join it to one first (join-network)")
            }
            var entry = self.epskcEntry(structure, router)
            let key = EpskcKey.generate(using: self.epskc.random)
            let active: EpskcSession.ActiveKey
            do throws(FlowError) {
                active = try entry.session.activate(
                    requestedDurationSeconds: requestedDurationSeconds, key: key, at: self.clock.now)
            } catch {
                throw Self.labelled(error, device)
            }
            entry.activation += 1
            entry.tasks = self.startKeyTasks(
                structure, deviceID, active, activation: entry.activation,
                script: self.epskc.scriptOverrides[structure] ?? router.commissioner)
            self.epskc.routers[structure, default: [:]][deviceID] = entry
            return EpskcActivation(
                status: "success", epskc: key.revealedDigits, validDurationSeconds: active.validDurationSeconds)
        }
    }

    /// Deactivates ePSKc mode at once (reason `cancelled`), ending a connected commissioner's session too.
    public func deactivateEpskc(structure: StructureID, deviceID: String) async throws {
        try await perform(.deactivateEpskc, structure) { _ in
            let (router, device) = try self.epskcTarget(
                structure, deviceID, command: BorderRouterTraits.deactivateEpskcMode)
            var entry = self.epskcEntry(structure, router)
            do throws(FlowError) {
                let deactivation = try entry.session.deactivate()
                self.endKey(&entry, structure, deviceID, deactivation)
            } catch {
                throw Self.labelled(error, device)
            }
        }
    }

    // MARK: - Internals

    /// The border router an ePSKc call is for, once the hub is online and the router supports the command.
    private func epskcTarget(
        _ structure: StructureID, _ deviceID: String, command: String
    ) throws(FlowError) -> (HomeDescription.BorderRouter, HomeDescription.Device) {
        let state = try existing(structure, else: deviceMissing(structure, deviceID))
        let (_, router, device) = try state.borderRouter(deviceID)
        try state.requireSupport(router, device, BorderRouterTraits.management, .commands, command)
        return (router, device)
    }

    /// A border router's ePSKc state, created on first use: `stopped` when it offers ePSKc, `disabled` otherwise.
    func epskcEntry(_ structure: StructureID, _ router: HomeDescription.BorderRouter) -> EpskcRuntime.Router {
        epskc.routers[structure]?[router.deviceID] ?? EpskcRuntime.Router(session: EpskcSession(supported: router.offersEpskc))
    }

    /// Whether `activation` is still the active key of a border router.
    func isActiveKey(_ structure: StructureID, _ deviceID: String, _ activation: Int) -> Bool {
        guard let entry = epskc.routers[structure]?[deviceID] else { return false }
        return entry.activation == activation && entry.session.isActive
    }

    /// Ends a border router's active ePSKc key, if it has one (`cancelled`, detail `deactivated`), as its Thread stack
    /// resets when it leaves or changes networks.
    func withdrawKey(_ structure: StructureID, _ deviceID: String) {
        guard var entry = epskc.routers[structure]?[deviceID], entry.session.isActive,
            let deactivation = try? entry.session.deactivate()
        else { return }
        endKey(&entry, structure, deviceID, deactivation)
    }

    /// Ends a key: stops its tasks, stores the session and tells subscribers.
    func endKey(
        _ entry: inout EpskcRuntime.Router, _ structure: StructureID, _ deviceID: String, _ deactivation: EpskcDeactivation
    ) {
        for task in entry.tasks { task.cancel() }
        entry.tasks = []
        epskc.routers[structure, default: [:]][deviceID] = entry
        let event = EpskcModeDeactivatedEvent(deviceID: deviceID, deactivation: deactivation, time: clock.now)
        hubEvents.publish(event.hubEvent(structure: structure))
    }

    /// Starts the key's expiry timer and, when scripted, its commissioner; each counted as activity on the clock.
    private func startKeyTasks(
        _ structure: StructureID, _ deviceID: String, _ key: EpskcSession.ActiveKey, activation: Int,
        script: [HomeDescription.CommissionerStep]
    ) -> [Task<Void, Never>] {
        var tasks = [clock.task { await self.runExpiryTimer(structure, deviceID, key.expiresAt, activation) }]
        if !script.isEmpty {
            tasks.append(clock.task { await self.runCommissioner(script, structure, deviceID, key.activatedAt, activation) })
        }
        return tasks
    }

    private func runExpiryTimer(_ structure: StructureID, _ deviceID: String, _ deadline: Duration, _ activation: Int) async {
        guard await sleep(until: deadline), isActiveKey(structure, deviceID, activation),
            var entry = epskc.routers[structure]?[deviceID]
        else { return }
        do {
            let deactivation = try entry.session.expire(at: clock.now)
            endKey(&entry, structure, deviceID, deactivation)
        } catch {
            // The timer slept until the deadline, so the key has expired; a refusal would leave the key as it is.
        }
    }

    /// Sleeps on the hub's clock until a time; false when cancelled (the key ended).
    func sleep(until deadline: Duration) async -> Bool {
        let delay = deadline - clock.now
        guard delay > .zero else { return !Task.isCancelled }
        do {
            try await clock.sleep(for: delay)
            return true
        } catch {
            return false
        }
    }

    /// Prefixes a state machine's refusal with the border router's name.
    static func labelled(_ error: FlowError, _ device: HomeDescription.Device) -> FlowError {
        var copy = error
        copy.message = "border router \"\(device.name)\" (\(device.id)): \(error.message)"
        return copy
    }
}
