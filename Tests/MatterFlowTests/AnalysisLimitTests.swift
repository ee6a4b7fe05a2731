import Foundation
import MatterFlowBenchmarks
import MatterFlowJSON
import Testing

@testable import MatterFlow

/// Where an analysis stops by design, it says so: a proof cut short, a picture too large to expand, a
/// highlighted path that does not belong to the picture.
@Suite struct AnalysisLimitTests {
    @Test func aSessionProofCutShortIsAnErrorNotAPass() throws {
        let path = Repository.workflow("commission-device.json")
        let workflow = try WorkflowEngine().load(path: path)
        let context = VerificationContext(catalog: .standard)
        let complete = SessionExplorer(root: workflow, context: context)
        #expect(complete.finished)
        // A fresh context: the first explorer's walk would serve the second.
        let cutShort = SessionExplorer(root: workflow, context: VerificationContext(catalog: .standard), limit: 10)
        #expect(!cutShort.finished)
        let collector = DiagnosticCollector(document: try JSONDocument.parse(String(contentsOfFile: path, encoding: .utf8), file: path))
        SessionCheck(workflow: workflow, explorer: cutShort, collector: collector).check()
        let finding = try #require(collector.diagnostics.first { $0.code == "proofIncomplete" })
        #expect(finding.severity == .error)
        #expect(finding.message.contains("stopped after 10 configurations without covering every path, so they prove nothing"))
        let again = DiagnosticCollector(document: try JSONDocument.parse(String(contentsOfFile: path, encoding: .utf8), file: path))
        SessionCheck(workflow: workflow, explorer: complete, collector: again).check()
        #expect(again.diagnostics.isEmpty)
    }

    @Test func expandingADiamondOfFortyLevelsIsRefusedNamingTheLimit() throws {
        let directory = NestedWorkflowTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let top = try WorkflowTrees.write(.diamond, levels: 40, into: directory)
        let workflow = try WorkflowEngine().load(path: top)
        // Collapsed, each state is drawn once.
        #expect(try WorkflowGraph.build(workflow).nodes.map(\.id) == ["first", "second", "done", "failed"])
        let error = try #require(throws: DiagnosticsError.self) { try WorkflowGraph.build(workflow, expand: true) }
        let finding = try #require(error.diagnostics.first)
        #expect(finding.code == "graphTooLarge")
        #expect(finding.file == top)
        #expect(finding.message.contains("more than 10000 states"))
        #expect(finding.message.contains("draw it without --expand"))
    }

    @Test func aSmallDiamondExpandsEveryPlaceItsFilesAreRun() throws {
        let directory = NestedWorkflowTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let top = try WorkflowTrees.write(.diamond, levels: 4, into: directory)
        let graph = try WorkflowGraph.build(try WorkflowEngine().load(path: top), expand: true)
        // Three levels of two runs each above a leaf of three states, plus two terminal states per level.
        #expect(graph.nodes.count == 8 * 3 + (4 + 2 + 1) * 2)
        #expect(graph.nodes.contains { $0.id == "second/first/second/read" })
    }

    @Test func highlightingStatesTheWorkflowLacksIsAnErrorNamingThem() throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device.json"))
        let graph = try WorkflowGraph.build(workflow)
        let error = try #require(throws: DiagnosticsError.self) {
            try graph.highlighting(.path("prepare -[next]-> requets -[next]-> bogus"))
        }
        let finding = try #require(error.diagnostics.first)
        #expect(finding.code == "highlightMismatch")
        #expect(finding.message.hasPrefix(#""requets", "bogus" are not states of workflow "commission-device" (did you mean "request"?)"#))
        #expect(throws: DiagnosticsError.self) { try graph.highlighting(.path(" -> ")) }
        // A qualified state is drawn as the state that runs its level: that is not a mismatch.
        #expect(try graph.highlighting(.path("prepare/prepare, request")).nodes.filter(\.highlighted).count == 2)
    }

    @Test func highlightingAnotherWorkflowsTraceIsAnError() throws {
        let trace = """
            {"event":"stateEntered","runID":"r","time":0,"workflow":"prepare","state":"prepare","type":"action"}
            """
        let highlight = try GraphHighlight.trace(jsonl: trace, file: "trace.jsonl")
        #expect(highlight.workflow == "prepare")
        let graph = try WorkflowGraph.build(try WorkflowEngine().load(path: Repository.workflow("commission-device.json")))
        let error = try #require(throws: DiagnosticsError.self) { try graph.highlighting(highlight) }
        #expect(error.diagnostics.first?.file == "trace.jsonl")
        #expect(error.diagnostics.first?.message.hasPrefix(#"this is a trace of workflow "prepare", but the graph draws "commission-device""#) == true)
    }
}

@Suite struct DurationGraphNumberingTests {
    @Test("each way a run can end is numbered by its place among the kinds, so no two kinds share an end's number")
    func endKindsAreNumberedByTheirPlace() {
        for (position, kind) in DurationGraph.kinds.enumerated() {
            #expect(DurationGraph.index(of: kind) == position, "\(kind)")
        }
    }
}
