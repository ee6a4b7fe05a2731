import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// An assign state's `show`: a value for the person running the workflow, reported at once as a `shown` event whose
/// `value` is redacted like every event's and whose `revealed` is the value itself; and what the loader refuses.
@Suite struct ShowStateTests {
    static let workflow = #"""
        {"workflow": "w", "version": 1, "start": "code", "onCancel": "stopped",
         "inputs": {"code": {"type": "onboardingPayload", "required": true}, "who": {"type": "string", "default": "Ada"}},
         "states": {
          "code": {"type": "assign", "show": {"payload": "${input.code}", "for": "${input.who}"}, "next": "done"},
          "done": {"type": "succeed"},
          "stopped": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "stopped"}
        }}
        """#

    @Test("the shown event reaches observers at once: redacted as value, itself as revealed")
    func shownIsRedactedButRevealedToThePerson() async throws {
        let handle = try WorkflowEngine().start(
            try loadWorkflow(Self.workflow), inputs: ["code": .string("MT:Y.K9042C00KA0648G00")], on: ScriptedHub(),
            options: RunOptions(structureID: "s", clock: ManualClock()))
        var shown: [(state: String, value: JSONValue, revealed: JSONValue)] = []
        for await event in handle.events {
            if case .shown(let state, let value, let revealed) = event.kind { shown.append((state, value, revealed)) }
        }
        #expect((await handle.result).outcome == .succeeded)
        #expect(shown.count == 1)
        #expect(shown.first?.state == "code")
        #expect(shown.first?.value == ["payload": .string(RunOptions.redacted), "for": "Ada"])
        #expect(shown.first?.revealed == ["payload": "MT:Y.K9042C00KA0648G00", "for": "Ada"])
        let event = RunEvent(runID: "r", time: .zero, workflowPath: ["w"], kind: .shown(state: "code", value: "x", revealed: "secret"))
        #expect(event.jsonValue["value"] == "x", "the JSON form, as traces and records write it, is the redacted value")
        #expect(!event.text.contains("secret"))
    }

    @Test("an assign needs set, warning or show; show's references are checked as any template's")
    func theLoaderChecksShow() throws {
        let empty = diagnose(Self.workflow.replacingOccurrences(of: #""show": {"payload": "${input.code}", "for": "${input.who}"}, "#, with: ""))
        #expect(empty.contains { $0.code == "missingKey" && $0.message.contains(#"needs "set", "warning", "show""#) }, "\(empty.map(\.description))")
        let typo = diagnose(Self.workflow.replacingOccurrences(of: "${input.who}", with: "${input.whom}"))
        #expect(typo.contains { $0.pointer == "/states/code/show/for" }, "\(typo.map(\.description))")
        #expect(diagnose(Self.workflow).filter { $0.severity == .error }.isEmpty)
    }
}
