import Foundation
import MatterFlowBenchmarks
import MatterFlowJSON
import Testing

@testable import MatterFlow

/// Trees of sub-workflows of every shape: a chain nested past the limit is a located error, quickly; within the
/// limit, every analysis costs what the distinct files cost, however many paths lead through them.
@Suite struct NestedWorkflowTests {
    /// A fresh directory for one test's tree, removed by the caller.
    static func directory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("mf-tree-\(UInt64.random(in: 0...UInt64.max))").path
    }

    /// A diamond tree whose leaf opens a session and hands it to its caller (releasing it only when cancelled),
    /// under a top that promises a released session: the top's path and text.
    static func writeLeakyDiamond(levels: Int, into directory: String) throws -> (path: String, text: String) {
        try WorkflowTrees.write(.diamond, levels: levels, into: directory)
        let leaf = #"""
            {"workflow": "leaf", "version": 1, "start": "prepare", "onCancel": "cancel", "states": {
              "prepare": {"type": "action", "operation": "prepareCommissioning", "result": "session", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"},
              "cancel": {"type": "choice", "choices": [{"if": {"exists": "${vars.session}"}, "next": "release"}], "default": "stopped"},
              "release": {"type": "action", "operation": "cancelCommissioning", "next": "stopped", "onError": [{"errors": ["*"], "next": "stopped"}]},
              "stopped": {"type": "fail", "code": "cancelled", "message": "cancelled"}
            }}
            """#
        try leaf.write(toFile: directory + "/" + WorkflowTrees.fileName(levels - 1), atomically: true, encoding: .utf8)
        let topPath = directory + "/" + WorkflowTrees.fileName(0)
        let top = try String(contentsOfFile: topPath, encoding: .utf8)
            .replacingOccurrences(of: #""start": "first","#, with: #""start": "first", "sessionOnSuccess": "released","#)
        return (topPath, top)
    }

    @Test func aChainOfTwoThousandLevelsIsALocatedErrorAtTheLevelPastTheLimit() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let top = try WorkflowTrees.write(.chain, levels: 2_000, into: directory)
        let diagnostics = WorkflowEngine().validate(path: top)
        let tooDeep = diagnostics.filter { $0.code == "nestingTooDeep" }
        #expect(tooDeep.count == 1, "\(diagnostics.prefix(3))")
        let finding = try #require(tooDeep.first)
        let limit = WorkflowLoader.maximumNestingDepth
        #expect(finding.file == directory + "/" + WorkflowTrees.fileName(limit))
        #expect(finding.pointer == "/states/first/path")
        #expect(finding.location?.line == 2)
        #expect(finding.message.contains("\"level-\(limit + 1).json\" would be sub-workflow level \(limit + 1), deeper than the \(limit) levels"))
        // Files past the limit are not even read; every level above reports its invalid child.
        #expect(diagnostics.count == limit + 1)
        #expect(diagnostics.allSatisfy { $0.severity == .error })
    }

    @Test func aChainExactlyAtTheLimitIsValidAndOneLevelMoreIsNot() throws {
        let limit = WorkflowLoader.maximumNestingDepth
        let deepest = Self.directory()
        let tooDeep = Self.directory()
        defer {
            try? FileManager.default.removeItem(atPath: deepest)
            try? FileManager.default.removeItem(atPath: tooDeep)
        }
        // `limit + 1` files: the leaf is sub-workflow level `limit`.
        let valid = try WorkflowTrees.write(.chain, levels: limit + 1, into: deepest)
        #expect(WorkflowEngine().validate(path: valid).isEmpty)
        let invalid = try WorkflowTrees.write(.chain, levels: limit + 2, into: tooDeep)
        #expect(WorkflowEngine().validate(path: invalid).contains { $0.code == "nestingTooDeep" })
    }

    @Test func aFileLoadedHigherUpIsStillTooDeepWhereItIsNamedLower() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let limit = WorkflowLoader.maximumNestingDepth
        // level-1.json heads a chain of `limit` levels below the top: fine when the top names it, too deep when
        // a file one level down names it again.
        try WorkflowTrees.write(.chain, levels: limit + 1, into: directory)
        let top = #"""
            {"workflow": "top", "version": 1, "start": "a", "states": {
              "a": {"type": "workflow", "path": "level-1.json", "next": "b", "onError": [{"errors": ["*"], "next": "failed"}]},
              "b": {"type": "workflow", "path": "wrapper.json", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#
        let wrapper = top.replacingOccurrences(of: #""workflow": "top""#, with: #""workflow": "wrapper""#)
            .replacingOccurrences(of: #""path": "wrapper.json", "next": "done""#, with: #""path": "level-\#(limit).json", "next": "done""#)
        try wrapper.write(toFile: directory + "/wrapper.json", atomically: true, encoding: .utf8)
        let diagnostics = WorkflowLoader().load(text: top, file: directory + "/top.json", baseDirectory: directory).diagnostics
        let finding = try #require(diagnostics.first { $0.code == "nestingTooDeep" }, "\(diagnostics)")
        #expect(finding.file == directory + "/wrapper.json")
        #expect(finding.pointer == "/states/a/path")
        #expect(finding.message.contains("\"level-1.json\" nests \(limit - 1) more levels of sub-workflows below level 2"))
    }

    @Test func aDiamondOfFortyLevelsValidatesExploringEachFileOnce() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let top = try WorkflowTrees.write(.diamond, levels: 40, into: directory)
        #expect(WorkflowEngine().validate(path: top).isEmpty)
        // 2^39 ways lead to the leaf; the proof walks each file once per way it is entered (here one), so its
        // configurations grow with the files.
        let workflow = try WorkflowEngine().load(path: top)
        let explorer = SessionExplorer(root: workflow, context: VerificationContext(catalog: .standard))
        #expect(explorer.nodes.count == 40)
        #expect(explorer.instances.count == 40)
        #expect(explorer.configs.count < 40 * 10, "\(explorer.configs.count) configurations")
        #expect(explorer.finished)
    }

    @Test func aDiamondOfFortyLevelsRunsWithoutCompilingEveryPath() async throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let top = try WorkflowTrees.write(.diamond, levels: 40, into: directory)
        let engine = WorkflowEngine()
        let workflow = try engine.load(path: top)
        let hub = ScriptedHub()
        let handle = try engine.start(
            workflow, inputs: [:], on: hub,
            options: RunOptions(structureID: "s", clock: ManualClock(), random: SeededRandomSource(seed: 1)))
        let result = await handle.result
        #expect(result.outcome == .succeeded)
        #expect(result.visitedStates.count == 40 * 2)
        #expect(hub.calls == ["status"])
    }

    @Test func aSessionLeakDeepInATreeIsReportedOnceWithItsCallChain() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (topPath, top) = try Self.writeLeakyDiamond(levels: 12, into: directory)
        let diagnostics = WorkflowLoader().load(text: top, file: topPath, baseDirectory: directory).diagnostics
        let leaks = diagnostics.filter { $0.code == "sessionLeak" }
        #expect(leaks.map(\.pointer) == ["/states/first/next"], "\(diagnostics)")
        let chain = (0..<11).map { _ in "first/" }.joined()
        #expect(leaks.first?.message.contains("opened in \"\(chain)prepare\"") == true, "\(leaks)")
        #expect(leaks.first?.message.contains("Path: first -[start]-> first/first -[start]-> ") == true, "\(leaks)")
        #expect(leaks.first?.message.contains("\(chain)prepare -[next]-> \(chain)done -[next]-> ") == true, "\(leaks)")
        #expect(leaks.first?.message.hasSuffix(" -[next]-> first/done -[next]-> done") == true, "\(leaks)")
    }
}
