import MatterFlow
import MatterFlowJSON
import Testing

/// Retrying an error the same arguments raise on every attempt only delays the failure.
@Suite("Validation: pointless retries")
struct PointlessRetryTests {
    private func findings(_ retry: String, operation: String = "readBasicInformation") -> [Diagnostic] {
        let arguments = operation == "readBasicInformation" ? #"{"deviceID": "${input.id}"}"# : #"{"onboardingPayload": "MT:Y.K9042C00KA0648G00"}"#
        return diagnose(LoaderDiagnosticTests.workflow(
            states: #"{"a": {"type": "action", "operation": ""# + operation + #"", "arguments": "# + arguments + #", "retry": "# + retry
                + #", "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "done": {"type": "succeed"}}"#,
            inputs: #"{"id": {"type": "string", "required": true}}"#)
        ).filter { $0.code == "pointlessRetry" }
    }

    @Test("invalidPayload, unresolvedReference and invalidArgumentValue retried are each a warning saying why")
    func flagged() {
        let payload = findings(#"[{"errors": ["invalidPayload"], "maxRetries": 5}]"#, operation: "commissionDevice")
        #expect(payload.count == 1 && payload.first?.severity == .warning, "\(payload)")
        #expect(payload.first?.pointer == "/states/a/retry/0/errors")
        #expect(payload.first?.message.contains("not a valid QR or manual pairing code") == true, "\(payload)")
        let both = findings(#"[{"errors": ["unresolvedReference", "invalidArgumentValue"], "maxRetries": 5}]"#)
        #expect(both.count == 2, "\(both)")
        #expect(findings(#"[{"errors": ["invalidArgument"]}]"#).count == 1)
    }

    @Test("\"*\", transient errors and an entry with maxRetries 0 are not flagged")
    func allowed() {
        #expect(findings(#"[{"errors": ["*"], "maxRetries": 5}]"#).isEmpty)
        #expect(findings(#"[{"errors": ["unavailable", "deviceNotFound"]}]"#).isEmpty)
        #expect(findings(#"[{"errors": ["invalidArgument"], "maxRetries": 0}, {"errors": ["*"]}]"#).isEmpty)
    }
}
