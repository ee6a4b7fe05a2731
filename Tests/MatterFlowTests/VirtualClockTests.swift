import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// Virtual time: simulated minutes pass at once, and runs are repeatable.
@Suite struct VirtualClockTests {
    static let inputs: JSONObject = ["onboardingPayload": "MT:Y.K9042C00KA0648G00", "deviceName": "Lamp", "roomName": "Kitchen"]

    func workflow() throws -> Workflow {
        try WorkflowEngine().load(path: Repository.workflow("commission-device.json"))
    }

    @Test(.timeLimit(.minutes(1)))
    func aWaitForSleepersEndsWhenItsTaskIsCancelled() async throws {
        let clock = ManualClock()
        let waiting = Task { await clock.waitForSleepers(5) }
        // Cancelled before or after it has begun to wait: either way it returns, though no task ever sleeps.
        await Task.yield()
        waiting.cancel()
        await waiting.value
        let cancelledFirst = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            await clock.waitForSleepers(5)
        }
        await cancelledFirst.value
    }

    @Test func sleepersWakeInDeadlineOrderWhenNothingElseRuns() async throws {
        let clock = VirtualClock()
        let order = MutexBox<[Int]>([])
        let hold = ClockHold(clock)
        let tasks = [3, 1, 2].map { seconds in
            clock.task {
                try? await clock.sleep(for: .seconds(seconds))
                order.mutate { $0.append(seconds) }
            }
        }
        hold.release()
        for task in tasks { await task.value }
        #expect(order.value == [1, 2, 3])
        #expect(clock.now == .seconds(3))
        #expect(clock.activeTasks == 0)
    }

    @Test func theDefaultHomesLatencyPassesInVirtualTime() async throws {
        let clock = VirtualClock()
        let hub = try SimulatedHub(home: HomeDescription.defaultHome, clock: clock)
        let result = try await WorkflowEngine().run(
            try workflow(), inputs: Self.inputs, on: hub,
            options: RunOptions(structureID: HomeDescription.defaultHome.structure.id, clock: clock, random: SeededRandomSource(seed: 1)))
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(clock.now == .seconds(1), "commissionDevice takes 1 s in the default home")
    }

    @Test func aHangingHubTimesOutAtTheOperationsDefaultTimeout() async throws {
        let clock = VirtualClock()
        let home = HomeDescription.defaultHome.withoutSimulatedLatency
        let hub = try SimulatedHub(home: home, clock: clock)
        await hub.addFault(.hang(.commissionDevice), structure: home.structure.id)
        let result = try await WorkflowEngine().run(
            try workflow(), inputs: Self.inputs, on: hub, options: RunOptions(structureID: home.structure.id, clock: clock))
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .actionTimedOut)
        #expect(clock.now == .seconds(120))
        #expect(try await hub.snapshot(structure: home.structure.id).activeSession == nil)
    }

    @Test func retriesWaitTheirBackoffInVirtualTime() async throws {
        let clock = VirtualClock()
        let home = HomeDescription.defaultHome.withoutSimulatedLatency
        let hub = try SimulatedHub(home: home, clock: clock)
        await hub.addFault(.fail(.commissionDevice, attempts: 1...2, with: FlowError(.deviceUnreachable, "no answer")), structure: home.structure.id)
        let result = try await WorkflowEngine().run(
            try workflow(), inputs: Self.inputs, on: hub, options: RunOptions(structureID: home.structure.id, clock: clock))
        #expect(result.outcome == .succeeded)
        #expect(clock.now == .seconds(3 + 6), "commission.json retries after 3 s, then 6 s")
    }

    @Test func manyRunsShareOneVirtualClock() async throws {
        let clock = VirtualClock()
        let homes = (0..<20).map { index -> HomeDescription in
            var home = HomeDescription.defaultHome
            home.structure.id = "home-\(index)"
            return home
        }
        let hub = try SimulatedHub(homes: homes, clock: clock)
        let workflow = try workflow()
        let results = try await withThrowingTaskGroup(of: RunResult.self) { group in
            for home in homes {
                group.addTask {
                    try await WorkflowEngine().run(workflow, inputs: Self.inputs, on: hub, options: RunOptions(structureID: home.structure.id, clock: clock))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count == 20)
        #expect(results.allSatisfy { $0.outcome == .succeeded })
        #expect(clock.now == .seconds(1), "the runs overlap in virtual time")
    }
}
