import Foundation
import MatterFlowBenchmarks
import MatterFlowJSON
import Testing

@testable import MatterFlow

/// The session proofs enter each sub-workflow with only the session facts it can tell apart (the operations its
/// calls require), so that a file run after many different steps (a release path) is explored once. The findings
/// must be exactly those of entering it with every fact: on the shipped workflows and examples, and on variants
/// built to leak the session or to call out of order through shared sub-workflows.
@Suite struct SessionEntryNarrowingTests {
    /// The diagnostics of loading a file, with entries narrowed or with every fact; with the operation catalogs
    /// kept beside it (`*.catalog.json`), as the examples of custom operations are validated.
    static func diagnostics(path: String, narrowing: Bool) throws -> [Diagnostic] {
        var loader = WorkflowLoader(catalog: try catalogBeside(path))
        loader.narrowsSessionEntries = narrowing
        return loader.load(path: path).diagnostics
    }

    static func diagnostics(text: String, file: String, narrowing: Bool) -> [Diagnostic] {
        var loader = WorkflowLoader()
        loader.narrowsSessionEntries = narrowing
        return loader.load(text: text, file: file, baseDirectory: Repository.workflowsDirectory).diagnostics
    }

    /// Every workflow file shipped or given as an example (JSON files with a `states` object).
    static func workflowFiles() throws -> [String] {
        var files: [String] = []
        for directory in ["Workflows", "Examples"] {
            let root = Repository.root + "/" + directory
            guard let walker = FileManager.default.enumerator(atPath: root) else { continue }
            for case let relative as String in walker where relative.hasSuffix(".json") {
                let path = root + "/" + relative
                guard let document = try? JSONDocument.load(path: path), case .object(let object) = document.value,
                    object["states"] != nil
                else { continue }
                files.append(path)
            }
        }
        return files.sorted()
    }

    @Test func everyShippedAndExampleWorkflowHasTheSameFindingsWithNarrowedEntries() throws {
        let files = try Self.workflowFiles()
        #expect(files.count >= 17, "\(files)")
        for path in files {
            let narrowed = try Self.diagnostics(path: path, narrowing: true)
            let full = try Self.diagnostics(path: path, narrowing: false)
            #expect(narrowed == full, "\(path)")
            #expect(!narrowed.contains { $0.severity == .error }, "\(path): \(narrowed)")
        }
    }

    /// commission-device.json with a change, loaded from text beside the shipped files.
    static func variant(_ change: (String) -> String) throws -> String {
        change(try String(contentsOfFile: Repository.workflow("commission-device.json"), encoding: .utf8))
    }

    @Test func aSharedSubWorkflowCalledOutOfOrderIsReportedTheSameWay() throws {
        // complete.json run once before commissioning (out of order) and once after it (in order): narrowed, the
        // two entries differ only in commissionDevice, which completeCommissioning requires.
        let text = try Self.variant { text in
            text.replacingOccurrences(
                of: #""result": "request",\#n      "next": "commission","#,
                with: #""result": "request",\#n      "next": "early","#
            ).replacingOccurrences(
                of: #""states": {"#,
                with: #""states": {\#n    "early": {"type": "workflow", "path": "complete.json", "next": "commission", "onError": [{"errors": ["*"], "next": "rememberFailure"}]},"#)
        }
        let file = Repository.workflowsDirectory + "/early-complete.json"
        let narrowed = Self.diagnostics(text: text, file: file, narrowing: true)
        let full = Self.diagnostics(text: text, file: file, narrowing: false)
        #expect(narrowed == full)
        // The early completion also ends the session, so commission.json then runs without one.
        let order = narrowed.filter { $0.code == "operationOutOfOrder" }
        #expect(order.count == 3, "\(narrowed)")
        #expect(order.first?.message.contains("completeCommissioning can be called in \"early/complete\" without commissionDevice") == true, "\(order)")
    }

    @Test func aCancelPathThatSkipsTheReleaseLeaksTheSameWay() throws {
        // The cancel path releases only when prepare opened no session: every cancel after prepare leaks.
        let text = try Self.variant { text in
            text.replacingOccurrences(
                of: #"{ "if": { "exists": "${vars.session}" }, "next": "cancel" }"#,
                with: #"{ "if": { "exists": "${vars.session}" }, "next": "cancelled" }"#
            ).replacingOccurrences(of: #""default": "cancelled""#, with: #""default": "cancel""#)
        }
        let file = Repository.workflowsDirectory + "/leaking.json"
        let narrowed = Self.diagnostics(text: text, file: file, narrowing: true)
        #expect(narrowed == Self.diagnostics(text: text, file: file, narrowing: false))
        #expect(narrowed.contains { $0.code == "sessionLeak" }, "\(narrowed)")
    }

    @Test func aLeakDeepInATreeRunManyWaysIsReportedTheSameWay() throws {
        let directory = NestedWorkflowTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (topPath, top) = try NestedWorkflowTests.writeLeakyDiamond(levels: 8, into: directory)
        var findings: [[Diagnostic]] = []
        for narrowing in [true, false] {
            var loader = WorkflowLoader()
            loader.narrowsSessionEntries = narrowing
            findings.append(loader.load(text: top, file: topPath, baseDirectory: directory).diagnostics)
        }
        #expect(findings[0] == findings[1])
        #expect(findings[0].contains { $0.code == "sessionLeak" }, "\(findings[0])")
    }

    @Test func generatedTreesHaveTheSameFindingsWithNarrowedEntries() throws {
        let directory = NestedWorkflowTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for shape in WorkflowTrees.Shape.allCases {
            let top = try WorkflowTrees.write(shape, levels: 12, into: directory + "/" + shape.rawValue)
            #expect(try Self.diagnostics(path: top, narrowing: true) == Self.diagnostics(path: top, narrowing: false))
        }
    }

    @Test func theReleasePathOfCommissionDeviceIsExploredOnceForTheStepsBeforeIt() throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device.json"))
        func walk(narrowing: Bool) -> (instances: Int, configurations: Int) {
            let context = VerificationContext(catalog: .standard)
            context.sessionGraph.narrowsEntries = narrowing
            let explorer = SessionExplorer(root: workflow, context: context)
            #expect(explorer.finished)
            let cancel = context.sessionGraph.nodeIDs[Repository.workflow("cancel.json")]
            let cancelInstances = context.sessionGraph.instances.filter { $0.entry.node == cancel }.count
            if narrowing { #expect(cancelInstances <= 4, "cancel.json entered \(cancelInstances) ways") }
            return (context.sessionGraph.instances.count, context.sessionGraph.configs.count)
        }
        let narrowed = walk(narrowing: true)
        let full = walk(narrowing: false)
        #expect(narrowed.instances < full.instances, "\(narrowed) vs \(full)")
        #expect(narrowed.configurations < full.configurations, "\(narrowed) vs \(full)")
    }
}
