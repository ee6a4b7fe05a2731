import Foundation
import MatterFlow
import Testing

/// The commands on trees of sub-workflows: a chain nested past the limit exits 2 with a located error instead
/// of crashing; a diamond (each level running the next twice) validates, runs and draws, and refuses to be
/// drawn expanded past the limit.
@Suite struct NestedWorkflowCommandTests {
    /// Writes `levels` files, `level-0.json` at the top; a diamond's levels run the next again when it fails.
    static func writeTree(diamond: Bool, levels: Int, into directory: TemporaryDirectory) throws -> String {
        for level in 0..<levels - 1 {
            let child = "level-\(level + 1).json"
            let second = diamond
                ? #""second": {"type": "workflow", "path": "\#(child)", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},"#
                : ""
            try directory.write(
                #"""
                {"workflow": "level-\#(level)", "version": 1, "start": "first", "states": {
                  "first": {"type": "workflow", "path": "\#(child)", "next": "done", "onError": [{"errors": ["*"], "next": "\#(diamond ? "second" : "failed")"}]},
                  \#(second)
                  "done": {"type": "succeed"},
                  "failed": {"type": "fail", "error": "${error}"}
                }}
                """#, to: "level-\(level).json")
        }
        try directory.write(
            #"""
            {"workflow": "leaf", "version": 1, "start": "read", "states": {
              "read": {"type": "action", "operation": "readHubStatus", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#, to: "level-\(levels - 1).json")
        return directory.file("level-0.json")
    }

    @Test func validatingAChainOfTwoThousandLevelsExitsTwoAtTheLevelPastTheLimit() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let top = try Self.writeTree(diamond: false, levels: 2_000, into: directory)
        let run = await matterflow("validate", top)
        #expect(run.code == 2)
        #expect(run.stderr.contains(
            #"\#(directory.file("level-64.json")):2:41: error[nestingTooDeep]: /states/first/path: "level-65.json" would be sub-workflow level 65, deeper than the 64 levels a workflow may nest"#),
            "\(run.stderr.suffix(600))")
    }

    @Test func aDiamondOfFortyLevelsValidatesRunsAndDrawsCollapsedButNotExpanded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let top = try Self.writeTree(diamond: true, levels: 40, into: directory)
        #expect(await matterflow("validate", top).code == 0)
        let run = await matterflow("run", top, "--trace", "none")
        #expect(run.code == 0, "\(run.stderr)")
        #expect(run.stdout.contains(#""outcome": "succeeded""#))
        let graph = await matterflow("graph", top)
        #expect(graph.code == 0)
        let expanded = await matterflow("graph", top, "--expand")
        #expect(expanded.code == 2)
        #expect(expanded.stdout.isEmpty)
        #expect(expanded.stderr.contains("error[graphTooLarge]: expanded, this workflow draws more than 10000 states"), "\(expanded.stderr)")
    }
}
