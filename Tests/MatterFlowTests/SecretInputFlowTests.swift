import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// An input given to a secret argument or a sub-workflow's secret input must be secret itself: the call redacts the
/// value, but the run's start, its checkpoints and its traces show inputs as they are declared.
@Suite struct SecretInputFlowTests {
    static func workflow(input: String, state: String) -> String {
        """
        {"workflow": "t", "version": 1, "inputs": {"code": \(input), "name": {"type": "string", "required": true}},
         "start": "a", "onCancel": "done", "states": {"a": \(state), "done": {"type": "succeed"}}}
        """
    }

    static let action = #"{"type": "action", "operation": "commissionDevice", "arguments": {"onboardingPayload": "${input.code}"}, "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}"#
    static let subworkflow = #"{"type": "workflow", "path": "commission-device.json", "inputs": {"onboardingPayload": "${input.code}", "deviceName": "${input.name}"}, "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}"#

    @Test("a plain string input passed to a secret argument or sub-workflow input is an error at that place", arguments: [action, subworkflow])
    func refused(_ state: String) {
        let diagnostics = diagnose(Self.workflow(input: #"{"type": "string", "required": true}"#, state: state))
        let found = diagnostics.filter { $0.code == "secretInputNotDeclared" }
        #expect(found.count == 1, "\(diagnostics.map(\.description))")
        #expect(found.first?.severity == .error)
        #expect(found.first?.pointer.hasSuffix("/onboardingPayload") == true)
        #expect(found.first?.message.contains(#"declare the input "secret": true"#) == true)
    }

    @Test("a secret input, or one typed onboardingPayload, may be passed", arguments: [action, subworkflow])
    func accepted(_ state: String) {
        for input in [#"{"type": "string", "required": true, "secret": true}"#, #"{"type": "onboardingPayload", "required": true}"#] {
            let diagnostics = diagnose(Self.workflow(input: input, state: state))
            #expect(!diagnostics.contains { $0.code == "secretInputNotDeclared" }, "\(diagnostics.map(\.description))")
        }
    }

    @Test("an input copied into variables first, through one or several assign states in any order, is refused the same way, naming the variable")
    func throughVariables() {
        // "stash" copies the input into label, "relabel" label into final (declared after the state that reads it).
        let workflow = """
            {"workflow": "t", "version": 1, "inputs": {"code": {"type": "string", "required": true}, "pin": {"type": "string", "required": true, "secret": true}},
             "start": "stash", "onCancel": "done", "states": {
               "relabel": {"type": "assign", "set": {"final": "${vars.label}"}, "next": "a"},
               "a": {"type": "action", "operation": "commissionDevice", "arguments": {"onboardingPayload": "${vars.final}"}, "next": "done", "onError": [{"errors": ["*"], "next": "done"}]},
               "stash": {"type": "assign", "set": {"label": "prefix ${input.code}", "safe": "${input.pin}"}, "next": "relabel"},
               "done": {"type": "succeed"}}}
            """
        let found = diagnose(workflow).filter { $0.code == "secretInputNotDeclared" }
        #expect(found.count == 1, "\(found.map(\.description))")
        #expect(found.first?.message.contains(#"input "code" given to it (through variable "final") is not"#) == true, "\(found.map(\.message))")
        // A variable set only from a secret input passes.
        let secretOnly = workflow.replacingOccurrences(of: "${vars.final}", with: "${vars.safe}")
        #expect(!diagnose(secretOnly).contains { $0.code == "secretInputNotDeclared" })
    }
}
