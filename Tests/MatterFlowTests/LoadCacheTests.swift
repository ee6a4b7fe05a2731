import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// An engine reuses the outcome of loading a workflow file only while no file of its tree has changed.
@Suite struct LoadCacheTests {
    /// A fresh directory, removed when the test ends.
    final class Directory {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("mf-load-cache-\(UInt64.random(in: 0...UInt64.max))").path

        init() throws {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        func write(_ name: String, _ text: String) throws {
            try text.write(toFile: path + "/" + name, atomically: true, encoding: .utf8)
        }
    }

    static let parent = #"""
        {"workflow": "parent", "version": 1, "start": "run", "states": {
          "run": {"type": "workflow", "path": "child.json", "next": "done"},
          "done": {"type": "succeed"}}}
        """#

    static func child(next: String) -> String {
        #"{"workflow": "child", "version": 1, "start": "a", "states": {"a": {"type": "assign", "set": {"x": 1}, "next": ""#
            + next + #""}, "b": {"type": "succeed"}}}"#
    }

    @Test func aChangedSubworkflowIsLoadedAgain() throws {
        let directory = try Directory()
        try directory.write("parent.json", Self.parent)
        try directory.write("child.json", Self.child(next: "b"))
        let engine = WorkflowEngine()
        let path = directory.path + "/parent.json"
        #expect(engine.validate(path: path).isEmpty)
        #expect(engine.validate(path: path).isEmpty)
        // The same length, one byte different: a transition to an undefined state.
        try directory.write("child.json", Self.child(next: "c"))
        let codes = engine.validate(path: path).map(\.code)
        #expect(codes.contains("undefinedState"), "\(codes)")
        #expect(codes.contains("invalidSubworkflow"), "\(codes)")
        #expect(throws: DiagnosticsError.self) { try engine.load(path: path) }
        try directory.write("child.json", Self.child(next: "b"))
        #expect(engine.validate(path: path).isEmpty)
        #expect(try engine.load(path: path).subworkflows["child.json"]?.name == "child")
    }

    @Test func aChangedRootIsLoadedAgain() throws {
        let directory = try Directory()
        try directory.write("child.json", Self.child(next: "b"))
        let engine = WorkflowEngine()
        let path = directory.path + "/child.json"
        #expect(engine.validate(path: path).isEmpty)
        try directory.write("child.json", Self.child(next: "b") + "\n")
        #expect(engine.validate(path: path).isEmpty)
        try directory.write("child.json", Self.child(next: "b") + "x")
        #expect(engine.validate(path: path).map(\.code) == ["syntaxError"])
    }

    @Test func aMissingSubworkflowIsLookedForAgain() throws {
        let directory = try Directory()
        try directory.write("parent.json", Self.parent)
        let engine = WorkflowEngine()
        let path = directory.path + "/parent.json"
        #expect(engine.validate(path: path).map(\.code) == ["undefinedWorkflowFile"])
        try directory.write("child.json", Self.child(next: "b"))
        #expect(engine.validate(path: path).isEmpty)
        try FileManager.default.removeItem(atPath: directory.path + "/child.json")
        #expect(engine.validate(path: path).map(\.code) == ["undefinedWorkflowFile"])
    }

    @Test func aSubworkflowThatIsADirectoryIsUnreadableNotMissing() throws {
        let directory = try Directory()
        try directory.write("parent.json", Self.parent)
        try FileManager.default.createDirectory(atPath: directory.path + "/child.json", withIntermediateDirectories: true)
        let diagnostics = WorkflowEngine().validate(path: directory.path + "/parent.json")
        #expect(diagnostics.map(\.code) == ["unreadableFile", "invalidSubworkflow"])
        #expect(diagnostics.first?.file == directory.path + "/child.json")
    }

    @Test func anotherCatalogDoesNotReuseOutcomes() throws {
        let directory = try Directory()
        let text = #"{"workflow": "w", "version": 1, "start": "a", "states": {"a": {"type": "action", "operation": "fetchRooms", "next": "done"}, "done": {"type": "succeed"}}}"#
        try directory.write("w.json", text)
        var engine = WorkflowEngine()
        let path = directory.path + "/w.json"
        #expect(engine.validate(path: path).allSatisfy { $0.severity != .error })
        engine.catalog = OperationCatalog([])
        #expect(engine.validate(path: path).map(\.code).contains("unknownOperation"))
    }

    @Test func aCachedOutcomeIsTheFreshOne() throws {
        let engine = WorkflowEngine()
        let path = Repository.workflow("commission-device.json")
        let fresh = WorkflowLoader().load(path: path)
        _ = engine.validate(path: path)
        let cached = try engine.load(path: path)
        #expect(engine.validate(path: path) == fresh.diagnostics)
        #expect(cached.contentHash == fresh.workflow?.contentHash)
        #expect(cached.subworkflows.keys.sorted() == fresh.workflow?.subworkflows.keys.sorted())
    }
}
