import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// A `CancellationError` a hub throws for work of its own, while nobody cancelled the run's call, is the hub's
/// failure: the run is not cancelled, and its `hubFailure` route is taken.
@Suite struct HubCancellationErrorTests {
    /// Throws `CancellationError` from `fetchRooms`, at once or after suspending; everything else is the scripted hub's.
    struct CancellingRoomsHub: ForwardingHub {
        let inner = ScriptedHub()
        var base: any Hub { inner }
        let suspendsFirst: Bool

        func status(structure: StructureID) async throws -> HubStatus {
            await Task.yield()
            return try await inner.status(structure: structure)
        }

        func fetchRooms(structure: StructureID) async throws -> [Room] {
            if suspendsFirst { await Task.yield() }
            throw CancellationError()
        }
    }

    static let workflow = #"""
        {"workflow": "rooms", "version": 1, "start": "fetch", "states": {
          "fetch": {"type": "action", "operation": "fetchRooms", "result": "rooms", "next": "done",
                    "onError": [{"errors": ["hubFailure"], "next": "routed"}]},
          "routed": {"type": "fail", "code": "internal", "cause": "hubFailure", "message": "${error.message}"},
          "done": {"type": "succeed"}
        }}
        """#

    /// The call made after one that suspended: made in a race of its own, not on the run's task.
    static let afterAStatusRead = workflow.replacingOccurrences(of: #""start": "fetch""#, with: #""start": "read""#)
        .replacingOccurrences(
            of: #""routed": {"#, with: #""read": {"type": "action", "operation": "readHubStatus", "next": "fetch"}, "routed": {"#)

    @Test("a hub's own CancellationError on an uncancelled call fails it with hubFailure, routed as such, whether it suspended first or not")
    func hubsOwnCancellationIsAHubFailure() async throws {
        for (text, visited) in [(Self.workflow, ["fetch", "routed"]), (Self.afterAStatusRead, ["read", "fetch", "routed"])] {
        let workflow = try WorkflowEngine().load(text: text, baseDirectory: "/")
        for suspends in [false, true] {
            let result = try await WorkflowEngine().run(
                workflow, inputs: [:], on: CancellingRoomsHub(suspendsFirst: suspends), options: RunOptions(structureID: "s", clock: ManualClock()))
            #expect(result.outcome == .failed, "suspends \(suspends)")
            #expect(result.visitedStates == visited, "suspends \(suspends): \(result.visitedStates)")
            #expect(result.error?.cause == .hubFailure, "suspends \(suspends)")
            #expect(result.error?.message == "the hub failed: it threw CancellationError though its call was not cancelled", "\(String(describing: result.error))")
        }
        }
    }
}
