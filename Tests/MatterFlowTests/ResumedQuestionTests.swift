@testable import MatterFlow
import MatterFlowJSON
import Testing

/// A run handed from worker to worker asks its question again for what is left of the question's timeout.
@Suite struct ResumedQuestionTests {
    static let text = #"""
        {"workflow": "door", "version": 1, "start": "name", "states": {
          "name": {"type": "ask", "prompt": "Name?", "answer": {"text": {"minLength": 1}}, "result": "n",
                   "timeoutSeconds": 300, "next": "named", "onTimeout": "late"},
          "named": {"type": "succeed"},
          "late": {"type": "succeed", "output": {"late": true}}}}
        """#

    /// When the resumed run gave up on its question, on its virtual clock.
    func timedOut(afterWaiting waited: Duration?) async throws -> (seconds: Double, late: Bool) {
        let workflow = try WorkflowEngine().load(text: Self.text, baseDirectory: "/")
        var point = ResumePoint(levels: [RunCheckpoint(workflowPath: ["door"], state: "name", inputs: [:], variables: [:])], cancel: false)
        point.questionWaited = waited
        let handle = try WorkflowEngine().resume(
            workflow, from: point, on: ScriptedHub(), options: RunOptions(structureID: "s", clock: VirtualClock(), runID: "r"))
        var finished = 0.0
        for await event in handle.events { if case .runFinished = event.kind { finished = event.time.secondsValue } }
        let result = await handle.result
        return (finished, result.output?["late"] == true)
    }

    @Test("the question is asked again for what is left of its timeout since it was first asked")
    func whatIsLeftOfTheTimeout() async throws {
        #expect(try await timedOut(afterWaiting: nil) == (300, true), "not waited before: the whole timeout")
        #expect(try await timedOut(afterWaiting: .seconds(250)) == (50, true))
        #expect(try await timedOut(afterWaiting: .seconds(900)) == (0, true), "past its timeout: it times out at once")
    }
}
