import Foundation
import MatterFlowJSON
import Testing

@testable import MatterFlow

/// The verifier over map states: time bounds multiply the body's by `maxItems`, and a body must leave the
/// commissioning session as it found it.
@Suite struct MapVerificationTests {
    @Test func aMapIsBoundedByMaxItemsRunsOfItsBody() throws {
        let text = #"""
            {"workflow": "w", "version": 1, "start": "each", "states": {
              "each": {"type": "map", "items": ["a", "b"], "as": "id", "maxItems": 5,
                       "path": "read-device.json", "inputs": {"deviceID": "${vars.id}"}, "next": "done",
                       "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#
        #expect(diagnose(text).isEmpty, "\(diagnose(text))")
        let body = TimeBudget(workflow: try WorkflowEngine().load(path: Repository.workflow("read-device.json")))
        // read-device: one readBasicInformation, 10 s + 5 s of wind-down.
        #expect(body.worstUncancelledSeconds == 15)
        let budget = TimeBudget(workflow: try loadWorkflow(text))
        // Elements run one after another: five bodies at most.
        #expect(budget.worstUncancelledSeconds == 5 * 15)
        // A cancel during the last element adds the read's wind-down (5 s); without a cancel path the run ends there.
        #expect(
            budget.ends.map { "\(TimeBudget.label($0)) \($0.worstSeconds)" } == ["failed 75.0", "done 75.0", "cancelled (no cancel path) 80.0"])
    }

    @Test func aDeadlineIsCheckedAgainstTheMapsBound() {
        let text = #"""
            {"workflow": "w", "version": 1, "deadlineSeconds": 70, "start": "each", "states": {
              "each": {"type": "map", "items": ["a"], "as": "id", "maxItems": 5,
                       "path": "read-device.json", "inputs": {"deviceID": "${vars.id}"}, "next": "done",
                       "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#
        let found = diagnose(text)
        #expect(found.map(\.code) == ["deadlineNotMet"], "\(found)")
        #expect(found.first?.message.contains("can take up to 80 s, more than the deadline of 70 s") == true, "\(found)")
        #expect(diagnose(text.replacingOccurrences(of: #""maxItems": 5"#, with: #""maxItems": 4"#)).isEmpty)
    }

    @Test func aChoiceLoopIsStillRefusedAndTheFindingPointsToMap() {
        let text = #"""
            {"workflow": "w", "version": 1, "start": "read", "states": {
              "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "d"}, "next": "again",
                       "onError": [{"errors": ["*"], "next": "failed"}]},
              "again": {"type": "choice", "choices": [{"if": {"exists": "${run.id}"}, "next": "read"}], "default": "done"},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#
        let found = diagnose(text).filter { $0.code == "unboundedDuration" }
        #expect(found.count == 1)
        #expect(found.first?.message.contains("use a repeat state (its maxIterations bounds it)") == true, "\(found)")
    }

    /// A map over `body`, inside a session prepare.json opens and cancel.json releases on every path.
    static func inSession(body: String, input: String = "") -> String {
        #"""
        {"workflow": "w", "version": 1, "start": "prepare", "onCancel": "release", "states": {
          "prepare": {"type": "workflow", "path": "prepare.json", "result": "session", "next": "each",
                      "onError": [{"errors": ["*"], "next": "failed"}]},
          "each": {"type": "map", "items": ["a", "b"], "as": "id", "maxItems": 3, "tolerateFailures": 1,
                   "path": "\#(body)", "inputs": {\#(input)}, "next": "release",
                   "onError": [{"errors": ["*"], "next": "release"}]},
          "release": {"type": "workflow", "path": "cancel.json", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed"},
          "failed": {"type": "fail", "code": "unknown", "message": "failed"}
        }}
        """#
    }

    @Test func aBalancedBodyInsideTheSessionPasses() {
        let found = diagnose(Self.inSession(body: "read-device.json", input: #""deviceID": "${vars.id}""#))
        #expect(found.isEmpty, "\(found)")
    }

    @Test func aBodyThatReleasesTheSessionItWasStartedInIsAFinding() {
        let found = diagnose(Self.inSession(body: "cancel.json")).filter { $0.code == "unbalancedMapBody" }
        #expect(found.count == 1, "\(diagnose(Self.inSession(body: "cancel.json")))")
        #expect(found.first?.pointer == "/states/each/path")
        #expect(found.first?.message.contains("the body of map state \"each\" can release the commissioning session it was started in") == true, "\(found)")
        #expect(found.first?.message.contains("each -[start]-> each/cancel") == true, "\(found)")
    }

    @Test func aBodyThatOpensTheSessionWithoutReleasingItIsAFinding() {
        let text = #"""
            {"workflow": "w", "version": 1, "start": "each", "onCancel": "release", "states": {
              "each": {"type": "map", "items": ["a"], "as": "id", "maxItems": 2, "path": "prepare.json", "next": "release",
                       "onError": [{"errors": ["*"], "next": "release"}]},
              "release": {"type": "workflow", "path": "cancel.json", "next": "done", "onError": [{"errors": ["*"], "next": "done"}]},
              "done": {"type": "succeed"}
            }}
            """#
        let found = diagnose(text).filter { $0.code == "unbalancedMapBody" }
        #expect(found.count == 1, "\(diagnose(text))")
        #expect(found.first?.message.contains("can end holding a commissioning session it opened") == true, "\(found)")
        // The same body as a plain sub-workflow is fine: the session is released after it.
        let plain = text.replacingOccurrences(of: #""type": "map", "items": ["a"], "as": "id", "maxItems": 2,"#, with: #""type": "workflow","#)
        #expect(diagnose(plain).isEmpty, "\(diagnose(plain))")
    }

    @Test func aBodyThatOpensAndReleasesItsOwnSessionPasses() {
        let text = #"""
            {"workflow": "w", "version": 1, "start": "each", "states": {
              "each": {"type": "map", "items": ["a", "b"], "as": "payload", "maxItems": 2, "tolerateFailures": 2,
                       "path": "commission-device.json",
                       "inputs": {"onboardingPayload": "${vars.payload}", "deviceName": "Lamp"}, "next": "done"},
              "done": {"type": "succeed"}
            }}
            """#
        let found = diagnose(text)
        #expect(!found.contains { $0.code == "unbalancedMapBody" || $0.code == "sessionLeak" }, "\(found)")
    }
}
