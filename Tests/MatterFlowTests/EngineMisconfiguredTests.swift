import MatterFlow
import MatterFlowJSON
import Testing

/// What the engine cannot run (an operation missing from its catalog, a state or sub-workflow that is not there)
/// is `internal` / `engineMisconfigured`: never retried, not even by `*`, and still routable.
@Suite struct EngineMisconfiguredTests {
    /// `a` retries every error three times and routes every error to `routed`.
    static let workflow = #"""
        {"workflow": "t", "version": 1, "start": "a", "states": {
          "a": {"type": "action", "operation": "fetchRooms", "next": "ok",
                "retry": [{"errors": ["*"], "maxRetries": 3, "intervalSeconds": 1}],
                "onError": [{"errors": ["*"], "next": "routed"}]},
          "ok": {"type": "succeed"},
          "routed": {"type": "fail", "error": "${error}"}
        }}
        """#

    /// Runs the workflow, moving the manual clock through any retry delay (so that a run that does retry ends).
    func run(_ workflow: Workflow, engine: WorkflowEngine) async throws -> (RunResult, [RunEvent]) {
        let clock = ManualClock()
        let handle = try engine.start(
            workflow, on: ScriptedHub(), options: RunOptions(structureID: "s", clock: clock, random: SeededRandomSource(seed: 7)))
        var events: [RunEvent] = []
        for await event in handle.events {
            events.append(event)
            if case .retryScheduled(_, _, let delay, _) = event.kind {
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(delay))
            }
        }
        return (await handle.result, events)
    }

    @Test func anOperationMissingFromTheCatalogIsNotRetriedEvenByAStarRetrier() async throws {
        let workflow = try loadWorkflow(Self.workflow)
        // The workflow was validated against the standard catalog; the engine running it lacks fetchRooms.
        let catalog = OperationCatalog(OperationCatalog.standard.operations.filter { $0.name != "fetchRooms" })
        let (result, events) = try await run(workflow, engine: WorkflowEngine(catalog: catalog))
        #expect(!events.contains { if case .retryScheduled = $0.kind { true } else { false } }, "a misconfiguration was retried")
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .engineMisconfigured)
        #expect(result.error?.code == .internal)
        #expect(result.error?.message.contains("fetchRooms is not in the catalog") == true)
        #expect(result.visitedStates == ["a", "routed"], "the error route still takes it")
    }

    @Test func aMissingStateFailsTheRunWithItsOwnCause() async throws {
        let workflow = try loadWorkflow(Self.workflow).with { $0.start = "nowhere" }
        let (result, _) = try await run(workflow, engine: WorkflowEngine())
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .engineMisconfigured)
        #expect(result.error?.message.contains("\"nowhere\" does not exist") == true)
    }

    @Test func theCauseIsDocumentedAsNeverRetried() {
        #expect(ErrorCause.engineMisconfigured.code == .internal)
        #expect(!ErrorCause.engineMisconfigured.isRetryable)
        #expect(ErrorCause.hubFailure.isRetryable)
    }
}
