import MatterFlowJSON
import MatterFlowSimulator
import TestGates
import Testing

@testable import MatterFlow

/// A pool's run whose map state runs elements at once (`concurrency` above 1) runs them as a single run does: up to
/// `concurrency` at a time, each under its own call context, results in element order, the failure policy and the
/// run's cancel reaching the elements still running; and it ends exactly as the same run does in a
/// ``WorkflowEngine``.
@Suite struct RunPoolMapTests {
    /// The same workflow run once in a pool and once by an engine, each on a fresh hub from `makeHub` and its own
    /// virtual clock.
    static func bothWays(
        _ workflow: Workflow, _ makeHub: (VirtualClock) -> ScriptedHub
    ) async throws -> (pool: RunResult, engine: RunResult, poolHub: ScriptedHub, poolClock: VirtualClock) {
        let poolClock = VirtualClock()
        let poolHub = makeHub(poolClock)
        let pool = RunPool(hub: poolHub, clock: poolClock, random: SeededRandomSource(seed: 5))
        let run = try pool.submit(workflow, structureID: "s", runID: "run-1")
        let pooled = try #require(await pool.result(of: run))
        #expect(pool.runCount == 0, "the pool keeps neither the run nor its elements")
        let engineClock = VirtualClock()
        var options = RunOptions(structureID: "s", clock: engineClock, random: SeededRandomSource(seed: 5))
        options.runID = "run-1"
        let single = try await WorkflowEngine().run(workflow, on: makeHub(engineClock), options: options)
        #expect(engineClock.now == poolClock.now, "both take the same virtual time")
        return (pooled, single, poolHub, poolClock)
    }

    static func expectSame(_ pooled: RunResult, _ single: RunResult) {
        #expect(pooled.outcome == single.outcome)
        #expect(pooled.output == single.output)
        #expect(pooled.error == single.error)
        #expect(pooled.visitedStates == single.visitedStates)
        #expect(pooled.warnings == single.warnings)
    }

    @Test func upToConcurrencyElementsRunAtOnceAndTheRunEndsAsInAnEngine() async throws {
        let devices = (0..<7).map { "d-\($0)" }
        let items = "[" + devices.map { "\"\($0)\"" }.joined(separator: ", ") + "]"
        let workflow = try loadWorkflow(ConcurrentMapTests.workflow(items: items, concurrency: 3))
        let (pooled, single, hub, clock) = try await Self.bothWays(workflow) { clock in
            let hub = ScriptedHub()
            // Later elements end first, so ends arrive out of element order.
            for (index, device) in devices.enumerated() { hub.script(device: device, .sleep(.seconds(Double(9 - index)), clock)) }
            return hub
        }
        #expect(pooled.outcome == .succeeded, "\(String(describing: pooled.error))")
        Self.expectSame(pooled, single)
        #expect(hub.maxInFlight == 3, "three elements at a time, never more")
        #expect(hub.sameElementOverlaps.isEmpty, "one element's calls never overlap")
        #expect(clock.now > .seconds(9) && clock.now < .seconds(9 * 7), "the elements overlapped: \(clock.now)")
        #expect(Set(hub.contexts.compactMap { $0?.element }) == Set((0..<7).map { "each[\($0)]" }))
        #expect(hub.contexts.allSatisfy { $0?.idempotencyKey.hasPrefix("run-1/each[") == true })
        #expect(pooled.output?["elements"]?.arrayValue?.map { $0["item"] } == devices.map(JSONValue.string))
    }

    @Test func aFailureBeyondToleranceCancelsRunningElementsAndTheirCancelPathsRun() async throws {
        let workflow = try ConcurrentMapTests.cancellableTree(items: #"["d-0", "d-1", "d-2", "d-3", "d-4"]"#, concurrency: 3)
        let (pooled, single, hub, clock) = try await Self.bothWays(workflow) { clock in
            let hub = ScriptedHub()
            hub.script(device: "d-1", .failAfter(.seconds(1), clock, FlowError(.deviceNotFound, "no such device")))
            for device in ["d-0", "d-2", "d-3", "d-4"] { hub.script(device: device, .sleep(.seconds(8), clock)) }
            return hub
        }
        #expect(pooled.outcome == .failed)
        #expect(pooled.error?.cause == .mapElementsFailed, "\(String(describing: pooled.error))")
        Self.expectSame(pooled, single)
        // d-0 and d-2 were running: each took its cancel path; d-3 and d-4 never started.
        #expect(Set(hub.readDevices) == ["d-0", "d-1", "d-2", "cancelled-d-0", "cancelled-d-2"], "\(hub.readDevices)")
        #expect(clock.now < .seconds(8))
    }

    @Test func aToleratedFailureLetsTheOthersFinish() async throws {
        let workflow = try loadWorkflow(ConcurrentMapTests.workflow(items: #"["d-0", "d-1", "d-2"]"#, concurrency: 3, tolerate: 1))
        let (pooled, single, _, _) = try await Self.bothWays(workflow) { clock in
            let hub = ScriptedHub()
            hub.script(device: "d-1", .failAfter(.seconds(1), clock, FlowError(.deviceNotFound, "no such device")))
            for device in ["d-0", "d-2"] { hub.script(device: device, .sleep(.seconds(5), clock)) }
            return hub
        }
        #expect(pooled.outcome == .succeeded, "\(String(describing: pooled.error))")
        Self.expectSame(pooled, single)
        #expect(pooled.output?["elements"]?.arrayValue?.map { $0["status"] } == ["succeeded", "failed", "succeeded"])
        #expect(pooled.warnings.contains { $0.contains("element 1 (d-1)") && $0.contains("tolerated") }, "\(pooled.warnings)")
    }

    @Test func aRunCancelReachesEveryRunningElementAndTheMapTakesItsCancelPath() async throws {
        let workflow = try ConcurrentMapTests.cancellableTree(items: #"["d-0", "d-1", "d-2", "d-3"]"#, concurrency: 2)
        let clock = VirtualClock()
        let hub = ScriptedHub()
        for index in 0..<4 { hub.script(device: "d-\(index)", .sleep(.seconds(8), clock)) }
        let pool = RunPool(hub: hub, clock: clock, random: SeededRandomSource(seed: 6))
        // One second in, both running elements are inside their 8 s reads: the run is cancelled then. Virtual time
        // does not pass until the timer is set.
        let run = try clock.working { () throws(DiagnosticsError) -> RunPool.Run in
            let run = try pool.submit(workflow, structureID: "s")
            _ = clock.scheduleTimer(after: .seconds(1)) { pool.cancel(run) }
            return run
        }
        let result = try #require(await pool.result(of: run))
        #expect(result.outcome == .cancelled, "\(String(describing: result.error))")
        #expect(Set(hub.readDevices) == ["d-0", "d-1", "cancelled-d-0", "cancelled-d-1"], "\(hub.readDevices)")
        #expect(clock.now < .seconds(8))
        #expect(pool.runCount == 0)
    }

    @Test func anElementsEndWaitsForTheCallItAbandoned() async throws {
        let body = #"""
            {"workflow": "slow-read", "version": 1, "start": "read", "inputs": {"deviceID": {"type": "string", "required": true}},
             "states": {
              "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "${input.deviceID}"},
                       "timeoutSeconds": 5, "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
             }}
            """#
        let parent = #"""
            {"workflow": "w", "version": 1, "start": "each", "states": {
              "each": {"type": "map", "items": ["a"], "as": "deviceID", "maxItems": 2, "concurrency": 2, "tolerateFailures": 1,
                       "path": "slow-read.json", "inputs": {"deviceID": "${vars.deviceID}"}, "next": "after",
                       "onError": [{"errors": ["*"], "next": "failed"}]},
              "after": {"type": "action", "operation": "fetchRooms", "next": "done"},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#
        let directory = try WorkflowDirectory("pool-abandoned", files: ["slow-read.json": body, "parent.json": parent])
        defer { directory.remove() }
        let workflow = try WorkflowEngine().load(path: directory.path + "/parent.json")
        let hub = ScriptedHub()
        let gate = ScriptedHub.Gate()
        // The element's read ignores cancellation until the gate opens.
        hub.script(device: "a", .afterGate(gate))
        let clock = ManualClock()
        let (events, reported) = AsyncStream<RunEvent>.makeStream()
        let pool = RunPool(hub: hub, clock: clock, random: SeededRandomSource(seed: 8), observer: { reported.yield($0) })
        let recording = EventRecording()
        let run = try pool.submit(workflow, structureID: "s1", recording: recording)
        await clock.passTimeoutAndGrace()
        // The element has failed (tolerated), but the map waits for its abandoned read before it ends: the run has
        // not gone on to its next state's call.
        let warning = try #require(await firstWarning(in: events), "the run ended without waiting for the element's abandoned read")
        #expect(warning.message.contains("has not ended readBasicInformation"), "\(warning.message)")
        #expect(warning.event.workflowPath == ["w", "slow-read"], "\(warning.event.workflowPath)")
        #expect(hub.calls == ["readBasicInformation"])
        gate.open()
        let result = try #require(await pool.result(of: run))
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(hub.calls == ["readBasicInformation", "fetchRooms"])
        #expect(result.warnings.contains { $0.contains("has not ended readBasicInformation") }, "\(result.warnings)")
        #expect(result.warnings.contains { $0.contains("tolerated") }, "\(result.warnings)")
        // The wait is recorded too, as a single run's element records it.
        #expect(recording.events.contains { event in
            if case .warning(_, let message) = event.kind { message.contains("has not ended readBasicInformation") } else { false }
        }, "\(recording.events.map(\.name))")
    }

    @Test func aRunsOwnObserverHearsItsEventsAndItsElementsAndNoOtherRuns() async throws {
        let workflow = try loadWorkflow(ConcurrentMapTests.workflow(items: #"["d-0", "d-1", "d-2"]"#, concurrency: 2))
        let followed = EventLog()
        // No observer for the pool: only the followed run builds events.
        let pool = RunPool(hub: ScriptedHub(), clock: VirtualClock(), random: SeededRandomSource(seed: 9))
        let run = try pool.submit(workflow, structureID: "s1", runID: "followed", observer: followed.observer)
        let other = try pool.submit(workflow, structureID: "s2", runID: "other")
        #expect(try #require(await pool.result(of: run)).outcome == .succeeded)
        #expect(try #require(await pool.result(of: other)).outcome == .succeeded)
        #expect(Set(followed.all.map(\.runID)) == ["followed"])
        // The same events as the run made by an engine with an observer (elements in whatever order they ran).
        let single = EventLog()
        var options = RunOptions(structureID: "s1", clock: VirtualClock(), random: SeededRandomSource(seed: 9), observer: single.observer)
        options.runID = "followed"
        _ = try await WorkflowEngine().run(workflow, on: ScriptedHub(), options: options)
        #expect(followed.names.sorted() == single.names.sorted(), "\(followed.names)")
        #expect(followed.names.filter { $0 == "hubCallStarted" }.count == 3, "one read per element: \(followed.names)")
        #expect(followed.names.first == "runStarted" && followed.names.last == "runFinished", "\(followed.names)")
    }

    @Test func theShippedBridgeWorkflowRunsInAPool() async throws {
        let home = try HomeDescription.load(path: Repository.root + "/Examples/bridge-home.json").withoutSimulatedLatency
        let clock = VirtualClock()
        let hub = try SimulatedHub(home: home, clock: clock)
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-bridge.json"))
        let pool = RunPool(hub: hub, clock: clock, random: SeededRandomSource(seed: 7))
        let run = try pool.submit(workflow, inputs: ["onboardingPayload": "MT:O6PS0C1K01HWUR1VJ00"], structureID: home.structure.id)
        let result = try #require(await pool.result(of: run))
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        let deviceIDs = try #require(result.output?["deviceIDs"]?.arrayValue)
        #expect(deviceIDs.count == 4, "the bridge and the three devices behind it")
        let devices = try #require(result.output?["devices"]?.arrayValue)
        #expect(devices.map { $0["item"] } == deviceIDs)
        #expect(devices.allSatisfy { $0["status"] == "succeeded" })
        #expect(try await hub.snapshot(structure: home.structure.id).activeSession == nil)
    }
}
