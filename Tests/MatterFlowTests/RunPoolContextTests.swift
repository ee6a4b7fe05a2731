import MatterFlowJSON
import Synchronization
import Testing

@testable import MatterFlow

/// A pool's hub work is served with its own run's context, never with the context of whatever task happened to
/// start it: a submit, an event or a timer can come from inside another run's hub call.
@Suite struct RunPoolContextTests {
    /// Notes the context each status check and rooms read is served with.
    final class ContextNotingHub: ForwardingHub, Sendable {
        let base: any Hub
        let seen = Mutex<[(call: String, context: HubCallContext?)]>([])

        init(base: any Hub) { self.base = base }

        func status(structure: StructureID) async throws -> HubStatus {
            seen.withLock { $0.append(("status", HubCallContext.current)) }
            return try await base.status(structure: structure)
        }

        func fetchRooms(structure: StructureID) async throws -> [Room] {
            seen.withLock { $0.append(("fetchRooms", HubCallContext.current)) }
            return try await base.fetchRooms(structure: structure)
        }
    }

    static let guardedRead = #"""
        {"workflow": "w", "version": 1, "start": "rooms", "states": {
          "rooms": {"type": "action", "operation": "fetchRooms", "guards": ["hubReachable"], "next": "done"},
          "done": {"type": "succeed"}
        }}
        """#

    static let waitThenRead = #"""
        {"workflow": "w", "version": 1, "start": "wait", "states": {
          "wait": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 60, "result": "ended",
                   "on": {"keyUsed": "rooms"}, "otherwise": "rooms", "onTimeout": "timedOut"},
          "rooms": {"type": "action", "operation": "fetchRooms", "guards": ["hubReachable"], "next": "done"},
          "done": {"type": "succeed"},
          "timedOut": {"type": "fail", "code": "deadlineExceeded", "message": "no event"}
        }}
        """#

    @Test func workWokenByAnEventDeliveredInsideAnotherCallIsServedWithTheRunsOwnContext() async throws {
        let workflow = try loadWorkflow(Self.waitThenRead)
        let hub = ContextNotingHub(base: ScriptedHub())
        let pool = RunPool(hub: hub, random: SeededRandomSource(seed: 4))
        let run = try pool.submit(workflow, structureID: "s", runID: "woken")
        #expect(pool.waitingForEvents == 1)
        // As a hub publishes an event from inside a call it serves for another run.
        let foreign = HubCallContext(runID: "other-run", idempotencyKey: "other-run/9", element: "readEach[0]")
        HubCallContext.$current.withValue(foreign) {
            pool.deliver(HubEvent(name: "epskcModeDeactivated", structureID: "s", value: "keyUsed", fields: [:], time: .zero))
        }
        try await Self.expectOwnContexts(pool, run, hub, runID: "woken")
    }

    @Test func workStartedInsideAnotherCallIsServedWithTheRunsOwnContext() async throws {
        let workflow = try loadWorkflow(Self.guardedRead)
        let hub = ContextNotingHub(base: ScriptedHub())
        let pool = RunPool(hub: hub, random: SeededRandomSource(seed: 3))
        // As if submitted by code serving another run's hub call.
        let foreign = HubCallContext(runID: "other-run", idempotencyKey: "other-run/4", element: "readEach[1]")
        let run = try HubCallContext.$current.withValue(foreign) {
            try pool.submit(workflow, structureID: "s", runID: "pooled")
        }
        try await Self.expectOwnContexts(pool, run, hub, runID: "pooled")
    }

    /// The run succeeded, its guard's status check served with no context, as in any run, and its call with its own.
    static func expectOwnContexts(_ pool: RunPool, _ run: RunPool.Run, _ hub: ContextNotingHub, runID: String) async throws {
        let result = try #require(await pool.result(of: run))
        #expect(result.outcome == .succeeded, "\(String(describing: result.error))")
        let seen = hub.seen.withLock { $0 }
        #expect(seen.map(\.call) == ["status", "fetchRooms"])
        #expect(seen.first?.context == nil)
        #expect(seen.last?.context?.runID == runID)
        #expect(seen.last?.context?.element == nil)
    }
}
