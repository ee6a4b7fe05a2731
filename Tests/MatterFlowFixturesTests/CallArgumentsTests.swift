import MatterFlowFixtures
import Testing

/// `calls.OPERATION.arguments`: what a fixture's run passed to the hub, for every call of an operation or for each
/// call in order; a secret argument is seen redacted.
@Suite struct CallArgumentsTests {
    func run(_ expect: String, _ members: String = "", sourceLocation: Testing.SourceLocation = #_sourceLocation) async throws -> FixtureResult {
        await FixtureRunner().run(
            try InlineFixture.valid(InlineFixture.commissionDevice(expect: expect, members), sourceLocation: sourceLocation))
    }

    static let unreachableTwice = #""faults": [{ "operation": "commissionDevice", "attempts": "1-2", "fail": { "cause": "deviceUnreachable" } }]"#

    @Test("arguments every call had: met, and each member that differs reported once, at its place")
    func everyCall() async throws {
        let met = try await run(
            #"{ "outcome": "succeeded", "calls": { "configureDevice": { "count": 1, "arguments": { "name": "Lamp", "room": "Kitchen" } },"#
                + #" "commissionDevice": { "count": 3, "arguments": { "onboardingPayload": "<redacted>" } } } }"#,
            Self.unreachableTwice)
        #expect(met.passed, "\(met.mismatches)")
        let differs = try await run(
            #"{ "outcome": "succeeded", "calls": { "configureDevice": { "arguments": { "name": "Desk lamp", "floor": 2 } },"#
                + #" "commissionDevice": { "arguments": { "onboardingPayload": "MT:Y.K9042C00KA0648G00" } } } }"#,
            Self.unreachableTwice)
        #expect(
            differs.subjects == [
                "calls.commissionDevice.arguments.onboardingPayload", "calls.configureDevice.arguments.name",
                "calls.configureDevice.arguments.floor",
            ], "\(differs.mismatches)")
        let payload = try #require(differs.mismatches.first)
        #expect(payload.actual == #""<redacted>" (call 1)"#, "the payload is never shown, and reported once for three calls")
        #expect(payload.pointer == "/expect/calls/commissionDevice/arguments/onboardingPayload")
        #expect(payload.details.count == 3)
        #expect(differs.mismatches[1].expected == #""Desk lamp""#)
        #expect(differs.mismatches[2].actual == "no such member (call 1)")
        let never = try await run(#"{ "outcome": "succeeded", "calls": { "cancelCommissioning": { "arguments": {} } } }"#)
        #expect(never.subjects == ["calls.cancelCommissioning.arguments"], "\(never.mismatches)")
        #expect(never.mismatches.first?.actual == "no call")
    }

    @Test("arguments of each call, in order: one entry per call")
    func eachCall() async throws {
        let failing = #""faults": [{ "operation": "commissionDevice", "fail": { "cause": "commissioningFailed" } }]"#
        let met = try await run(
            #"{ "outcome": "failed", "calls": { "createAddDeviceRequest": { "arguments": [{ "ecosystemName": "Google Home" }] },"#
                + #" "cancelCommissioning": { "arguments": [{}, {}] } } }"#,
            failing)
        #expect(met.passed, "\(met.mismatches)")
        let fewer = try await run(#"{ "outcome": "failed", "calls": { "cancelCommissioning": { "arguments": [{}] } } }"#, failing)
        #expect(fewer.subjects == ["calls.cancelCommissioning.arguments"], "\(fewer.mismatches)")
        #expect(fewer.mismatches.first.map { ($0.expected, $0.actual) } ?? ("", "") == ("1 call", "2"))
        let second = try await run(
            #"{ "outcome": "succeeded", "calls": { "commissionDevice": { "arguments": [{}, { "commissioningID": "x" }, {}] } } }"#,
            Self.unreachableTwice)
        #expect(second.subjects == ["calls.commissionDevice.arguments[1].commissioningID"], "\(second.mismatches)")
        #expect(second.mismatches.first?.pointer == "/expect/calls/commissionDevice/arguments/1/commissioningID")
    }

    @Test("arguments that are not objects, or a count the entries contradict, are refused at load")
    func refusedAtLoad() {
        let findings = InlineFixture.findings(
            InlineFixture.commissionDevice(
                expect: #"{ "outcome": "succeeded", "calls": { "configureDevice": { "arguments": "Lamp" },"#
                    + #" "fetchRooms": { "arguments": [{}, 3] }, "commissionDevice": { "count": 1, "arguments": [{}, {}] } } }"#))
        #expect(findings.count == 3, "\(findings)")
        #expect(findings.contains { $0.contains(#"/expect/calls/configureDevice/arguments: "arguments" is an object"#) }, "\(findings)")
        #expect(findings.contains { $0.contains("/expect/calls/fetchRooms/arguments/1: each entry of \"arguments\" is the arguments of one call") }, "\(findings)")
        #expect(findings.contains { $0.contains("no run can make these commissionDevice calls: 1 in all, but arguments for 2") }, "\(findings)")
    }
}
