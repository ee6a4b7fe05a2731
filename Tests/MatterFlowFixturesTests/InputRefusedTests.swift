import MatterFlowFixtures
import Testing

/// `expect.inputRefused`: a fixture can check that the workflow refuses its inputs before any run starts.
@Suite struct InputRefusedTests {
    static func fixture(payload: String, expect: String, _ members: String = "") -> String {
        InlineFixture.commissionDevice(expect: expect, members, payload: payload)
    }

    @Test("a refusal that matches passes without a run; one that does not is a mismatch at inputRefused")
    func checked() async throws {
        let mistyped = try await InlineFixture.run(
            Self.fixture(
                payload: "34970112331",
                expect: #"{ "inputRefused": { "input": "onboardingPayload", "code": "invalidValue", "messageContains": "check digit" } }"#))
        #expect(mistyped.passed, "\(mistyped.mismatches)")
        #expect(mistyped.observation == nil, "no run started")
        let accepted = try await InlineFixture.run(Self.fixture(payload: "34970112332", expect: #"{ "inputRefused": { "input": "onboardingPayload" } }"#))
        #expect(!accepted.passed)
        #expect(accepted.mismatches.map { "\($0.subject): \($0.expected) / \($0.actual)" } == [
            #"inputRefused: input "onboardingPayload" refused / the inputs accepted"#
        ])
        #expect(accepted.mismatches.first?.pointer == "/expect/inputRefused")
        let otherReason = try await InlineFixture.run(
            Self.fixture(payload: "34970112331", expect: #"{ "inputRefused": { "messageContains": "padding bits" } }"#))
        #expect(otherReason.mismatches.first?.actual == "the inputs refused for other reasons")
        #expect(otherReason.mismatches.first?.details.first?.hasPrefix("onboardingPayload: invalidValue: input \"onboardingPayload\" is not a valid") == true,
                "\(otherReason.mismatches)")
    }

    @Test("with inputRefused, other expectations and the scenario are refused at load, as is an input the workflow lacks")
    func nothingElseWithARefusal() {
        let findings = InlineFixture.findings(
            Self.fixture(
                payload: "34970112331",
                expect: #"{ "outcome": "failed", "inputRefused": { "input": "payload" }, "calls": { "commissionDevice": 0 } }"#,
                #""faults": [{ "operation": "commissionDevice", "fail": { "cause": "hubFailure" } }]"#))
        #expect(findings.count == 4, "\(findings)")
        #expect(findings.contains { $0.contains(#"/faults: no run starts when the inputs are refused"#) }, "\(findings)")
        #expect(findings.contains { $0.contains(#"/expect/outcome: no run starts when the inputs are refused, so "outcome" cannot be checked"#) }, "\(findings)")
        #expect(findings.contains { $0.contains(#"/expect/calls: no run starts"#) }, "\(findings)")
        #expect(findings.contains { $0.contains(#"/expect/inputRefused/input: the workflow has no input "payload"; it declares "onboardingPayload""#) }, "\(findings)")
        // Without inputRefused, refused inputs make the fixture invalid, and outcome is required.
        let unexpected = InlineFixture.findings(Self.fixture(payload: "34970112331", expect: #"{ "outcome": "succeeded" }"#))
        #expect(unexpected.first?.contains("/inputs/onboardingPayload") == true, "\(unexpected)")
        let noOutcome = InlineFixture.findings(Self.fixture(payload: "34970112332", expect: "{}"))
        #expect(noOutcome.first?.contains(#"missing required key "outcome""#) == true, "\(noOutcome)")
    }
}
