@testable import MatterFlow
import MatterFlowJSON
import Testing

/// A run handed from worker to worker (or recovered) waits in its state only what is left of the wait: a question's
/// timeout, an event's timeout, a fixed delay.
@Suite struct ResumedWaitTests {
    static let text = #"""
        {"workflow": "door", "version": 1, "start": "route", "states": {
          "route": {"type": "choice", "choices": [
                      {"if": {"equals": ["${input.moment}", "event"]}, "next": "event"},
                      {"if": {"equals": ["${input.moment}", "pause"]}, "next": "pause"},
                      {"if": {"equals": ["${input.moment}", "name"]}, "next": "name"}], "default": "until"},
          "name": {"type": "ask", "prompt": "Name?", "answer": {"text": {"minLength": 1}}, "result": "n",
                   "timeoutSeconds": 300, "next": "named", "onTimeout": "late"},
          "named": {"type": "succeed"},
          "late": {"type": "succeed", "output": {"late": true}},
          "event": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 300, "on": {"keyUsed": "named"}, "otherwise": "named", "onTimeout": "late"},
          "pause": {"type": "delay", "seconds": 300, "next": "late"},
          "until": {"type": "delay", "until": "${input.moment}", "maxSeconds": 1000, "next": "late"}},
          "inputs": {"moment": {"type": "string"}}}
        """#

    /// When the resumed run, started in `state`, ended by its virtual clock, and whether it went the late way.
    func ended(in state: String, afterWaiting waited: Duration?, inputs: JSONObject = [:]) async throws -> (seconds: Double, late: Bool) {
        let workflow = try WorkflowEngine().load(text: Self.text, baseDirectory: "/")
        var point = ResumePoint(levels: [RunCheckpoint(workflowPath: ["door"], state: state, inputs: inputs, variables: [:])], cancel: false)
        point.waited = waited
        var options = RunOptions(structureID: "s", clock: VirtualClock(), runID: "r")
        options.wallClockOrigin = 0
        let handle = try WorkflowEngine().resume(workflow, from: point, on: ScriptedHub(), options: options)
        var finished = 0.0
        for await event in handle.events { if case .runFinished = event.kind { finished = event.time.secondsValue } }
        let result = await handle.result
        return (finished, result.output?["late"] == true)
    }

    @Test("the question is asked again for what is left of its timeout since it was first asked")
    func whatIsLeftOfTheQuestion() async throws {
        #expect(try await ended(in: "name", afterWaiting: nil) == (300, true), "not waited before: the whole timeout")
        #expect(try await ended(in: "name", afterWaiting: .seconds(250)) == (50, true))
        #expect(try await ended(in: "name", afterWaiting: .seconds(900)) == (0, true), "past its timeout: it times out at once")
    }

    @Test("an event is waited for what is left of its timeout, a fixed delay for what is left of it")
    func whatIsLeftOfTheEventAndTheDelay() async throws {
        #expect(try await ended(in: "event", afterWaiting: nil) == (300, true))
        #expect(try await ended(in: "event", afterWaiting: .seconds(120)) == (180, true))
        #expect(try await ended(in: "pause", afterWaiting: nil) == (300, true))
        #expect(try await ended(in: "pause", afterWaiting: .seconds(299)) == (1, true))
        #expect(try await ended(in: "pause", afterWaiting: .seconds(400)) == (0, true))
    }

    @Test("cancelled as it resumes, the run's cancel path waits its own delays whole: what was waited belongs to the state it left")
    func cancelPathWaitsWhole() async throws {
        let text = #"""
            {"workflow": "door", "version": 1, "start": "event", "onCancel": "cooldown", "states": {
              "event": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 300, "on": {"keyUsed": "done"}, "otherwise": "done", "onTimeout": "done"},
              "done": {"type": "succeed"},
              "cooldown": {"type": "delay", "seconds": 30, "next": "cancelled"},
              "cancelled": {"type": "succeed"}}}
            """#
        let workflow = try WorkflowEngine().load(text: text, baseDirectory: "/")
        var point = ResumePoint(levels: [RunCheckpoint(workflowPath: ["door"], state: "event", inputs: [:], variables: [:])], cancel: false)
        point.waited = .seconds(250)
        var options = RunOptions(structureID: "s", clock: VirtualClock(), runID: "r")
        options.wallClockOrigin = 0
        let cancellation = RunCancellation()
        cancellation.cancel()
        options.cancellation = cancellation
        let handle = try WorkflowEngine().resume(workflow, from: point, on: ScriptedHub(), options: options)
        var finished = 0.0
        for await event in handle.events { if case .runFinished = event.kind { finished = event.time.secondsValue } }
        #expect(await handle.result.outcome == .cancelled)
        #expect(finished == 30)
    }

    @Test("a delay until a moment waits until the moment, whatever the run had waited")
    func untilAMoment() async throws {
        let moment: JSONObject = ["moment": "1970-01-01T00:05:00Z"]
        #expect(try await ended(in: "until", afterWaiting: .seconds(120), inputs: moment) == (300, true))
    }
}
