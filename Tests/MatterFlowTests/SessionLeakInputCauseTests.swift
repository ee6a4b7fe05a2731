import MatterFlowJSON
import Testing

@testable import MatterFlow

/// A sessionLeak whose error can come from evaluating a sub-workflow state's inputs, before the child (which would
/// release the session when it fails) runs: the finding says so, naming the inputs that may fail.
@Suite struct SessionLeakInputCauseTests {
    static func workflow(commissionRoute: String, commissioningID: String = "${vars.req.requestID}") -> String {
        #"""
        {"workflow": "w", "version": 1, "start": "prepare", "onCancel": "onCancel",
         "inputs": {"payload": {"type": "onboardingPayload", "required": true}},
         "states": {
           "prepare": {"type": "workflow", "path": "prepare.json", "result": "session", "next": "request",
                       "onError": [{"errors": ["*"], "next": "failed"}]},
           "request": {"type": "workflow", "path": "add-device.json", "inputs": {"ecosystemName": "Acme", "homes": ["Main"]},
                       "result": "req", "next": "commission", "onError": [{"errors": ["*"], "next": "failed"}]},
           "commission": {"type": "workflow", "path": "commission.json",
                          "inputs": {"onboardingPayload": "${input.payload}", "commissioningID": "\#(commissioningID)"},
                          "next": "complete", "onError": [{"errors": ["*"], "next": "\#(commissionRoute)"}]},
           "complete": {"type": "workflow", "path": "complete.json", "next": "ok", "onError": [{"errors": ["*"], "next": "release"}]},
           "ok": {"type": "succeed"},
           "release": {"type": "workflow", "path": "cancel.json", "next": "failed", "onError": [{"errors": ["*"], "next": "failed"}]},
           "failed": {"type": "fail", "error": "${error}"},
           "onCancel": {"type": "choice", "choices": [{"if": {"exists": "${vars.session}"}, "next": "cancelSession"}], "default": "cancelled"},
           "cancelSession": {"type": "workflow", "path": "cancel.json", "next": "cancelled", "onError": [{"errors": ["*"], "next": "cancelled"}]},
           "cancelled": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "cancelled"}}}
        """#
    }

    @Test("an error route from a state whose inputs read a variable names that input as where the error can come from")
    func theInputsAreNamed() {
        let found = diagnose(Self.workflow(commissionRoute: "failed"))
        let leaks = found.filter { $0.code == "sessionLeak" }
        #expect(leaks.map(\.pointer) == ["/states/commission/onError/0/next"], "\(found)")
        let message = leaks.first?.message ?? ""
        #expect(message.contains(
            #"the error can come from evaluating the inputs of "commission" before commission.json runs, while the session is held: "commissioningID" reads ${vars.req.requestID}, which may not resolve"#),
            "\(message)")
        #expect(message.contains("commission.json then never runs, so it cannot release the session itself"), "\(message)")
        // Released on that route: no finding.
        #expect(diagnose(Self.workflow(commissionRoute: "release")).filter { $0.code == "sessionLeak" } == [])
    }

    @Test("a leak whose error comes from an action, not from evaluating inputs, says nothing of inputs")
    func otherErrorsAreNotBlamedOnInputs() {
        let text = #"""
            {"workflow": "w", "version": 1, "start": "prepare", "onCancel": "cancelled", "states": {
               "prepare": {"type": "action", "operation": "prepareCommissioning", "next": "rooms", "onError": [{"errors": ["*"], "next": "failed"}]},
               "rooms": {"type": "action", "operation": "fetchRooms", "next": "cancel", "onError": [{"errors": ["*"], "next": "failed"}]},
               "cancel": {"type": "action", "operation": "cancelCommissioning", "next": "ok", "onError": [{"errors": ["*"], "next": "ok"}]},
               "ok": {"type": "succeed"},
               "failed": {"type": "fail", "error": "${error}"},
               "cancelled": {"type": "fail", "code": "cancelled", "cause": "runCancelled", "message": "cancelled"}}}
            """#
        let leaks = diagnose(text).filter { $0.code == "sessionLeak" }
        #expect(!leaks.isEmpty, "\(diagnose(text))")
        #expect(leaks.allSatisfy { !$0.message.contains("evaluating the") }, "\(leaks)")
    }
}
