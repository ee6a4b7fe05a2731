import MatterFlow
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// What a service embedding the engine builds in its own tests, through the public API alone (this module does
/// not import MatterFlow with @testable): results and events to feed its code, and the ID of a pooled run.
@Suite("public values for a service's tests")
struct PublicTestDoubleTests {
    @Test("a result and an event built in code read as the engine's do")
    func resultsAndEvents() {
        let result = RunResult(
            runID: "run-1", workflow: "w", outcome: .failed, error: FlowError(.hubOffline, "the hub is offline"),
            visitedStates: ["a"])
        #expect(result.jsonValue["error"]?["cause"] == "hubOffline")
        #expect(result.jsonValue["runID"] == "run-1")
        let event = RunEvent(runID: "run-1", time: .seconds(2), workflowPath: ["w"], kind: .warning(state: "a", message: "m"))
        #expect(event.name == "warning")
        #expect(event.jsonValue["runID"] == "run-1")
    }

    @Test("a pooled run says its ID, the one its result carries")
    func pooledRunID() async throws {
        let clock = VirtualClock()
        let pool = RunPool(hub: try SimulatedHub(home: HomeDescription.defaultHome, clock: clock), clock: clock, random: SeededRandomSource(seed: 4))
        let workflow = try WorkflowEngine().load(path: Repository.workflow("cancel"))
        let run = try pool.submit(workflow, structureID: HomeDescription.defaultHome.structure.id, runID: "run-pooled")
        #expect(run.runID == "run-pooled")
        #expect(await pool.result(of: run)?.runID == "run-pooled")
    }
}
