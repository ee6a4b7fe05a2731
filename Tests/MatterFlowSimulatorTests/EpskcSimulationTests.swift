import Foundation
import MatterFlow
import MatterFlowSimulator
import MatterPayload
import Testing

/// ePSKc on the simulated hub: activation rules, expiry on the hub's clock, the scripted and the directly driven
/// commissioner, events, support checks, and keys that never reach saved state.
@Suite struct EpskcSimulationTests {
    typealias Step = HomeDescription.CommissionerStep
    let structure = BorderRouterHomes.structureID
    let router = BorderRouterHomes.routerID

    func hub(
        commissioner: [Step] = [], clock: any WorkflowClock = VirtualClock(),
        router: HomeDescription.BorderRouter? = nil
    ) throws -> SimulatedHub {
        var entry = try router ?? BorderRouterHomes.routerOnNetwork()
        entry.commissioner = commissioner
        return try SimulatedHub(home: BorderRouterHomes.home(entry), clock: clock)
    }

    @Test func activationIssuesAVerhoeffKeyForTheGrantedDuration() async throws {
        let hub = try hub()
        await hub.setEpskcRandomSource(SeededRandomSource(seed: 3))
        let activation = try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: nil)
        #expect(activation.status == "success")
        #expect(activation.validDurationSeconds == 120)
        #expect(activation.epskc.count == 9 && Verhoeff.isValid(activation.epskc))
        #expect(activation.epskc == EpskcKey.generate(using: SeededRandomSource(seed: 3)).revealedDigits)
        #expect(await hub.epskcPhase(structure: structure, deviceID: router) == .started)
    }

    @Test func aSecondActivationIsBusyAndTooLongADurationIsRefused() async throws {
        let hub = try hub(clock: ManualClock())
        _ = try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: 600)
        let busy = await expectFailure(.epskcAlreadyActive) {
            try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: 30)
        }
        #expect(busy?.message.contains("\"Hall Hub\"") == true)
        let other = try self.hub(clock: ManualClock())
        await expectFailure(.invalidArgumentValue) {
            try await other.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: 601)
        }
        #expect(await other.epskcPhase(structure: structure, deviceID: router) == .stopped)
    }

    @Test("a router on no Thread network has nothing to share: activation is refused")
    func noNetworkNoKey() async throws {
        let hub = try hub(router: HomeDescription.BorderRouter(deviceID: BorderRouterHomes.routerID))
        let refused = await expectFailure(.notOnThreadNetwork) {
            try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: 60)
        }
        #expect(refused?.code == .failedPrecondition)
        #expect(refused?.message.contains("join it to one first") == true)
        #expect(await hub.epskcPhase(structure: structure, deviceID: router) == .stopped)
    }

    @Test("leaving the network, or migrating to another, ends the active key: cancelled")
    func leavingOrMigratingEndsTheKey() async throws {
        for migrate in [false, true] {
            let hub = try hub(clock: ManualClock())
            var events = await hub.epskcModeDeactivatedEvents(structure: structure).makeAsyncIterator()
            _ = try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: 600)
            if migrate {
                let moved = try await hub.joinThreadNetwork(
                    structure: structure, deviceID: router, operationalDataset: try BorderRouterHomes.bytes(BorderRouterHomes.networkDe2b))
                #expect(moved.status == .migrated)
            } else {
                #expect(try await hub.leaveThreadNetwork(structure: structure, deviceID: router).status == .left)
            }
            let event = try #require(await events.next())
            #expect(event.reason == .cancelled, "migrate: \(migrate)")
            #expect(await hub.epskcPhase(structure: structure, deviceID: router) == .stopped)
        }
        // Joining the network it is on changes nothing: the key stays.
        let hub = try hub(clock: ManualClock())
        _ = try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: 600)
        let same = try await hub.joinThreadNetwork(
            structure: structure, deviceID: router, operationalDataset: try BorderRouterHomes.bytes(BorderRouterHomes.network5938))
        #expect(same.status == .alreadyJoined)
        #expect(await hub.epskcPhase(structure: structure, deviceID: router) == .started)
    }

    @Test func theKeyExpiresExactlyAtItsDurationOnTheHubsClock() async throws {
        let clock = ManualClock()
        let hub = try hub(clock: clock)
        var events = await hub.epskcModeDeactivatedEvents(structure: structure).makeAsyncIterator()
        _ = try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: 90)
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(89))
        #expect(await hub.epskcPhase(structure: structure, deviceID: router) == .started)
        clock.advance(by: .seconds(1))
        let event = try #require(await events.next())
        #expect(event.deviceID == router)
        #expect(event.reason == .expired)
        #expect(event.detail == .timeout)
        #expect(event.time == .seconds(90))
        #expect(await hub.epskcPhase(structure: structure, deviceID: router) == .stopped)
    }

    struct Scenario: Sendable, CustomTestStringConvertible {
        var name: String
        var script: [HomeDescription.CommissionerStep]
        var reason: EpskcDeactivationReason
        var detail: EpskcDeactivationDetail
        var failedAttempts: Int
        var seconds: Int64
        var testDescription: String { name }
    }

    static let scenarios: [Scenario] = [
        Scenario(
            name: "a commissioner uses the key 30 s after activation", script: [Step(atSeconds: 30, action: .useKey, sessionSeconds: 5)],
            reason: .keyUsed, detail: .commissionerFinished, failedAttempts: 0, seconds: 35),
        Scenario(
            name: "no commissioner ever connects", script: [], reason: .expired, detail: .timeout, failedAttempts: 0,
            seconds: 120),
        Scenario(
            name: "a step beyond any real time (a home built in code, not range-checked) never comes",
            script: [Step(atSeconds: 1e300, action: .useKey)], reason: .expired, detail: .timeout, failedAttempts: 0,
            seconds: 120),
        Scenario(
            name: "three wrong keys, then nothing", script: [Step(atSeconds: 5, action: .wrongKey, count: 3)],
            reason: .expired, detail: .timeout, failedAttempts: 3, seconds: 120),
        Scenario(
            name: "ten wrong keys withdraw the key", script: [Step(atSeconds: 5, action: .wrongKey, count: 10)],
            reason: .cancelled, detail: .tooManyFailedAttempts, failedAttempts: 10, seconds: 5),
        Scenario(
            name: "a connected commissioner is cut off by the expiry", script: [Step(atSeconds: 10, action: .connect)],
            reason: .expired, detail: .timeoutEndedSession, failedAttempts: 0, seconds: 120),
        Scenario(
            name: "another app deactivates", script: [Step(atSeconds: 20, action: .deactivate), Step(atSeconds: 30, action: .useKey)],
            reason: .cancelled, detail: .deactivated, failedAttempts: 0, seconds: 20),
        Scenario(
            name: "two wrong keys before the right one", script: [
                Step(atSeconds: 1, action: .wrongKey, count: 2), Step(atSeconds: 2, action: .useKey, sessionSeconds: 0),
            ],
            reason: .keyUsed, detail: .commissionerFinished, failedAttempts: 2, seconds: 2),
    ]

    @Test("the scripted commissioner, on virtual time", arguments: scenarios)
    func scriptedCommissioner(_ scenario: Scenario) async throws {
        let clock = VirtualClock()
        let hub = try hub(commissioner: scenario.script, clock: clock)
        var events = await hub.epskcModeDeactivatedEvents(structure: structure).makeAsyncIterator()
        _ = try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: nil)
        let event = try #require(await events.next())
        #expect(event.reason == scenario.reason)
        #expect(event.detail == scenario.detail)
        #expect(event.failedAttempts == scenario.failedAttempts)
        #expect(event.time == .seconds(scenario.seconds))
        #expect(await hub.epskcPhase(structure: structure, deviceID: router) == .stopped)
    }

    @Test func aScriptSetForTheStructureReplacesTheHomes() async throws {
        let hub = try hub(commissioner: [Step(atSeconds: 30, action: .useKey)])
        await hub.setCommissionerScript([], structure: structure)
        var events = await hub.epskcModeDeactivatedEvents(structure: structure).makeAsyncIterator()
        _ = try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: 45)
        #expect(await events.next()?.detail == .timeout)
        await hub.setCommissionerScript(nil, structure: structure)
        _ = try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: 45)
        #expect(await events.next()?.reason == .keyUsed)
    }

    @Test func aCommissionerDrivenDirectly() async throws {
        let clock = ManualClock()
        let hub = try hub(clock: clock)
        await hub.setEpskcRandomSource(SeededRandomSource(seed: 1))
        var events = await hub.epskcModeDeactivatedEvents(structure: structure).makeAsyncIterator()
        let key = try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: nil).epskc
        try await hub.commissionerConnects(structure: structure, deviceID: router, key: "000000000")
        try await hub.commissionerConnects(structure: structure, deviceID: router, key: key)
        #expect(await hub.epskcPhase(structure: structure, deviceID: router) == .connected)
        // One commissioner at a time.
        await expectFailure(.epskcOutOfOrder) { try await hub.commissionerConnects(structure: structure, deviceID: router, key: key) }
        // Deactivating ends the connected commissioner's session too.
        try await hub.deactivateEpskc(structure: structure, deviceID: router)
        let event = try #require(await events.next())
        #expect(event.reason == .cancelled && event.detail == .deactivated && event.failedAttempts == 1)
        await expectFailure(.epskcNotActive) { try await hub.commissionerConnects(structure: structure, deviceID: router, key: key) }
        await expectFailure(.epskcNotActive) { try await hub.deactivateEpskc(structure: structure, deviceID: router) }
    }

    @Test func unsupportedRoutersAndWrongDevicesAreRefusedBeforeAnythingIsActivated() async throws {
        var noManagement = HomeDescription.BorderRouter(deviceID: router)
        noManagement.traits = [TraitSupport(name: BorderRouterTraits.capabilities, attributes: [BorderRouterTraits.epskcSupported])]
        let bare = try hub(router: noManagement)
        let missing = await expectFailure(.notSupported) {
            try await bare.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: nil)
        }
        #expect(missing?.message.contains("ThreadNetworkManagement.activateEpskcMode") == true)
        #expect(missing?.message.contains("lacks the ThreadNetworkManagement trait") == true)

        var disabled = HomeDescription.BorderRouter(deviceID: router)
        disabled.capabilities.epskcSupported = false
        let off = try hub(router: disabled)
        let refusal = await expectFailure(.notSupported) {
            try await off.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: nil)
        }
        #expect(refusal?.message.contains("does not offer ePSKc") == true)
        #expect(await off.epskcPhase(structure: structure, deviceID: router) == .disabled)

        let hub = try hub()
        await expectFailure(.notBorderRouter) {
            try await hub.activateEpskc(structure: structure, deviceID: BorderRouterHomes.lockID, requestedDurationSeconds: nil)
        }
        await expectFailure(.deviceNotFound) {
            try await hub.activateEpskc(structure: structure, deviceID: "device-routr", requestedDurationSeconds: nil)
        }
        try await hub.setOnline(false, structure: structure)
        await expectFailure(.hubOffline) {
            try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: nil)
        }
        #expect(await hub.epskcPhase(structure: structure, deviceID: router) == .stopped)
        #expect(await hub.calls(.activateEpskc, structure: structure).count == 3)
    }

    @Test func keysNeverReachSavedState() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let store = try HomeStateStore(directory: directory, startingFrom: BorderRouterHomes.home(try BorderRouterHomes.routerOnNetwork()))
        let hub = try SimulatedHub(stateStore: store, clock: ManualClock())
        _ = try await hub.setInternetAccess(structure: structure, option: .all)
        let key = try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: nil).epskc
        let saved = try String(contentsOfFile: store.path, encoding: .utf8)
        #expect(!saved.contains(key))
        #expect(!saved.contains(BorderRouterHomes.network5938Key))
        #expect(!saved.contains(BorderRouterHomes.network5938PSKc))
        // A hub opened from the saved state sees the border router with no active key.
        let reopened = try SimulatedHub(stateStore: try HomeStateStore(directory: directory, startingFrom: BorderRouterHomes.home(try BorderRouterHomes.routerOnNetwork())))
        #expect(await reopened.epskcPhase(structure: structure, deviceID: router) == .stopped)
    }

    @Test func theEventStreamEndsItsSubscriptionWhenDropped() async throws {
        let hub = try hub()
        do {
            let stream = await hub.epskcModeDeactivatedEvents(structure: structure)
            #expect(await hub.eventSubscriberCount == 1)
            _ = stream
        }
        #expect(await hub.eventSubscriberCount == 0)
    }
}
