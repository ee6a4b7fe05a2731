import Foundation
import MatterFlow
import MatterFlowFixtures
import MatterFlowJSON
import Testing

/// Fixtures and coverage of a workflow whose levels each run the next twice: 2^39 ways down 40 levels, yet
/// loading the fixture, checking the states it names and reporting coverage cost what its 40 files cost.
@Suite struct NestedFixtureTests {
    static let levels = 40

    /// Writes the tree: level k runs level k + 1 as "first", and again as "second" when that fails.
    static func writeDiamond(into directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for level in 0..<levels - 1 {
            let child = "level-\(level + 1).json"
            try #"""
                {"workflow": "level-\#(level)", "version": 1, "start": "first", "states": {
                  "first": {"type": "workflow", "path": "\#(child)", "next": "done", "onError": [{"errors": ["*"], "next": "second"}]},
                  "second": {"type": "workflow", "path": "\#(child)", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
                  "done": {"type": "succeed"},
                  "failed": {"type": "fail", "error": "${error}"}
                }}
                """#.write(toFile: directory + "/level-\(level).json", atomically: true, encoding: .utf8)
        }
        try #"""
            {"workflow": "leaf", "version": 1, "start": "read", "states": {
              "read": {"type": "action", "operation": "readHubStatus", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#.write(toFile: directory + "/level-\(levels - 1).json", atomically: true, encoding: .utf8)
    }

    @Test func aFixtureOfADiamondOfFortyLevelsRunsAndReportsCoveragePerFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mf-fixture-tree-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try Self.writeDiamond(into: directory)
        let deepest = Array(repeating: "first", count: Self.levels - 1).joined(separator: "/")
        let path = (1..<Self.levels).map { depth in Array(repeating: "first", count: depth).joined(separator: "/") }
            + [deepest + "/read", deepest + "/done"]
            + (1..<Self.levels).reversed().map { depth in Array(repeating: "first", count: depth - 1).joined(separator: "/") + (depth == 1 ? "done" : "/done") }
        let quoted = path.map { "\"\($0)\"" }.joined(separator: ", ")
        let text = """
            {"fixture": "diamond", "version": 1, "workflow": "level-0.json", "home": "\(Repository.fixtures)/homes/ready.json",
             "expect": {"outcome": "succeeded", "path": [\(quoted)]}}
            """
        let outcome = FixtureLoader().load(text: text, file: directory + "/diamond.fixture.json")
        let fixture = try #require(outcome.fixture, "\(outcome.diagnostics)")
        let result = await FixtureRunner().run(fixture)
        #expect(result.passed, "\(result)")
        let report = CoverageReport(results: [result])
        #expect(report.workflows.count == Self.levels)
        #expect(report.coverage(ofFile: directory + "/level-\(Self.levels - 1).json")?.coveredStates == ["read", "done"])
        // A state no run can visit, deep down, is found as fast and named as ever.
        let wrong = text.replacingOccurrences(of: "\"\(deepest)/read\"", with: "\"\(deepest)/raed\"")
        let diagnostics = FixtureLoader().load(text: wrong, file: directory + "/diamond.fixture.json").diagnostics
        #expect(diagnostics.map(\.code) == ["unknownState"], "\(diagnostics)")
        #expect(diagnostics.first?.message.contains("did you mean \"\(deepest)/read\"?") == true, "\(diagnostics)")
    }
}
