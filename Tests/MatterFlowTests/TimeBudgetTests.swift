import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// Worst-case durations, computed by hand for small workflows.
@Suite struct TimeBudgetTests {
    /// A guarded action with retries, a wait, and a sub-workflow on both the timeout path and the cancel path.
    static let workflow = #"""
        {"workflow": "t", "version": 1, "start": "fetch", "onCancel": "release", "states": {
          "fetch": {"type": "action", "operation": "fetchRooms", "timeoutSeconds": 4, "guards": ["hubReachable"],
                    "retry": [{"errors": ["hubOffline"], "maxRetries": 0},
                              {"errors": ["unavailable", "deadlineExceeded"], "maxRetries": 2, "intervalSeconds": 1, "backoffRate": 3, "maxDelaySeconds": 2}],
                    "next": "wait", "onError": [{"errors": ["*"], "next": "failed"}]},
          "wait": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 30, "on": {}, "otherwise": "done", "onTimeout": "release"},
          "release": {"type": "workflow", "path": "cancel.json", "next": "failed", "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed"},
          "failed": {"type": "fail", "code": "unknown", "message": "failed"}
        }}
        """#

    @Test func theBoundOfEachEndMatchesTheHandComputation() throws {
        let budget = TimeBudget(workflow: try loadWorkflow(Self.workflow))
        // fetch: 3 attempts (1 + 2 retries of the live retrier; hubOffline's 0 adds none), each 15 s for the guard
        // (10 s status timeout + 5 s wind-down) and 4 s + 5 s for the call; delays 1 s and min(3, 2) = 2 s.
        let fetch = 3.0 * (15 + 4 + 5) + 1 + 2
        #expect(fetch == 75)
        // cancel.json: one cancelCommissioning call, 30 s + 5 s.
        let release = 35.0
        let ends = budget.ends.map { "\(TimeBudget.label($0)) \($0.worstSeconds)" }
        #expect(ends == [
            "failed \(fetch + 30 + release)",
            "done \(fetch + 30)",
            // Cancelled while cancel.json runs on the timeout path: its call winds down (5 s, and cancel.json has
            // no cancel path of its own), then the cancel path runs cancel.json again.
            "failed (cancelled run) \(fetch + 30 + release + 5 + release)",
        ])
        #expect(budget.ends.last?.path == ["fetch", "wait", "release", "release", "failed"])
        #expect(budget.worstSeconds == 180)
        #expect(budget.worstUncancelledSeconds == 140)
    }

    @Test func theTextNamesEveryEnd() throws {
        let budget = TimeBudget(workflow: try loadWorkflow(Self.workflow))
        #expect(budget.text == """
            t: worst-case duration to each end
              failed                  140 s (2 min 20 s)
              done                    105 s
              failed (cancelled run)  180 s (3 min 0 s)
            """)
    }

    @Test func aDeadlineEveryPathMustMeet() throws {
        let late = Self.workflow.replacingOccurrences(of: #""start": "fetch","#, with: #""start": "fetch", "deadlineSeconds": 150,"#)
        let findings = diagnose(late)
        #expect(findings.map(\.code) == ["deadlineNotMet"], "\(findings)")
        #expect(findings.first?.message.hasPrefix(
            "a run ending failed (cancelled run) can take up to 180 s (3 min 0 s), more than the deadline of 150 s (2 min 30 s);") == true)
        #expect(findings.first?.message.contains("path: fetch -> wait -> release -> release -> failed") == true)
        // Every late end is named in the message itself (`validate --budget` shows no budget for an invalid workflow).
        let veryLate = Self.workflow.replacingOccurrences(of: #""start": "fetch","#, with: #""start": "fetch", "deadlineSeconds": 100,"#)
        #expect(diagnose(veryLate).first?.message.contains(
            "more than the deadline of 100 s (3 ends can be late; the others: failed 140 s (2 min 20 s), done 105 s); path:") == true,
            "\(diagnose(veryLate))")
        let met = Self.workflow.replacingOccurrences(of: #""start": "fetch","#, with: #""start": "fetch", "deadlineSeconds": 180,"#)
        #expect(diagnose(met).isEmpty)
        #expect(TimeBudget(workflow: try loadWorkflow(met)).text.hasSuffix("deadline 180 s (3 min 0 s): met (worst 180 s (3 min 0 s))"))
    }

    @Test func theShippedEndToEndFlowIsBounded() throws {
        let budget = TimeBudget(workflow: try WorkflowEngine().load(path: Repository.workflow("commission-device.json")))
        #expect(budget.loop == nil)
        // prepare.json: 3 attempts of 3 guards (45 s) and a 30 s call (35 s), with 2 s and 4 s between them.
        let failed = try #require(budget.ends.first { $0.state == "failed" && !$0.afterCancel })
        #expect(abs(failed.worstSeconds - Double(3 * (45 + 35) + 2 + 4)) < 1e-9, "\(failed)")
        #expect(budget.worstSeconds.isFinite)
    }

    @Test func aLoopIsUnbounded() throws {
        let findings = diagnose(#"""
            {"workflow": "t", "version": 1, "start": "fetch", "states": {
              "fetch": {"type": "action", "operation": "fetchRooms", "next": "done", "onError": [{"errors": ["*"], "next": "again"}]},
              "again": {"type": "assign", "warning": "again", "next": "fetch"},
              "done": {"type": "succeed"}
            }}
            """#)
        #expect(findings.map(\.code) == ["unboundedDuration"])
        #expect(findings.first?.pointer == "/states/fetch")
        #expect(findings.first?.message.hasPrefix("a run can loop fetch -> again -> fetch any number of times") == true)
    }
}
