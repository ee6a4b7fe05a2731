import Foundation
import MatterFlowJSON
import Testing

@testable import MatterFlow

/// A workflow is compiled once into one numbered model with one edge list: the validator's findings, the verifier's
/// paths, `graph`'s edges and ``Workflow/edges`` all come from it, and a changed workflow is a new one.
@Suite struct CompiledWorkflowTests {
    /// `a` leads to `b`, which routes errors to `gone`, a state that does not exist.
    static let dangling = #"""
        {"workflow": "t", "version": 1, "start": "a", "onCancel": "stop", "states": {
          "a": {"type": "assign", "set": {"x": 1}, "next": "b"},
          "b": {"type": "action", "operation": "fetchRooms", "next": "done", "onError": [{"errors": ["*"], "next": "gone"}]},
          "done": {"type": "succeed"},
          "stop": {"type": "fail", "code": "cancelled", "message": "cancelled"}
        }}
        """#

    @Test("the public edges are the compiled model's edge list", arguments: VerificationTests.shipped)
    func publicEdgesAreTheModelsEdges(_ name: String) throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow(name))
        let model = workflow.model
        #expect(workflow.edges.count == model.edges.count)
        for (edge, compiled) in zip(workflow.edges, model.edges) {
            #expect(edge.from == model.name(compiled.from))
            #expect(edge.to == compiled.target)
            #expect(edge.kind == compiled.kind)
            #expect(edge.pointer == model.pointer(of: compiled))
        }
    }

    @Test("graph draws exactly the model's edges to defined states, cancel edges only where a run can take them",
          arguments: VerificationTests.shipped)
    func graphEdgesAreTheModelsEdges(_ name: String) throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow(name))
        let graph = try WorkflowGraph.build(workflow)
        let normal = workflow.reachableStates(includingCancel: false)
        let expected = workflow.edges.filter { edge in
            workflow.states[edge.to] != nil && (edge.kind != .cancel || normal.contains(edge.from))
        }
        #expect(graph.edges.map { "\($0.from) \($0.kind) \($0.to)" } == expected.map { "\($0.from) \($0.kind) \($0.to)" })
    }

    @Test func aValidatorFindingPointsAtTheEdgeOfTheModel() throws {
        let outcome = WorkflowLoader().load(text: Self.dangling, file: "t.json", baseDirectory: Repository.workflowsDirectory)
        let finding = try #require(outcome.diagnostics.first { $0.code == WorkflowDiagnosticCode.undefinedState })
        // The same workflow, built without the loader's validation, has that edge at that pointer.
        #expect(outcome.workflow == nil)
        let definition = try #require(try Self.definition(of: Self.dangling))
        let edge = try #require(Workflow(definition).edges.first { $0.to == "gone" })
        #expect(finding.pointer == edge.pointer)
        #expect(edge.pointer == "/states/b/onError/0/next")
        #expect(edge.kind == .error(0, ["*"]))
    }

    @Test("edges of a wait state: its branches, otherwise, then the timeout, then the cancel edge")
    func waitEdges() throws {
        let text = #"""
            {"workflow": "t", "version": 1, "start": "wait", "onCancel": "late", "states": {
              "wait": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 5,
                       "on": {"keyUsed": "done"}, "otherwise": "done", "onTimeout": "late"},
              "done": {"type": "succeed"}, "late": {"type": "fail", "code": "deadlineExceeded", "message": "late"}}}
            """#
        let outcome = WorkflowLoader().load(text: text, file: "t.json", baseDirectory: Repository.workflowsDirectory)
        let workflow = try #require(outcome.workflow, "\(outcome.diagnostics)")
        let edges = workflow.edges.filter { $0.from == "wait" }
        #expect(edges.map(\.to) == ["done", "done", "late", "late"])
        #expect(edges.map(\.kind) == [.event("keyUsed"), .eventOtherwise, .timeout, .cancel])
        #expect(edges.map(\.pointer) == ["/states/wait/on/keyUsed", "/states/wait/otherwise", "/states/wait/onTimeout", "/onCancel"])
    }

    @Test func aChangedWorkflowIsANewlyCompiledOne() throws {
        let original = try loadWorkflow(Self.dangling.replacingOccurrences(of: "\"next\": \"gone\"", with: "\"next\": \"stop\""))
        let changed = original.with { definition in
            guard case .assign(var assign)? = definition.states["a"]?.kind else { return }
            assign.next = "done"
            definition.states["a"]?.kind = .assign(assign)
        }
        // The original keeps its model; the copy's model, graph and reachability follow the change.
        #expect(original.edges.contains { $0.from == "a" && $0.to == "b" })
        #expect(changed.edges.contains { $0.from == "a" && $0.to == "done" })
        #expect(!changed.edges.contains { $0.from == "a" && $0.to == "b" })
        #expect(original.reachableStates(includingCancel: false).contains("b"))
        #expect(!changed.reachableStates(includingCancel: false).contains("b"))
        let graph = try WorkflowGraph.build(changed)
        #expect(graph.edges.contains { $0.from == "a" && $0.to == "done" })
        #expect(changed.definition.states["a"] != nil && original.model !== changed.model)
    }

    @Test func aRepeatedOrMissingNameInStateOrderNumbersEveryStateOnce() throws {
        let workflow = try loadWorkflow(Self.dangling.replacingOccurrences(of: "\"next\": \"gone\"", with: "\"next\": \"stop\""))
            .with { $0.stateOrder = ["a", "a", "done", "stop"] }
        // `b` is not listed: it comes after the listed states, and its edges are there once.
        #expect(workflow.model.states.map(\.name) == ["a", "done", "stop", "b"])
        #expect(workflow.stateOrder == ["a", "done", "stop", "b"])
        #expect(workflow.definition.stateOrder == ["a", "a", "done", "stop"])
        #expect(workflow.edges.filter { $0.from == "a" }.count == 2)
        #expect(workflow.edges.filter { $0.from == "b" }.map(\.to) == ["done", "stop", "stop"])
    }

    /// The definition the decoder makes of workflow text, before any validation.
    static func definition(of text: String) throws -> Workflow.Definition? {
        WorkflowDecoder(document: try JSONDocument.parse(text, file: "t.json")).decode()
    }
}
