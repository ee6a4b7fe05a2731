import MatterFlow
@testable import MatterFlowSimulator
import Testing

@Suite("Simulated hub: fault plans and the call record")
struct FaultPlanTests {
    let structure = TestHomes.structureID

    @Test("attempts 1-2 fail with the scripted error, the third succeeds, and the record shows it")
    func failingAttempts() async throws {
        let (hub, _) = try TestHomes.hub()
        let unreachable = FlowError(.hubUnreachable, "scripted: the hub did not answer")
        await hub.addFault(.fail(.prepareCommissioning, attempts: 1...2, with: unreachable), structure: structure)
        let first = await expectFailure(.hubUnreachable) { try await hub.prepareCommissioning(structure: structure) }
        #expect(first == unreachable)
        await expectFailure(.hubUnreachable) { try await hub.prepareCommissioning(structure: structure) }
        _ = try await hub.prepareCommissioning(structure: structure)

        let records = await hub.calls(.prepareCommissioning, structure: structure)
        #expect(records.map(\.attempt) == [1, 2, 3])
        #expect(records.map(\.outcome) == [
            .failed(code: .unavailable, cause: .hubUnreachable), .failed(code: .unavailable, cause: .hubUnreachable),
            .succeeded,
        ])
        #expect(records.map(\.faultInjected) == [true, true, false])
        #expect(await hub.attemptCount(.prepareCommissioning, structure: structure) == 3)
    }

    @Test("a scripted commissioning failure returns the session to requested; the retry succeeds")
    func commissionFailure() async throws {
        let (hub, _) = try TestHomes.hub()
        await hub.setFaultPlan(
            FaultPlan([.fail(.commissionDevice, attempts: 1...1, with: FlowError(.deviceUnreachable, "scripted"))]),
            structure: structure)
        try await prepareAndRequest(hub)
        await expectFailure(.deviceUnreachable) {
            try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        }
        #expect(try await hub.snapshot(structure: structure).activeSession?.phase == .requested)
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        #expect(try await hub.completeCommissioning(structure: structure).count == 1)
    }

    @Test("a hanging call waits on the clock until its task is cancelled")
    func hang() async throws {
        var home = TestHomes.basic()
        home.simulation.sessionLeaseSeconds = 10 * 365 * 86_400  // the session outlives the year-long hang
        let (hub, clock) = try TestHomes.hub(home)
        await hub.addFault(.hang(.commissionDevice), structure: structure)
        try await prepareAndRequest(hub)
        let task = Task {
            try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        }
        await clock.waitForSleepers(1)
        clock.advanceToNextDeadline()  // a year later it is still hanging
        await clock.waitForSleepers(1)
        #expect(try await hub.snapshot(structure: structure).activeSession?.phase == .commissioning)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(try await hub.snapshot(structure: structure).activeSession?.phase == .requested)
        let record = try #require(await hub.calls(.commissionDevice, structure: structure).last)
        #expect(record.outcome == .failed(code: .cancelled, cause: .runCancelled))
        #expect(record.faultInjected)
    }

    @Test("a delay adds latency on the hub's clock, then the call behaves normally")
    func delay() async throws {
        let (hub, clock) = try TestHomes.hub()
        await hub.addFault(.delay(.fetchRooms, attempts: 2...2, by: .seconds(5)), structure: structure)
        _ = try await hub.fetchRooms(structure: structure)
        let task = Task { try await hub.fetchRooms(structure: structure) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(5))
        #expect(try await task.value.count == 2)
        let records = await hub.calls(.fetchRooms, structure: structure)
        #expect(records.map { $0.finishedAt - $0.startedAt } == [.zero, .seconds(5)])
    }

    @Test("delays before a failure add up, and the failure ends the call")
    func delayThenFail() async throws {
        let plan = FaultPlan([
            .delay(.fetchRooms, by: .seconds(1)), .delay(.fetchRooms, by: .seconds(2)),
            .fail(.fetchRooms, with: FlowError(.hubOffline, "scripted")), .hang(.fetchRooms),
        ])
        #expect(plan.faults(for: .fetchRooms, attempt: 9) == [
            .delay(.seconds(1)), .delay(.seconds(2)), .fail(FlowError(.hubOffline, "scripted")),
        ])
        #expect(plan.faults(for: .prepareCommissioning, attempt: 1).isEmpty)
    }

    @Test("resetting the call history restarts attempt numbers; an empty plan removes faults")
    func reset() async throws {
        let (hub, _) = try TestHomes.hub()
        await hub.addFault(.fail(.readHubStatus, attempts: 1...1, with: FlowError(.injectedFault, "x")), structure: structure)
        await expectFailure(.injectedFault) { try await hub.status(structure: structure) }
        _ = try await hub.status(structure: structure)
        await hub.resetCallHistory(structure: structure)
        #expect(await hub.calls(structure: structure).isEmpty)
        await expectFailure(.injectedFault) { try await hub.status(structure: structure) }
        await hub.setFaultPlan(FaultPlan(), structure: structure)
        await hub.resetCallHistory(structure: structure)
        _ = try await hub.status(structure: structure)
        #expect(await hub.faultPlan(structure: structure).isEmpty)
    }

    @Test("a hub answering for days keeps the newest calls' records, not all; attempt numbers count every call")
    func recordsAreBounded() async throws {
        let (hub, _) = try TestHomes.hub()
        await hub.setCallRecordLimit(10)
        for _ in 0..<57 { _ = try await hub.fetchRooms(structure: structure) }
        let kept = await hub.callRecords
        #expect(kept.map(\.attempt) == Array(48...57), "the newest 10, oldest first")
        #expect(await hub.calls(.fetchRooms, structure: structure).map(\.attempt) == Array(48...57))
        #expect(await hub.attemptCount(.fetchRooms, structure: structure) == 57)
        // What is held stays under twice the limit however many calls are answered.
        #expect(await hub.records.count < 20)
    }

    @Test("records never contain the onboarding payload")
    func recordsHoldNoSecrets() async throws {
        let (hub, _) = try TestHomes.hub()
        try await prepareAndRequest(hub)
        try await hub.commissionDevice(structure: structure, onboardingPayload: Payloads.specQR, commissioningID: "c")
        let text = await hub.callRecords.map { "\($0) \(String(reflecting: $0))" }.joined()
        #expect(!text.contains(Payloads.specQR))
        #expect(!text.contains("20202021"))
    }
}
