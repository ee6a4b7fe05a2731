import MatterFlowJSON
import Testing

@testable import MatterFlow

/// A fail state re-raising a variable set from a literal (`"error": "${vars.failure}"`): the validator checks the
/// literal is an error value where it was written, as the run would fail with internal/malformedError otherwise.
@Suite struct RaisedLiteralErrorTests {
    static func workflow(set value: String, reading path: String = "failure", between: String = "") -> String {
        #"""
        {"workflow": "w", "version": 1, "start": "a", "inputs": {"x": {"type": "any", "default": null}},
         "states": {
           "a": {"type": "assign", "set": {"failure": \#(value)}, "next": "\#(between.isEmpty ? "f" : "b")"},
           \#(between.isEmpty ? "" : between + ",")
           "f": {"type": "fail", "error": "${vars.\#(path)}"}}}
        """#
    }

    @Test("a literal code that is not canonical is invalidErrorCode at that code, naming the fail state")
    func aNonCanonicalCodeIsFoundWhereWritten() {
        let found = diagnose(Self.workflow(set: #"{"code": "timeout", "message": "no name"}"#))
        #expect(found.map(\.code) == ["invalidErrorCode"], "\(found)")
        #expect(found.first?.pointer == "/states/a/set/failure/code")
        #expect(found.first?.message.contains(#"fail state "f" raises this value"#) == true, "\(found)")
        #expect(found.first?.message.contains(#"its "code" "timeout" is no canonical code"#) == true, "\(found)")
    }

    @Test("no code, a message that is no string, a string, a member read along the path: each found; computed members are left to the run")
    func otherShapes() {
        #expect(diagnose(Self.workflow(set: #"{"message": "m"}"#)).map(\.pointer) == ["/states/a/set/failure"])
        #expect(diagnose(Self.workflow(set: #"{"code": "unavailable", "message": 5}"#)).map(\.pointer) == ["/states/a/set/failure/message"])
        #expect(diagnose(Self.workflow(set: #""unavailable""#)).map(\.code) == ["invalidErrorCode"])
        let nested = diagnose(Self.workflow(set: #"{"inner": {"code": "offline"}}"#, reading: "failure.inner"))
        #expect(nested.map(\.pointer) == ["/states/a/set/failure/inner/code"], "\(nested)")
        let computed = diagnose(Self.workflow(set: #"{"code": "offline", "message": "${input.x}"}"#))
        #expect(computed.map(\.pointer) == ["/states/a/set/failure/code"], "\(computed)")
        #expect(diagnose(Self.workflow(set: #"{"code": "${input.x}", "message": "${input.x}"}"#)).filter { $0.severity == .error } == [])
        #expect(diagnose(Self.workflow(set: #"{"code": "unavailable", "cause": "hubOffline", "message": "m"}"#)).filter { $0.severity == .error } == [])
    }

    @Test("a literal set again before the fail state (a null placeholder, or any later binding) is not what it raises")
    func onlyTheLastBindingCounts() {
        let overwritten = Self.workflow(
            set: #"{"code": "timeout"}"#,
            between: #""b": {"type": "assign", "set": {"failure": "${input.x}"}, "next": "f"}"#)
        #expect(diagnose(overwritten).filter { $0.severity == .error } == [], "\(diagnose(overwritten))")
        #expect(diagnose(Self.workflow(set: "null")).filter { $0.severity == .error } == [])
    }
}
