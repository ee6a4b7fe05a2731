import Foundation
import Testing

@testable import MatterFlow

/// The analyses follow `WorkflowState.targets`, a cheap list of where a state's edges lead: it must name the same
/// states as the edges themselves, in the same order.
@Suite struct TransitionTargetTests {
    @Test("targets match the edges of every state of every shipped workflow", arguments: VerificationTests.shipped)
    func targetsMatchEdges(_ name: String) throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow(name))
        for state in workflow.states.values {
            #expect(state.targets == state.edges.map(\.to), "state \(state.name) of \(name)")
        }
    }

    @Test("targets of a wait state: its branches, otherwise, then the timeout")
    func waitTargets() throws {
        let text = #"""
            {"workflow": "t", "version": 1, "start": "wait", "states": {
              "wait": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 5,
                       "on": {"keyUsed": "done"}, "otherwise": "done", "onTimeout": "late"},
              "done": {"type": "succeed"}, "late": {"type": "fail", "code": "deadlineExceeded", "message": "late"}}}
            """#
        let outcome = WorkflowLoader().load(text: text, file: "t.json", baseDirectory: Repository.workflowsDirectory)
        let workflow = try #require(outcome.workflow, "\(outcome.diagnostics)")
        let state = try #require(workflow.states["wait"])
        #expect(state.targets == state.edges.map(\.to))
        #expect(state.targets == ["done", "done", "late"])
    }
}
