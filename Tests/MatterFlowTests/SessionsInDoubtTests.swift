import MatterFlow
import MatterFlowJSON
import Testing

/// A session the run may leave open on the hub is in its result as a typed value, not only as a warning: a service
/// that cancels it, or alerts someone, reads ``RunResult/sessionsInDoubt``.
@Suite struct SessionsInDoubtTests {
    let engine = WorkflowEngine()

    /// Opens a session, fails, and releases it on the error path.
    static let workflow = #"""
        {"workflow": "t", "version": 1, "start": "prepare", "onCancel": "release", "states": {
          "prepare": {"type": "action", "operation": "prepareCommissioning", "next": "rooms"},
          "rooms": {"type": "action", "operation": "fetchRooms", "next": "ok",
                    "onError": [{"errors": ["*"], "next": "release"}]},
          "release": {"type": "action", "operation": "cancelCommissioning", "next": "failed",
                      "onError": [{"errors": ["*"], "next": "failed"}]},
          "ok": {"type": "succeed"},
          "failed": {"type": "fail", "code": "unavailable", "message": "the rooms did not come"}
        }}
        """#

    func run(_ hub: ScriptedHub) async throws -> RunResult {
        hub.script("fetchRooms", [.fail(FlowError(.hubUnreachable, "no route to the hub"))])
        let options = RunOptions(structureID: "s", clock: ManualClock(), random: SeededRandomSource(seed: 3))
        return try await engine.run(try loadWorkflow(Self.workflow), inputs: [:], on: hub, options: options)
    }

    @Test("a release the hub did not confirm leaves the session in doubt, named, in the result and its JSON")
    func unconfirmedRelease() async throws {
        let hub = ScriptedHub()
        hub.script("cancelCommissioning", [.fail(FlowError(.hubUnreachable, "no route to the hub"))])
        let result = try await run(hub)
        #expect(result.outcome == .failed)
        #expect(!result.holdsSession)
        let doubt = try #require(result.sessionsInDoubt.first)
        #expect(result.sessionsInDoubt.count == 1)
        #expect(doubt.sessionID == "session-1")
        #expect(doubt.reason.contains("may still be open on the hub"))
        #expect(result.warnings.contains(doubt.reason), "the same words as the warning")
        #expect(result.jsonValue["sessionsInDoubt"] == [["sessionID": "session-1", "reason": .string(doubt.reason)]])
    }

    @Test("a release the hub confirmed leaves nothing in doubt, and the JSON has no sessionsInDoubt")
    func confirmedRelease() async throws {
        let result = try await run(ScriptedHub())
        #expect(result.outcome == .failed)
        #expect(result.sessionsInDoubt.isEmpty)
        #expect(result.jsonValue["sessionsInDoubt"] == nil)
    }
}
