import MatterFlowFixtures
import Testing

/// The numbers of a fixture: each has a documented range, reported with the field and the range when outside it.
@Suite struct FixtureNumberTests {
    @Test func outOfRangeNumbersAreLocatedErrors() {
        let text = InlineFixture.commissionDevice(
            #"""
            "faults": [
                { "operation": "fetchRooms", "delaySeconds": 1e300 },
                { "operation": "fetchRooms", "attempts": 0, "hang": true },
                { "operation": "fetchRooms", "attempts": "2-99999999", "hang": true }
              ],
              "events": [
                { "at": 1e300, "action": "cancelRun" },
                { "after": "fetchRooms", "attempt": 9223372036854775807, "action": "cancelRun" }
              ]
            """#)
        #expect(
            InlineFixture.findings(text) == [
                #"8:50: error[numberOutOfRange]: /faults/0/delaySeconds: 1e+300 is outside 0.001...86400 (seconds); use a value in that range"#,
                #"9:46: error[numberOutOfRange]: /faults/1/attempts: 0 is outside 1...1000000 (attempt number); use a value in that range"#,
                #"10:46: error[numberOutOfRange]: /faults/2/attempts: attempt 99999999 is outside 1...1000000 (attempt number); use a value in that range"#,
                #"13:13: error[numberOutOfRange]: /events/0/at: 1e+300 is outside 0.001...86400 (seconds); use a value in that range"#,
                #"14:41: error[numberOutOfRange]: /events/1/attempt: 9223372036854775807 is outside 1...1000000 (attempt number); use a value in that range"#,
            ])
    }

    @Test func numbersNoValueCanHoldAreReportedWithTheFilesOtherFindings() {
        let text = InlineFixture.commissionDevice(
            #"""
            "faults": [
                { "operation": "fetchRooms", "delaySeconds": 1e400 },
                { "operation": "fetchRooms", "attempts": 99999999999999999999, "hang": true },
                { "operation": "fetchRooms", "attempts": 0, "hnag": true }
              ]
            """#)
        let outcome = InlineFixture.load(text)
        #expect(outcome.fixture == nil)
        #expect(
            InlineFixture.findings(text) == [
                #"8:50: error[numberOutOfRange]: /faults/0/delaySeconds: 1e400 is beyond the largest number a file may hold (±1.8e308); write a smaller number"#,
                #"9:46: error[numberOutOfRange]: /faults/1/attempts: 99999999999999999999 is outside the range of a 64-bit integer (-9223372036854775808...9223372036854775807); write a number within it"#,
                #"10:5: error[missingKey]: /faults/2: a fault needs one of "fail" (an error), "hang" (true), "delaySeconds" (a number) or "failAfterActing" (an error)"#,
                #"10:46: error[numberOutOfRange]: /faults/2/attempts: 0 is outside 1...1000000 (attempt number); use a value in that range"#,
                #"10:49: error[unknownKey]: /faults/2/hnag: unknown key "hnag" (did you mean "hang"?)"#,
            ])
    }

    @Test func expectedCountsAndTimesAreRangeChecked() {
        let text = InlineFixture.commissionDevice(
            expect: #"{ "outcome": "succeeded", "elapsedSeconds": -1, "calls": { "fetchRooms": 1e300, "commissionDevice": { "atLeast": -2 } } }"#)
        let findings = InlineFixture.findings(text)
        #expect(findings.count == 3, "\(findings)")
        #expect(findings.allSatisfy { $0.contains("error[numberOutOfRange]") }, "\(findings)")
        #expect(findings.contains { $0.contains("/expect/calls/fetchRooms: 1e+300 is outside 0...1000000 (count)") }, "\(findings)")
    }
}
