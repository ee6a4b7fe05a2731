import MatterFlow
import MatterFlowJSON
import Testing

/// What `matterflow operations` says an operation may raise is what the validator lets a retry or route name.
@Suite("Operations: listed errors agree with the validator")
struct OperationErrorListTests {
    private func deadRetries(_ operation: String, arguments: String, retrying cause: String) -> [Diagnostic] {
        diagnose(LoaderDiagnosticTests.workflow(
            states: #"{"a": {"type": "action", "operation": ""# + operation + #"", "arguments": "# + arguments
                + #", "retry": [{"errors": [""# + cause + #""]}], "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "done": {"type": "succeed"}}"#,
            inputs: #"{"id": {"type": "string", "required": true}}"#)
        ).filter { $0.code == "deadRetry" }
    }

    @Test("no operation lists runCancelled: a cancelled run takes its cancel edge, never a retry or a route")
    func runCancelledIsNotListed() {
        for operation in OperationCatalog.standard.operations {
            #expect(!operation.possibleCauses.contains(.runCancelled), "\(operation.name)")
        }
        #expect(!deadRetries("readBasicInformation", arguments: #"{"deviceID": "${input.id}"}"#, retrying: "runCancelled").isEmpty)
    }

    @Test("every cause listed for an operation can be retried without a deadRetry", arguments: [
        ("readHubStatus", "{}"), ("fetchRooms", "{}"), ("readBasicInformation", #"{"deviceID": "${input.id}"}"#),
    ])
    func listedCausesAreLive(operation: String, arguments: String) throws {
        let descriptor = try #require(OperationCatalog.standard[operation])
        for cause in descriptor.possibleCauses {
            #expect(deadRetries(operation, arguments: arguments, retrying: cause.rawValue).isEmpty, "\(operation) lists \(cause.rawValue)")
        }
    }
}
