import MatterFlowFixtures
import Testing

/// A fixture passes only when its scenario took place: each fault changed a call, each mock's state was entered,
/// each answer was asked for and taken (or refused, when the fixture says so), each cancel had an effect.
@Suite struct ScenarioTakesPlaceTests {
    static func interactive(answers: String, expect: String = #"{ "outcome": "succeeded" }"#, home: String = "ready") -> String {
        """
        {
          "fixture": "interactive", "version": 1, "workflow": "../../commission-device-interactive.json",
          "inputs": { "onboardingPayload": "MT:Y.K9042C00KA0648G00" }, "home": "../homes/\(home).json",
          "answers": \(answers),
          "expect": \(expect)
        }
        """
    }

    @Test("a fault that changes no call fails the fixture, at its place in faults")
    func aFaultThatNeverAppliesIsAMismatch() async throws {
        let result = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                """
                "faults": [{ "operation": "commissionDevice", "attempts": 5, "fail": { "cause": "commissioningFailed" } },
                    { "operation": "fetchRooms", "delaySeconds": 1 },
                    { "operation": "readThreadCapabilities", "hang": true },
                    { "operation": "configureDevice", "fail": { "cause": "hubFailure" } },
                    { "operation": "configureDevice", "fail": { "cause": "deviceUnreachable" } }]
                """))
        // The delay applies; the first configure failure ends the call before the second is looked at (and the
        // workflow goes on without configuring).
        #expect(result.subjects == ["faults[0]", "faults[2]", "faults[4]"], "\(result.mismatches)")
        let first = try #require(result.mismatches.first { $0.subject == "faults[0]" })
        #expect(first.expected == "a fault on call 5 of commissionDevice")
        #expect(first.actual.hasPrefix("no call it names was made (commissionDevice was called once)"))
        #expect(first.pointer == "/faults/0")
        #expect(result.mismatches.first { $0.subject == "faults[2]" }?.actual.contains("was called never") == true)
    }

    @Test("an answer to a question never asked fails the fixture")
    func anAnswerNeverAskedIsAMismatch() async throws {
        // With no rooms in the home, only the name is asked.
        let result = try await InlineFixture.run(
            Self.interactive(answers: #"{ "room": { "answer": "Hall" }, "name": { "answer": "Lamp" } }"#, home: "no-rooms"))
        #expect(result.subjects == ["answers[room]"], "\(result.mismatches)")
        #expect(result.mismatches.first?.actual.hasPrefix("it never was") == true)
        #expect(result.mismatches.first?.pointer == "/answers/room")
    }

    @Test("a refused answer fails the fixture, unless it is written as rejectedAnswer")
    func aRefusedAnswerIsAMismatchUnlessExpected() async throws {
        let timedOut = #"{ "outcome": "failed", "error": { "cause": "questionUnanswered" } }"#
        let refused = try await InlineFixture.run(Self.interactive(answers: #"{ "room": { "answer": "Garage" } }"#, expect: timedOut))
        #expect(refused.subjects == ["answers[room]"], "\(refused.mismatches)")
        #expect(refused.mismatches.first?.actual.hasPrefix("the question refused it:") == true)
        let expected = try await InlineFixture.run(Self.interactive(answers: #"{ "room": { "rejectedAnswer": "Garage" } }"#, expect: timedOut))
        #expect(expected.passed, "\(expected.subjects)")
        let taken = try await InlineFixture.run(
            Self.interactive(answers: #"{ "room": { "rejectedAnswer": "Hall" }, "name": { "answer": "Lamp" } }"#))
        #expect(taken.subjects == ["answers[room]"], "\(taken.mismatches)")
        #expect(taken.mismatches.first?.actual == "the question took it")
    }

    @Test("a cancel that comes too late to change the run fails the fixture")
    func aCancelWithNoEffectIsAMismatch() async throws {
        let late = try await InlineFixture.run(
            InlineFixture.commissionDevice(#""events": [{ "entering": "done", "action": "cancelRun" }]"#))
        #expect(late.subjects == ["events[0]"], "\(late.mismatches)")
        #expect(late.mismatches.first?.actual.hasPrefix("it changed nothing: the run ended succeeded") == true)
        let inTime = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect: #"{ "outcome": "cancelled" }"#, #""events": [{ "entering": "configure", "action": "cancelRun" }]"#))
        #expect(inTime.passed, "\(inTime.mismatches)")
    }

    @Test("callsInOrder checks the run's calls by operation, in order, with others between; an unknown operation is refused")
    func callsInOrder() async throws {
        let failing = #""faults": [{ "operation": "commissionDevice", "fail": { "cause": "commissioningFailed" } }]"#
        let inOrder = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect: #"{ "outcome": "failed", "callsInOrder": ["prepareCommissioning", "commissionDevice", "cancelCommissioning"] }"#,
                failing))
        #expect(inOrder.passed, "\(inOrder.mismatches)")
        let reversed = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect: #"{ "outcome": "failed", "callsInOrder": ["cancelCommissioning", "commissionDevice"] }"#, failing))
        #expect(reversed.subjects == ["callsInOrder"], "\(reversed.mismatches)")
        #expect(reversed.mismatches.first?.expected == "a call of commissionDevice after cancelCommissioning")
        #expect(reversed.mismatches.first?.pointer == "/expect/callsInOrder")
        let findings = InlineFixture.findings(
            InlineFixture.commissionDevice(expect: #"{ "outcome": "succeeded", "callsInOrder": ["comissionDevice"] }"#))
        #expect(findings.first?.contains(#"/expect/callsInOrder/0: unknown operation "comissionDevice" (did you mean"#) == true, "\(findings)")
    }

    @Test("a state inside a mocked one is named as such, not as a state the workflow lacks")
    func aStateInsideAMockIsExplained() {
        let findings = InlineFixture.findings(
            InlineFixture.commissionDevice(
                expect: #"{ "outcome": "succeeded", "pathExcludes": ["rooms/fetch"], "pathIncludes": ["rooms/mocked"] }"#,
                #""mocks": [{ "state": "rooms", "output": { "rooms": [] } }]"#))
        #expect(findings.count == 1, "\(findings)")
        #expect(findings.first?.contains(#"/expect/pathExcludes/0: state "rooms/fetch" is inside "rooms", which a mock of this fixture replaces"#) == true, "\(findings)")
    }

    @Test("a state mocked twice, or inside a mocked state, is refused at load")
    func overlappingMocksAreRefused() {
        let findings = InlineFixture.findings(
            InlineFixture.commissionDevice(
                """
                "mocks": [{ "state": "rooms", "output": { "rooms": [] } }, { "state": "rooms", "fail": { "cause": "hubFailure" } },
                    { "state": "commission", "output": {} }, { "state": "commission/commission", "output": {} }]
                """))
        #expect(findings.count == 2, "\(findings)")
        #expect(findings.first?.contains(#"/mocks/1/state: state "rooms" is mocked already (mocks[0])"#) == true, "\(findings)")
        #expect(findings.last?.contains(#"/mocks/3/state: "#) == true, "\(findings)")
    }
}
