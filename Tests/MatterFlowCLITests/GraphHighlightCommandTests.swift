import Foundation
import MatterFlow
import Testing

/// `matterflow graph --highlight-path` with a path that does not belong to the workflow: exit 2, saying what
/// did not match, instead of a picture with nothing drawn.
@Suite struct GraphHighlightCommandTests {
    @Test func unknownStatesExitTwoNamingThem() async {
        let run = await matterflow("graph", Repository.workflow("commission-device"), "--highlight-path", "prepare -> comission")
        #expect(run.code == 2)
        #expect(run.stdout.isEmpty)
        #expect(run.stderr.contains(#"error[highlightMismatch]: "comission" is not a state of workflow "commission-device"; did you mean "commission"?"#), "\(run.stderr)")
    }

    @Test func anotherWorkflowsTraceExitsTwo() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let trace = await matterflow("run", Repository.workflow("prepare"), "--trace", "jsonl")
        #expect(trace.code == 0)
        let file = try directory.write(trace.stderr, to: "prepare.jsonl")
        let run = await matterflow("graph", Repository.workflow("commission-device"), "--highlight-path", file)
        #expect(run.code == 2)
        #expect(run.stderr.contains(#"\#(file): error[highlightMismatch]: this is a trace of workflow "prepare", but the graph draws "commission-device""#), "\(run.stderr)")
        let own = await matterflow("graph", Repository.workflow("prepare"), "--highlight-path", file)
        #expect(own.code == 0)
        #expect(own.stdout.contains("penwidth=2.5"))
    }
}
