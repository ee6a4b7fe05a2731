import MatterFlowJSON
import Testing

@testable import MatterFlow

/// A parent reads a sub-workflow's output through the variable its state binds: a member none of the child's succeed
/// states writes is found by the validator, before a run acts on a hub and fails at its last state.
@Suite struct SubworkflowOutputFieldTests {
    static let child = #"""
        {"workflow": "child", "version": 1, "start": "pick", "inputs": {"fast": {"type": "boolean", "default": false}},
         "states": {
           "pick": {"type": "choice", "choices": [{"if": {"equals": ["${input.fast}", true]}, "next": "quick"}], "default": "slow"},
           "quick": {"type": "succeed", "output": {"deviceIDs": ["d-1"], "took": "${input.fast}"}},
           "slow": {"type": "succeed", "output": {"deviceIDs": ["d-2"], "retried": true}}}}
        """#

    static func parent(reading field: String, child: String = "child.json") -> String {
        #"""
        {"workflow": "parent", "version": 1, "start": "run",
         "states": {
           "run": {"type": "workflow", "path": "\#(child)", "result": "done", "next": "end"},
           "end": {"type": "succeed", "output": {"read": "${vars.done.\#(field)}"}}}}
        """#
    }

    @Test("a member no succeed state of the child writes is unknownField, with the one meant; any one of them is fine")
    func aMisspeltMemberIsFound() throws {
        let directory = try WorkflowDirectory("outputs", files: ["child.json": Self.child])
        defer { directory.remove() }
        let wrong = directory.diagnose(Self.parent(reading: "deviceID"))
        #expect(wrong.map(\.code) == ["unknownField"], "\(wrong)")
        #expect(wrong.first?.message.contains("did you mean \"deviceIDs\"?") == true, "\(wrong)")
        #expect(wrong.first?.pointer == "/states/end/output/read")
        for field in ["deviceIDs", "took", "retried", "deviceIDs.0"] {
            #expect(directory.diagnose(Self.parent(reading: field)).filter { $0.severity == .error } == [], "\(field)")
        }
    }

    @Test("a repeat's until reads the body's output by the same rule")
    func aRepeatsUntilIsChecked() throws {
        let directory = try WorkflowDirectory("outputs-repeat", files: ["child.json": Self.child])
        defer { directory.remove() }
        func parent(_ field: String) -> String {
            #"""
            {"workflow": "poll", "version": 1, "start": "poll", "states": {
               "poll": {"type": "repeat", "path": "child.json", "result": "r", "until": {"exists": "${vars.r.\#(field)}"},
                        "maxIterations": 3, "next": "end"},
               "end": {"type": "succeed"}}}
            """#
        }
        #expect(directory.diagnose(parent("deviceID")).map(\.code).contains("unknownField"))
        #expect(directory.diagnose(parent("deviceIDs")).filter { $0.severity == .error } == [])
    }

    @Test("a child whose output is no written object (a variable, or none) may have any member")
    func anOutputOfUnknownShapeIsAny() throws {
        let held = #"""
            {"workflow": "held", "version": 1, "start": "set", "states": {
               "set": {"type": "assign", "set": {"out": {"a": 1}}, "next": "end"},
               "end": {"type": "succeed", "output": "${vars.out}"}}}
            """#
        let none = #"{"workflow": "none", "version": 1, "start": "end", "states": {"end": {"type": "succeed"}}}"#
        let directory = try WorkflowDirectory("outputs-any", files: ["held.json": held, "none.json": none])
        defer { directory.remove() }
        for child in ["held.json", "none.json"] {
            let found = directory.diagnose(Self.parent(reading: "anything", child: child)).filter { $0.severity == .error }
            #expect(found == [], "\(child): \(found)")
        }
    }
}
