import MatterFlow
import MatterFlowJSON
import Testing

/// Every number of a workflow is checked against its documented range when the file is loaded, and what is
/// computed from numbers (delays, durations, budget text) cannot trap.
@Suite struct WorkflowNumberTests {
    static func action(_ members: String) -> String {
        LoaderDiagnosticTests.workflow(
            states: #"{"a": {"type": "action", "operation": "fetchRooms", \#(members), "next": "done"}, "done": {"type": "succeed"}}"#)
    }

    static func retry(_ members: String) -> String {
        action(#""retry": [{"errors": ["unavailable"], \#(members)}]"#)
    }

    static func wait(_ timeout: String) -> String {
        LoaderDiagnosticTests.workflow(states: #"""
            {"a": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": \#(timeout),
                   "on": {}, "otherwise": "done", "onTimeout": "done"},
             "done": {"type": "succeed"}}
            """#)
    }

    @Test(arguments: [
        (action(#""timeoutSeconds": 1e18"#), "/states/a/timeoutSeconds", "1e+18 is outside 0.001...86400 (seconds)"),
        (action(#""timeoutSeconds": 1e308"#), "/states/a/timeoutSeconds", "1e+308 is outside 0.001...86400 (seconds)"),
        (action(#""timeoutSeconds": 1e-300"#), "/states/a/timeoutSeconds", "1e-300 is outside 0.001...86400 (seconds)"),
        (action(#""timeoutSeconds": 0"#), "/states/a/timeoutSeconds", "0 is outside 0.001...86400 (seconds)"),
        (retry(#""maxRetries": 10000000"#), "/states/a/retry/0/maxRetries", "10000000 is outside 0...100 (retries)"),
        (retry(#""maxRetries": 9223372036854775807"#), "/states/a/retry/0/maxRetries", "9223372036854775807 is outside 0...100 (retries)"),
        (retry(#""maxRetries": -1"#), "/states/a/retry/0/maxRetries", "-1 is outside 0...100 (retries)"),
        (retry(#""intervalSeconds": 1e300"#), "/states/a/retry/0/intervalSeconds", "1e+300 is outside 0.001...86400 (seconds)"),
        (retry(#""backoffRate": 1e300"#), "/states/a/retry/0/backoffRate", "1e+300 is outside 1...10 (factor)"),
        (retry(#""backoffRate": 0.5"#), "/states/a/retry/0/backoffRate", "0.5 is outside 1...10 (factor)"),
        (retry(#""maxDelaySeconds": 1e300"#), "/states/a/retry/0/maxDelaySeconds", "1e+300 is outside 0.001...86400 (seconds)"),
        (wait("1e300"), "/states/a/timeoutSeconds", "1e+300 is outside 0.001...86400 (seconds)"),
        (LoaderDiagnosticTests.workflow(states: #"{"a": {"type": "succeed"}}"#, extra: #""deadlineSeconds": 1e18,"#),
         "/deadlineSeconds", "1e+18 is outside 0.001...86400 (seconds)"),
    ])
    func outOfRangeIsALocatedError(text: String, pointer: String, message: String) throws {
        let findings = diagnose(text).filter { $0.severity == .error }
        let finding = try #require(findings.first, "\(findings)")
        #expect(findings.count == 1, "\(findings)")
        #expect(finding.code == DiagnosticCode.numberOutOfRange)
        #expect(finding.pointer == pointer)
        #expect(finding.location != nil)
        #expect(finding.message.hasPrefix(message), "\(finding.message)")
    }

    @Test func theLimitsThemselvesAreAccepted() {
        let text = LoaderDiagnosticTests.workflow(
            states: #"""
                {"a": {"type": "action", "operation": "fetchRooms", "timeoutSeconds": 86400, "next": "done",
                       "retry": [{"errors": ["unavailable"], "maxRetries": 100, "intervalSeconds": 0.001, "backoffRate": 10,
                                  "maxDelaySeconds": 86400}]},
                 "done": {"type": "succeed"}}
                """#)
        #expect(diagnose(text).filter { $0.severity == .error }.isEmpty, "\(diagnose(text))")
    }

    @Test func aWaitWithAnOutOfRangeTimeoutIsOneFinding() {
        // The state is kept, so no finding follows from it missing (a transition to it, an unreachable state).
        let findings = diagnose(Self.wait("-5")).filter { $0.severity == .error }
        #expect(findings.map(\.code) == [DiagnosticCode.numberOutOfRange])
    }

    @Test func aRetryDelayIsCappedAtADayWhateverTheRetry() {
        let retrier = Retrier(errors: ["*"], maxRetries: 100, intervalSeconds: 86_400, backoffRate: 10)
        #expect(retrier.delay(beforeRetry: 1) == 86_400)
        #expect(retrier.delay(beforeRetry: 100) == 86_400)
        // Far beyond any loaded maxRetries, still answered at once.
        #expect(retrier.delay(beforeRetry: .max) == 86_400)
        let gentle = Retrier(errors: ["*"], maxRetries: 5, intervalSeconds: 1, backoffRate: 2, maxDelaySeconds: 5)
        #expect((1...5).map { gentle.delay(beforeRetry: $0) } == [1, 2, 4, 5, 5])
        let flat = Retrier(errors: ["*"], intervalSeconds: 3, backoffRate: 1)
        #expect(flat.delay(beforeRetry: .max) == 3)
    }

    @Test func aDurationFromAnySecondsNeverTraps() {
        #expect(Duration.seconds(rounding: 1.5) == .milliseconds(1500))
        #expect(Duration.seconds(rounding: 1e300) == .milliseconds(Int64.max))
        #expect(Duration.seconds(rounding: .infinity) == .milliseconds(Int64.max))
        #expect(Duration.seconds(rounding: .nan) == .zero)
        #expect(Duration.seconds(rounding: -1e300) == .zero)
    }

    @Test func budgetTextBeyondAnIntIsWrittenWithAnExponent() {
        #expect(TimeBudget.format(1e27) == "1e+27 s")
        #expect(TimeBudget.format(9.3e18) == "9.3e+18 s")
        #expect(TimeBudget.format(837) == "837 s (13 min 57 s)")
        // Whole numbers up to 2^53 are written out, with minutes, and hours and days from an hour on (units that are
        // zero left out); beyond it, in Swift's exponent form without them.
        #expect(TimeBudget.format(2e15) == "2000000000000000 s (23148148148 d 3 h 33 min 20 s)")
        #expect(TimeBudget.format(8641621) == "8641621 s (100 d 27 min 1 s)")
        #expect(TimeBudget.format(3600) == "3600 s (1 h)")
        #expect(TimeBudget.format(3599) == "3599 s (59 min 59 s)")
        #expect(TimeBudget.format(0x1p53 + 2) == "9.007199254740994e+15 s")
        // A finite budget is never written as infinite, however large.
        #expect(TimeBudget.format(1e306) == "1e+306 s")
    }
}
