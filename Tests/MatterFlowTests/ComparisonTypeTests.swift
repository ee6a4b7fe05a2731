import MatterFlowJSON
import Testing

@testable import MatterFlow

/// A choice comparing a value of a known type with a literal of another never holds (type mismatches are false at
/// run time): the validator says so where it is written, and how to write the literal when it can tell.
@Suite struct ComparisonTypeTests {
    static func workflow(_ condition: String) -> String {
        #"""
        {"workflow": "cmp", "version": 1, "start": "status", "inputs": {"count": {"type": "integer", "default": 1}},
         "states": {
           "status": {"type": "action", "operation": "readHubStatus", "result": "status", "next": "check",
                      "onError": [{"errors": ["*"], "next": "off"}]},
           "check": {"type": "choice", "choices": [{"if": \#(condition), "next": "ok"}], "default": "off"},
           "ok": {"type": "succeed"},
           "off": {"type": "fail", "code": "unavailable", "message": "offline"}}}
        """#
    }

    func mismatches(_ condition: String) -> [Diagnostic] {
        diagnose(Self.workflow(condition)).filter { $0.code == "typeMismatch" }
    }

    @Test("a boolean against a string, a number against a boolean, inside and/or/not: a warning at the comparison")
    func mismatchesAreFound() {
        let quoted = mismatches(#"{"equals": ["${vars.status.online}", "true"]}"#)
        #expect(quoted.count == 1 && quoted.first?.severity == .warning, "\(quoted)")
        #expect(quoted.first?.pointer == "/states/check/choices/0/if/equals")
        #expect(quoted.first?.message.hasSuffix("so this never holds; write true without quotes") == true, "\(quoted)")
        let nested = mismatches(#"{"or": [{"exists": "${vars.status}"}, {"not": {"notEquals": [true, "${input.count}"]}}]}"#)
        #expect(nested.first?.pointer == "/states/check/choices/0/if/or/1/not/notEquals", "\(nested)")
        #expect(nested.first?.message.contains("so this always holds") == true, "\(nested)")
    }

    @Test("an ask choice without value binds the element as it is: a number list's answer is a number, an object list's anything")
    func askChoicesBindTheElement() {
        func workflow(_ from: String, _ condition: String) -> String {
            #"""
            {"workflow": "ask", "version": 1, "start": "pick", "states": {
               "pick": {"type": "ask", "prompt": "Which?", "answer": {"choice": \#(from)}, "result": "n",
                        "timeoutSeconds": 60, "next": "check", "onTimeout": "off"},
               "check": {"type": "choice", "choices": [{"if": \#(condition), "next": "ok"}], "default": "off"},
               "ok": {"type": "succeed"},
               "off": {"type": "fail", "code": "unavailable", "message": "no"}}}
            """#
        }
        let numbers = diagnose(workflow(#"{"from": [1, 2, 3]}"#, #"{"equals": ["${vars.n}", 2]}"#))
        #expect(numbers.filter { $0.code == "typeMismatch" || $0.severity == .error } == [], "\(numbers)")
        #expect(diagnose(workflow(#"{"from": [1, 2, 3]}"#, #"{"equals": ["${vars.n}", "2"]}"#)).contains { $0.code == "typeMismatch" })
        let objects = diagnose(workflow(#"{"from": [{"id": 1, "name": "a"}], "label": "name"}"#, #"{"equals": ["${vars.n.id}", 1]}"#))
        #expect(objects.filter { $0.code == "typeMismatch" || $0.severity == .error } == [], "\(objects)")
    }

    @Test("same types, null, and values of unknown type are left alone")
    func noFalseAlarms() {
        for condition in [
            #"{"equals": ["${vars.status.online}", true]}"#, #"{"greaterThan": ["${input.count}", 0.5]}"#,
            #"{"equals": ["${vars.status.online}", null]}"#, #"{"equals": ["${vars.status}", "x"]}"#,
            #"{"equals": ["${error.code}", "unavailable"]}"#,
        ] {
            #expect(mismatches(condition).isEmpty, "\(condition)")
        }
    }

    @Test("a fail state's cause a letter from a known one is a warning with the one meant; a cause of the workflow's own is not")
    func aMisspeltFailCause() {
        func found(_ cause: String) -> [Diagnostic] {
            diagnose(#"""
                {"workflow": "f", "version": 1, "start": "end", "states": {
                   "end": {"type": "fail", "code": "cancelled", "cause": "\#(cause)", "message": "stopped"}}}
                """#).filter { $0.code == "unknownErrorName" }
        }
        #expect(found("runCanceled").first?.message.contains("did you mean \"runCancelled\"?") == true, "\(found("runCanceled"))")
        #expect(found("userStoppedTheShare").isEmpty)
        #expect(found("userCancelled").isEmpty, "a word of its own, not a typo of runCancelled")
        #expect(found("deviceNotCommissioned").isEmpty)
        #expect(found("runCancelled").isEmpty)
    }
}
