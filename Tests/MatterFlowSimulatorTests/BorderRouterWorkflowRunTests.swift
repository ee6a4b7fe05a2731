import Foundation
import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import Synchronization
import Testing

/// Wait states against the real simulated hub on virtual time, and the shipped ePSKc workflows run through the
/// engine: an event that ends the wait, a timeout that does, and a cancelled share that withdraws its key.
@Suite struct BorderRouterWorkflowRunTests {
    let structure = BorderRouterHomes.structureID
    let router = BorderRouterHomes.routerID

    static func workflowPath(_ name: String) -> String {
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Workflows/\(name).json").path
    }

    /// Activates a 600-second key, then waits at most `timeout` seconds for its end.
    static func waitWorkflow(timeout: Int) -> String {
        """
        {"workflow": "wait-for-key", "version": 1, "start": "activate", "states": {
          "activate": {"type": "action", "operation": "activateEpskc",
                       "arguments": {"deviceID": "\(BorderRouterHomes.routerID)", "requestedDurationSeconds": 600},
                       "next": "wait"},
          "wait": {"type": "wait", "event": "epskcModeDeactivated", "match": {"deviceID": "\(BorderRouterHomes.routerID)"},
                   "timeoutSeconds": \(timeout), "result": "ended", "on": {"keyUsed": "used"}, "otherwise": "other",
                   "onTimeout": "stop"},
          "used": {"type": "succeed", "output": {"how": "used", "reason": "${vars.ended.reason}"}},
          "other": {"type": "succeed", "output": {"how": "other", "reason": "${vars.ended.reason}"}},
          "stop": {"type": "action", "operation": "deactivateEpskc", "arguments": {"deviceID": "\(BorderRouterHomes.routerID)"},
                   "next": "late"},
          "late": {"type": "succeed", "output": {"how": "late"}}
        }}
        """
    }

    func run(
        _ text: String, script: [HomeDescription.CommissionerStep]
    ) async throws -> (RunResult, [RunEvent], SimulatedHub) {
        let clock = VirtualClock()
        var router = (try BorderRouterHomes.routerOnNetwork())
        router.commissioner = script
        let hub = try SimulatedHub(home: BorderRouterHomes.home(router), clock: clock)
        let workflow = try WorkflowEngine().load(text: text, baseDirectory: "/")
        let log = EventCollector()
        let result = try await WorkflowEngine().run(
            workflow, on: hub, options: RunOptions(structureID: structure, clock: clock, observer: log.record))
        return (result, log.events, hub)
    }

    @Test func anEventBeforeTheTimeoutTakesItsTransitionAtItsVirtualTime() async throws {
        let (result, events, _) = try await run(Self.waitWorkflow(timeout: 60), script: [.init(atSeconds: 30, action: .useKey, sessionSeconds: 2)])
        #expect(result.output == ["how": "used", "reason": "keyUsed"])
        let received = try #require(events.first { if case .eventReceived = $0.kind { true } else { false } })
        #expect(received.time == .seconds(32))
    }

    @Test func noEventInTimeTakesTheTimeoutTransitionAtTheTimeout() async throws {
        let started = ContinuousClock.now
        let (result, events, hub) = try await run(Self.waitWorkflow(timeout: 590), script: [])
        #expect(result.output == ["how": "late"])
        let timeout = try #require(events.first { event in
            if case .transition(_, _, let edge) = event.kind { edge.description == "timeout" } else { false }
        })
        #expect(timeout.time == .seconds(590))
        #expect(await hub.epskcPhase(structure: structure, deviceID: router) == .stopped)
        // Almost ten virtual minutes passed, and far less real time (a generous bound, for loaded machines).
        #expect(ContinuousClock.now - started < .seconds(120))
    }

    @Test func valuesWithoutTheirOwnTransitionTakeOtherwise() async throws {
        let (result, _, _) = try await run(Self.waitWorkflow(timeout: 700), script: [.init(atSeconds: 3, action: .deactivate)])
        #expect(result.output == ["how": "other", "reason": "cancelled"])
    }

    @Test func epskcShareThroughTheEngineReportsTheKeyAndTheReason() async throws {
        let text = try String(contentsOfFile: Self.workflowPath("epskc-share"), encoding: .utf8)
        let shareDirectory = URL(fileURLWithPath: Self.workflowPath("epskc-share")).deletingLastPathComponent().path
        let clock = VirtualClock()
        var router = (try BorderRouterHomes.routerOnNetwork())
        router.commissioner = [.init(atSeconds: 30, action: .useKey)]
        let hub = try SimulatedHub(home: BorderRouterHomes.home(router), clock: clock)
        let workflow = try WorkflowEngine().load(text: text, baseDirectory: shareDirectory)
        let result = try await WorkflowEngine().run(
            workflow, inputs: ["durationSeconds": 90], on: hub, options: RunOptions(structureID: structure, clock: clock))
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        #expect(result.output?["reason"] == "keyUsed")
        #expect(result.output?["validDurationSeconds"] == 90)
        #expect(result.output?["epskc"]?.stringValue?.count == 9)
        #expect(await hub.eventSubscriberCount == 0, "the run closes its subscription")
    }

    @Test func aCancelledShareWithdrawsTheKeyItActivated() async throws {
        let clock = VirtualClock()
        let hub = try SimulatedHub(home: BorderRouterHomes.home(try BorderRouterHomes.routerOnNetwork()), clock: clock)
        let workflow = try WorkflowEngine().load(path: Self.workflowPath("epskc-share"))
        // Hold virtual time still, so the key cannot expire while the test reacts to the wait starting.
        let hold = ClockHold(clock)
        let started = try WorkflowEngine().start(workflow, on: hub, options: RunOptions(structureID: structure, clock: clock))
        for await event in started.events {
            if case .waitStarted = event.kind {
                started.cancel()
                break
            }
        }
        hold.release()
        let result = await started.result
        #expect(result.outcome == .cancelled)
        #expect(result.error?.message.contains("no key it activated is left active") == true)
        #expect(await hub.epskcPhase(structure: structure, deviceID: router) == .stopped)
        #expect(await hub.calls(.deactivateEpskc, structure: structure).count == 1)
    }

    @Test func epskcStopStopsAnActiveKeyAndConfirmsIt() async throws {
        let clock = VirtualClock()
        let hub = try SimulatedHub(home: BorderRouterHomes.home(try BorderRouterHomes.routerOnNetwork()), clock: clock)
        let hold = ClockHold(clock)
        _ = try await hub.activateEpskc(structure: structure, deviceID: router, requestedDurationSeconds: 600)
        let workflow = try WorkflowEngine().load(path: Self.workflowPath("epskc-stop"))
        let result = try await WorkflowEngine().run(
            workflow, inputs: ["deviceID": .string(router)], on: hub, options: RunOptions(structureID: structure, clock: clock))
        hold.release()
        #expect(result.output == ["deviceID": .string(router), "stopped": true, "reason": "cancelled", "detail": "deactivated"])
    }

    @Test func findBorderRouterPicksTheNamedOneOrTheFirstAndSaysWhy() async throws {
        var home = BorderRouterHomes.home(try BorderRouterHomes.routerOnNetwork())
        home.thread.borderRouters.append(HomeDescription.BorderRouter(deviceID: BorderRouterHomes.sensorID))
        let hub = try SimulatedHub(home: home, clock: VirtualClock())
        let workflow = try WorkflowEngine().load(path: Self.workflowPath("find-border-router"))
        func find(_ inputs: JSONObject, on hub: SimulatedHub) async throws -> RunResult {
            try await WorkflowEngine().run(workflow, inputs: inputs, on: hub, options: RunOptions(structureID: structure, clock: VirtualClock()))
        }
        let first = try await find([:], on: hub)
        #expect(first.output?["deviceID"] == .string(router))
        #expect(first.warnings == [
            "this home has 2 border routers ([\"\(router)\",\"\(BorderRouterHomes.sensorID)\"]); using the first, \(router); pass deviceID to choose another",
        ])
        let named = try await find(["deviceID": .string(BorderRouterHomes.sensorID)], on: hub)
        #expect(named.output?["deviceID"] == .string(BorderRouterHomes.sensorID))
        #expect(named.warnings.isEmpty)
        let lock = try await find(["deviceID": .string(BorderRouterHomes.lockID)], on: hub)
        #expect(lock.error?.cause == .notBorderRouter)
        let none = try await find([:], on: try SimulatedHub(home: TestHomes.basic(id: structure), clock: VirtualClock()))
        #expect(none.error?.code == .notFound)
        #expect(none.error?.message == "structure \(structure) has no border router (device type home.matter.6006.types.0161)")
    }
}

/// Collects a run's events.
final class EventCollector: Sendable {
    private let storage = Mutex<[RunEvent]>([])
    var events: [RunEvent] { storage.withLock { $0 } }
    func record(_ event: RunEvent) { storage.withLock { $0.append(event) } }
}
