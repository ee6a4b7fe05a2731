import MatterFlow
import MatterFlowJSON
import Testing

/// Hints for names written as Step Functions, XState or common usage has them: the name that does the same thing
/// here, not the one that merely looks alike.
@Suite("Spelling: synonyms from other workflow languages")
struct WorkflowSynonymTests {
    private func message(_ code: String, _ text: String) -> String {
        diagnose(text).first { $0.code == code }?.message ?? "no \(code) in \(diagnose(text))"
    }

    private func workflow(_ states: String, top: String = "") -> String {
        LoaderDiagnosticTests.workflow(states: states, extra: top)
    }

    @Test("a Step Functions Task is an action state, not an ask state")
    func taskIsAction() {
        let found = message("unknownStateType", workflow(#"{"a": {"type": "Task", "next": "b"}, "b": {"type": "succeed"}}"#))
        #expect(found.contains("did you mean \"action\"?"), "\(found)")
        #expect(!found.contains("\"ask\"?"), "\(found)")
    }

    @Test("a Step Functions Wait suggests wait, and says a wait for time is a delay state")
    func waitForTimeIsDelay() {
        let found = message("unknownStateType", workflow(#"{"a": {"type": "Wait", "seconds": 5, "next": "b"}, "b": {"type": "succeed"}}"#))
        #expect(found.contains("did you mean \"wait\"?") && found.contains("delay state"), "\(found)")
    }

    @Test("a wait's timeout is its timeoutSeconds, not its onTimeout")
    func timeoutIsTimeoutSeconds() {
        let found = message("unknownKey", workflow(#"""
            {"a": {"type": "wait", "event": "epskcModeDeactivated", "timeout": 5, "on": {"keyUsed": "b"}, "otherwise": "b", "onTimeout": "b"},
             "b": {"type": "succeed"}}
            """#))
        #expect(found.contains("did you mean \"timeoutSeconds\"?"), "\(found)")
    }

    @Test("eq is equals, not or")
    func eqIsEquals() {
        let found = message("invalidCondition", workflow(#"""
            {"a": {"type": "choice", "choices": [{"if": {"eq": ["${run.id}", "x"]}, "next": "b"}], "default": "b"}, "b": {"type": "succeed"}}
            """#))
        #expect(found.contains("did you mean \"equals\"?"), "\(found)")
        let typed = message("invalidCondition", workflow(#"""
            {"a": {"type": "choice", "choices": [{"if": {"NumericGreaterThanEquals": ["${run.id}", 1]}, "next": "b"}], "default": "b"}, "b": {"type": "succeed"}}
            """#))
        #expect(typed.contains("did you mean \"greaterThanOrEqual\"?"), "\(typed)")
    }

    @Test("XState's entry is not a misspelled retry: it says how to run an action")
    func entryIsNotRetry() {
        let found = message("unknownKey", workflow(#"""
            {"a": {"type": "action", "operation": "fetchRooms", "entry": "x", "next": "b"}, "b": {"type": "succeed"}}
            """#))
        #expect(!found.contains("did you mean \"retry\""), "\(found)")
        #expect(found.contains("action state of its own"), "\(found)")
    }

    @Test("Step Functions keys get the name of the member that does their work")
    func stepFunctionsKeys() {
        let text = workflow(#"""
            {"a": {"type": "action", "operation": "fetchRooms", "Catch": [], "ResultPath": "$.r", "Next": "b",
                   "retry": [{"errors": ["*"], "MaxAttempts": 2, "BackoffRate": 2}]},
             "b": {"type": "succeed", "End": true}}
            """#)
        let messages = diagnose(text).filter { $0.code == "unknownKey" }.map { ($0.pointer, $0.message) }
        func about(_ pointer: String) -> String { messages.first { $0.0 == pointer }?.1 ?? "nothing at \(pointer): \(messages)" }
        #expect(about("/states/a/Catch").contains("did you mean \"onError\"?"))
        #expect(about("/states/a/ResultPath").contains("did you mean \"result\"?"))
        #expect(about("/states/a/Next").contains("did you mean \"next\"?"))
        #expect(about("/states/a/retry/0/MaxAttempts").contains("did you mean \"maxRetries\"?"))
        #expect(about("/states/a/retry/0/BackoffRate").contains("did you mean \"backoffRate\"?"))
        #expect(about("/states/b/End").contains("succeed or fail state"))
    }

    @Test("a map's itemsPath is its items")
    func itemsPathIsItems() {
        let found = message("unknownKey", workflow(#"""
            {"a": {"type": "map", "itemsPath": "${run.id}", "items": [], "as": "x", "maxItems": 2, "path": "body.json", "next": "b"}, "b": {"type": "succeed"}}
            """#))
        #expect(found.contains("did you mean \"items\"?"), "\(found)")
    }

    @Test("an input type int is integer")
    func intIsInteger() {
        let found = message("invalidValue", LoaderDiagnosticTests.workflow(
            states: #"{"a": {"type": "succeed"}}"#, inputs: #"{"n": {"type": "int"}}"#))
        #expect(found.contains("did you mean \"integer\"?"), "\(found)")
    }

    @Test("a name that differs only in case is suggested whatever its length")
    func caseOnly() {
        #expect(SpellingSuggestion.closest(to: "requestId", among: ["requestID", "request"], synonyms: .none) == "requestID")
        #expect(SpellingSuggestion.closest(to: "deviceIds", among: ["deviceIDs", "devices"], synonyms: .none) == "deviceIDs")
    }

    @Test("an operation catalog's int is integer, and an idempotency key off by case names the argument")
    func catalogHints() throws {
        do {
            _ = try OperationDeclarations.parse(
                """
                {"catalog": "lock", "version": 1, "operations": {"startCalibration": {
                  "summary": "starts calibration", "arguments": {"requestID": {"type": "string", "required": true}},
                  "result": {"percent": {"type": "int"}}, "defaultTimeoutSeconds": 5, "effect": "nonIdempotentWrite",
                  "idempotencyKey": "requestId"}}}
                """, file: "lock.catalog.json")
            Issue.record("the catalog was accepted")
        } catch {
            let messages = error.diagnostics.map(\.message)
            #expect(messages.contains { $0.contains("unknown type \"int\" (did you mean \"integer\"?)") }, "\(messages)")
            #expect(messages.contains { $0.contains("idempotencyKey") && $0.contains("did you mean \"requestID\"?") }, "\(messages)")
        }
    }
}
