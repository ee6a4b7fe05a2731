import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// Step Functions error names in retry entries and error routes never match a MatterFlow error: they are errors
/// saying what to write instead, not a warning about a cause some hub might raise.
@Suite("Validation: Step Functions error names")
struct StepFunctionsErrorNameTests {
    private let text = LoaderDiagnosticTests.workflow(states: #"""
        {"a": {"type": "action", "operation": "readHubStatus",
               "retry": [{"errors": ["States.ALL"], "maxRetries": 3}],
               "onError": [{"errors": ["States.Timeout"], "next": "bad"}, {"errors": ["States.TaskFailed"], "next": "bad"}],
               "next": "done"},
         "done": {"type": "succeed"},
         "bad": {"type": "fail", "code": "States.Timeout", "message": "x"}}
        """#)

    @Test("each name is an error that says what to write instead")
    func namesAreErrorsWithAdvice() throws {
        let findings = diagnose(text).filter { $0.code == "foreignErrorName" }
        func at(_ pointer: String) -> Diagnostic? { findings.first { $0.pointer == pointer } }
        let all = try #require(at("/states/a/retry/0/errors"), "\(findings)")
        #expect(all.severity == .error)
        #expect(all.message.contains("write \"*\""), "\(all.message)")
        let timeout = try #require(at("/states/a/onError/0/errors"), "\(findings)")
        #expect(timeout.message.contains("\"deadlineExceeded\"") && timeout.message.contains("actionTimedOut"), "\(timeout.message)")
        let failed = try #require(at("/states/a/onError/1/errors"), "\(findings)")
        #expect(failed.message.contains("\"deadlineExceeded\" first and then \"*\""), "\(failed.message)")
        #expect(!diagnose(text).contains { $0.code == "unknownErrorName" })
    }

    @Test("a fail state's code States.Timeout suggests deadlineExceeded")
    func failCode() {
        let finding = diagnose(text).first { $0.code == "invalidErrorCode" }
        #expect(finding?.message.contains("did you mean \"deadlineExceeded\"?") == true, "\(String(describing: finding))")
    }

    @Test("another unknown name stays an unknownErrorName warning")
    func otherNamesStayWarnings() {
        let plain = diagnose(text.replacingOccurrences(of: "States.ALL", with: "hubOfline"))
        #expect(plain.contains { $0.code == "unknownErrorName" && $0.severity == .warning })
    }
}
