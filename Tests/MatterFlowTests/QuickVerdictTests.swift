import Foundation
import MatterFlowBenchmarks
import MatterFlowJSON
import Testing

@testable import MatterFlow

/// A load leaves out the checks a quick look proves can report nothing: the top-level file's session walk when no
/// call of its tree opens or releases the session or has an order requirement (and the walk fits under its limit),
/// and the duration analysis of a file without a deadline or a loop. The findings must be exactly those of running
/// every check: on the shipped workflows and examples, on trees built to leak, call out of order, loop or miss a
/// deadline, and on generated trees; and wherever the quick look says "nothing", the full check finds nothing.
@Suite struct QuickVerdictTests {
    static func diagnostics(path: String, skipping: Bool) throws -> [Diagnostic] {
        var loader = WorkflowLoader(catalog: try catalogBeside(path))
        loader.skipsChecksThatCannotFind = skipping
        return loader.load(path: path).diagnostics
    }

    static func diagnostics(text: String, skipping: Bool, in directory: String = Repository.workflowsDirectory) -> [Diagnostic] {
        var loader = WorkflowLoader()
        loader.skipsChecksThatCannotFind = skipping
        return loader.load(text: text, file: directory + "/quick-verdict.json", baseDirectory: directory).diagnostics
    }

    /// The findings of a text with the quick checks and without: they must be equal; returned for more checks.
    static func sameFindings(_ text: String, in directory: String = Repository.workflowsDirectory) -> [Diagnostic] {
        let quick = diagnostics(text: text, skipping: true, in: directory)
        #expect(quick == diagnostics(text: text, skipping: false, in: directory))
        return quick
    }

    @Test func everyShippedAndExampleWorkflowHasTheSameFindings() throws {
        let files = try SessionEntryNarrowingTests.workflowFiles()
        #expect(files.count >= 17, "\(files)")
        for path in files {
            #expect(try Self.diagnostics(path: path, skipping: true) == Self.diagnostics(path: path, skipping: false), "\(path)")
        }
    }

    /// Wherever the quick look says a check can report nothing, the full check reports nothing: for every shipped
    /// and example workflow, under the proofs' own limit and under limits small enough to cut walks short.
    @Test func theQuickLookNeverMissesWhatTheFullCheckFinds() throws {
        var quiet: Set<String> = []
        var loud: Set<String> = []
        for path in try SessionEntryNarrowingTests.workflowFiles() {
            let catalog = try catalogBeside(path)
            guard let workflow = WorkflowLoader(catalog: catalog).load(path: path).workflow else { continue }
            for limit in [10, 40, 160, SessionExplorer.limit] {
                let mayFind = SessionExplorer.mayFind(in: workflow, context: VerificationContext(catalog: catalog), limit: limit)
                let walk = SessionExplorer(root: workflow, context: VerificationContext(catalog: catalog), limit: limit)
                let found = walk.ends.contains(where: \.held) || !walk.violations.isEmpty || !walk.unbalancedMaps.isEmpty || !walk.finished
                #expect(mayFind || !found, "\(path), limit \(limit)")
                if limit == SessionExplorer.limit { if mayFind { loud.insert(path) } else { quiet.insert(path) } }
                // The skip rests on the bound: a whole walk numbers no more configurations than it says.
                if limit == SessionExplorer.limit, walk.finished,
                    let bound = SessionExplorer.configurationBound(in: workflow, context: VerificationContext(catalog: catalog))
                {
                    #expect(walk.configs.count <= bound, "\(path): \(walk.configs.count) configurations, bound \(bound)")
                }
            }
            if !BudgetCheck.mayFind(workflow) {
                let graph = VerificationContext(catalog: catalog).budgetGraph(workflow)
                #expect(graph.loop == nil && workflow.contract.deadlineSeconds == nil, "\(path)")
            }
        }
        // Both answers occur: border routers are described without the session, devices are commissioned in one.
        #expect(quiet.contains(Repository.workflow("border-router-info.json")), "\(quiet)")
        #expect(quiet.contains(Repository.workflow("epskc-share.json")), "\(quiet)")
        #expect(loud.contains(Repository.workflow("commission-device.json")), "\(loud)")
    }

    @Test func aWalkThatCouldOutgrowItsLimitIsNotLeftOut() throws {
        // 60 states without the session: quiet under the proofs' limit, not under one a walk of it could reach.
        let states = (0..<60).map { #""s\#($0)": {"type": "assign", "set": {"v\#($0)": 1}, "next": "s\#($0 + 1)"}"# }
        let text = #"{"workflow": "long", "version": 1, "start": "s0", "states": {"# + states.joined(separator: ", ")
            + #", "s60": {"type": "succeed"}}}"#
        let workflow = try loadWorkflow(text)
        #expect(!SessionExplorer.mayFind(in: workflow, context: VerificationContext(catalog: .standard)))
        #expect(SessionExplorer.mayFind(in: workflow, context: VerificationContext(catalog: .standard), limit: 40))
        #expect(!SessionExplorer(root: workflow, context: VerificationContext(catalog: .standard), limit: 40).finished)
        #expect(Self.sameFindings(text).isEmpty)
    }

    @Test func aLeakAtTheTopLevelIsStillReported() {
        let findings = Self.sameFindings(#"""
            {"workflow": "leak", "version": 1, "start": "prepare", "onCancel": "cancelled", "sessionOnSuccess": "released",
             "states": {
               "prepare": {"type": "action", "operation": "prepareCommissioning", "next": "done",
                           "onError": [{"errors": ["*"], "next": "failed"}]},
               "done": {"type": "succeed"},
               "failed": {"type": "fail", "error": "${error}"},
               "cancelled": {"type": "fail", "code": "cancelled", "message": "cancelled"}}}
            """#)
        #expect(findings.contains { $0.code == "sessionLeak" }, "\(findings)")
    }

    @Test func aLeakThroughASubWorkflowIsStillReported() {
        let findings = Self.sameFindings(#"""
            {"workflow": "leak", "version": 1, "start": "prepare", "sessionOnSuccess": "released",
             "states": {
               "prepare": {"type": "workflow", "path": "prepare.json", "next": "done",
                           "onError": [{"errors": ["*"], "next": "failed"}]},
               "done": {"type": "succeed"},
               "failed": {"type": "fail", "error": "${error}"}}}
            """#)
        #expect(findings.contains { $0.code == "sessionLeak" }, "\(findings)")
    }

    @Test func aCallWithoutItsSupportCheckIsStillReported() {
        let findings = Self.sameFindings(#"""
            {"workflow": "join", "version": 1, "start": "join",
             "inputs": {"deviceID": {"type": "string", "required": true}, "dataset": {"type": "string", "required": true, "secret": true}},
             "states": {
               "join": {"type": "action", "operation": "joinThreadNetwork",
                        "arguments": {"deviceID": "${input.deviceID}", "operationalDataset": "${input.dataset}"},
                        "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
               "done": {"type": "succeed"},
               "failed": {"type": "fail", "error": "${error}"}}}
            """#)
        #expect(findings.contains { $0.code == "operationOutOfOrder" }, "\(findings)")
    }

    @Test("a branch reading a member a support result lacks is reported whether or not the walk is left out")
    func anUnknownSupportFieldIsStillReported() {
        let findings = Self.sameFindings(#"""
            {"workflow": "look", "version": 1, "start": "find",
             "states": {
               "find": {"type": "workflow", "path": "find-border-router.json", "result": "router", "next": "check",
                        "onError": [{"errors": ["*"], "next": "failed"}]},
               "check": {"type": "choice", "choices": [{"if": {"contains": ["${vars.router.comands}", "x"]}, "next": "done"}], "default": "done"},
               "done": {"type": "succeed"},
               "failed": {"type": "fail", "error": "${error}"}}}
            """#)
        #expect(findings.map(\.code) == ["unknownSupportField"], "\(findings)")
    }

    @Test func aLoopAndAMissedDeadlineAreStillReported() {
        let loop = Self.sameFindings(#"""
            {"workflow": "loop", "version": 1, "start": "find",
             "states": {
               "find": {"type": "workflow", "path": "find-border-router.json", "result": "router", "next": "again",
                        "onError": [{"errors": ["*"], "next": "failed"}]},
               "again": {"type": "choice", "choices": [{"if": {"exists": "${vars.router}"}, "next": "done"}], "default": "find"},
               "done": {"type": "succeed"},
               "failed": {"type": "fail", "error": "${error}"}}}
            """#)
        #expect(loop.contains { $0.code == "unboundedDuration" }, "\(loop)")
        let late = Self.sameFindings(#"""
            {"workflow": "late", "version": 1, "start": "find", "deadlineSeconds": 1,
             "states": {
               "find": {"type": "workflow", "path": "find-border-router.json", "next": "done",
                        "onError": [{"errors": ["*"], "next": "failed"}]},
               "done": {"type": "succeed"},
               "failed": {"type": "fail", "error": "${error}"}}}
            """#)
        #expect(late.contains { $0.code == "deadlineNotMet" }, "\(late)")
        // A loop only on the cancel path (its states reached after a cancel) is found too.
        let cancelLoop = Self.sameFindings(#"""
            {"workflow": "cancel-loop", "version": 1, "start": "find", "onCancel": "undo",
             "states": {
               "find": {"type": "workflow", "path": "find-border-router.json", "result": "router", "next": "done",
                        "onError": [{"errors": ["*"], "next": "failed"}]},
               "done": {"type": "succeed"},
               "failed": {"type": "fail", "error": "${error}"},
               "undo": {"type": "choice", "choices": [{"if": {"exists": "${vars.router}"}, "next": "stopped"}], "default": "undo"},
               "stopped": {"type": "fail", "code": "cancelled", "message": "cancelled"}}}
            """#)
        #expect(cancelLoop.contains { $0.code == "unboundedDuration" }, "\(cancelLoop)")
    }

    @Test func generatedTreesHaveTheSameFindings() throws {
        let directory = NestedWorkflowTests.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        for shape in WorkflowTrees.Shape.allCases {
            let top = try WorkflowTrees.write(shape, levels: 12, into: directory + "/" + shape.rawValue)
            #expect(try Self.diagnostics(path: top, skipping: true) == Self.diagnostics(path: top, skipping: false))
        }
        let leakyDirectory = directory + "/leaky"
        let (_, top) = try NestedWorkflowTests.writeLeakyDiamond(levels: 8, into: leakyDirectory)
        let leaky = Self.sameFindings(top, in: leakyDirectory)
        #expect(leaky.contains { $0.code == "sessionLeak" }, "\(leaky)")
    }
}
