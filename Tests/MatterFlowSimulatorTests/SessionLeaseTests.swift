import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// The session lease: started by prepare, renewed by activity, expired through the session machine's `expire`
/// transition with an event, and operations on an expired session failing with `sessionExpired`.
@Suite("session lease")
struct SessionLeaseTests {
    static let topology = Topology(ecosystemName: "Google Home", homes: [])

    static func home(leaseSeconds: Double? = 10) -> HomeDescription {
        var home = TestHomes.basic()
        home.simulation.sessionLeaseSeconds = leaseSeconds
        return home
    }

    @Test("hub time is the wall clock when the hub's clock started plus the clock's reading: a hub made late on an old clock is not ahead of the wall clock; one following the wall clock stays on it as its clock runs ahead")
    func hubTimeIsAnchoredAtTheClocksStart() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(1000))
        let hub = try SimulatedHub(home: Self.home(), clock: clock)
        let wall = Date().timeIntervalSince1970
        #expect(abs(await hub.hubTime - wall) < 60, "made 1000 s into its clock, the hub is still on the wall clock")
        clock.advance(by: .seconds(400))
        #expect(abs(await hub.hubTime - wall - 400) < 60, "and follows its clock from there")
        await hub.followWallClock()
        #expect(abs(await hub.hubTime - Date().timeIntervalSince1970) < 60, "following the wall clock, the clock's lead is not hub time")
        clock.advance(by: .seconds(400))
        #expect(abs(await hub.hubTime - Date().timeIntervalSince1970) < 60)
    }

    @Test("the documented default is five minutes")
    func defaultLease() async throws {
        #expect(SessionLease.defaultDuration == .seconds(300))
        let (hub, clock) = try TestHomes.hub()
        _ = try await hub.prepareCommissioning(structure: TestHomes.structureID)
        clock.advance(by: .seconds(299))
        #expect(try await hub.status(structure: TestHomes.structureID).activeSession)
        clock.advance(by: .seconds(1))
        #expect(try await hub.status(structure: TestHomes.structureID).activeSession == false)
    }

    @Test("a session left alone expires: the event is reported and its pending devices are removed")
    func expiry() async throws {
        let clock = ManualClock()
        let hub = try SimulatedHub(home: Self.home(), clock: clock)
        let id = TestHomes.structureID
        let delivered = Mutex<[HubEvent]>([])
        let subscription = await hub.subscribe(structure: id) { event in delivered.withLock { $0.append(event) } }
        defer { subscription.cancel() }
        let session = try await hub.prepareCommissioning(structure: id)
        _ = try await hub.createAddDeviceRequest(structure: id, topology: Self.topology)
        try await hub.commissionDevice(structure: id, onboardingPayload: Payloads.specQR, commissioningID: "c-1")
        let pending = try #require(try await hub.activeSession(structure: id)).pendingDeviceIDs
        #expect(pending.count == 1)
        #expect(try await hub.snapshot(structure: id).devices.count == 2)

        clock.advance(by: .seconds(10))
        #expect(try await hub.status(structure: id).activeSession == false)
        #expect(try await hub.activeSession(structure: id) == nil)
        #expect(try await hub.snapshot(structure: id).devices.map(\.id) == ["device-existing"])
        let events = await hub.sessionExpiryEvents
        #expect(events.count == 1)
        #expect(events.first?.name == SessionLease.expiredEventName)
        #expect(events.first?.value == "leaseExpired")
        #expect(events.first?.fields["sessionID"]?.stringValue == session)
        #expect(events.first?.fields["phase"]?.stringValue == "commissioned")
        #expect(delivered.withLock { $0 } == events, "subscribers get the expiry event")

        // Operations on the expired session fail clearly; prepare may start a new one.
        let error = try #require(await expectFailure(.sessionExpired) {
            try await hub.configureDevice(structure: id, name: "Lamp", roomName: nil)
        })
        #expect(error.code == .failedPrecondition)
        #expect(error.message.contains("expired"))
        #expect(error.message.contains(session))
        #expect(error.message.contains("prepare again"))
        _ = try await hub.prepareCommissioning(structure: id)
    }

    @Test("every change to the session renews its lease")
    func renewal() async throws {
        let clock = ManualClock()
        let hub = try SimulatedHub(home: Self.home(), clock: clock)
        let id = TestHomes.structureID
        _ = try await hub.prepareCommissioning(structure: id)
        clock.advance(by: .seconds(8))
        _ = try await hub.createAddDeviceRequest(structure: id, topology: Self.topology)
        clock.advance(by: .seconds(8))
        #expect(try await hub.status(structure: id).activeSession, "16 s after prepare, 8 s after the request")
        try await hub.commissionDevice(structure: id, onboardingPayload: Payloads.specQR, commissioningID: "c-1")
        clock.advance(by: .seconds(9))
        try await hub.configureDevice(structure: id, name: "Lamp", roomName: "Kitchen")
        clock.advance(by: .seconds(9))
        #expect(try await hub.completeCommissioning(structure: id).count == 1)
        #expect(await hub.sessionExpiryEvents.isEmpty)
    }

    @Test("the lease runs out while a slow commissioning waits: the device is not added")
    func expiresMidCommissioning() async throws {
        var home = Self.home(leaseSeconds: 5)
        home.simulation.latencySeconds = [.commissionDevice: 10]
        let clock = VirtualClock()
        let hub = try SimulatedHub(home: home, clock: clock)
        let id = TestHomes.structureID
        _ = try await hub.prepareCommissioning(structure: id)
        _ = try await hub.createAddDeviceRequest(structure: id, topology: Self.topology)
        let hold = ClockHold(clock)
        defer { hold.release() }
        let error = try #require(await expectFailure(.sessionExpired) {
            try await hub.commissionDevice(structure: id, onboardingPayload: Payloads.specQR, commissioningID: "c-1")
        })
        #expect(error.message.contains("lease ran out"))
        #expect(try await hub.snapshot(structure: id).devices.map(\.id) == ["device-existing"])
        #expect(await hub.sessionExpiryEvents.count == 1)
    }

    @Test("the lease deadline and owner are saved, so another process sees the session expire")
    func persistedLease() async throws {
        let directory = try makeTemporaryDirectory()
        defer { removeDirectory(directory) }
        let first = try SimulatedHub(
            stateStore: try HomeStateStore(directory: directory, startingFrom: Self.home()), clock: ManualClock())
        await first.setTimeOrigin(1_000)
        let context = HubCallContext(runID: "run-owner", idempotencyKey: "run-owner/1")
        _ = try await HubCallContext.$current.withValue(context) {
            try await first.prepareCommissioning(structure: TestHomes.structureID)
        }
        let saved = try #require(try HomeStateStore.loadSaved(directory: directory)?.activeSession)
        #expect(saved.owner == "run-owner")
        #expect(saved.leaseExpiresAt == 1_010)

        let second = try SimulatedHub(
            stateStore: try HomeStateStore(directory: directory, startingFrom: Self.home()), clock: ManualClock())
        await second.setTimeOrigin(1_009)
        #expect(try await second.activeSession(structure: TestHomes.structureID)?.owner == "run-owner")
        await second.setTimeOrigin(1_010)
        #expect(try await second.activeSession(structure: TestHomes.structureID) == nil)
        #expect(try HomeStateStore.loadSaved(directory: directory)?.activeSession == nil)
        #expect(await second.sessionExpiryEvents.count == 1)
    }
}
