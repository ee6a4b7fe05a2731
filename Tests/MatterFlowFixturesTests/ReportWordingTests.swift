import Foundation
import MatterFlow
import MatterFlowFixtures
import MatterFlowSimulator
import Testing

/// What a fixture's report says when a run differs from it: strings compared as a device receives them, mismatches
/// worded so that they read, and no secret of the run in any spelling.
@Suite struct ReportWordingTests {
    static let composed = "Caf\u{E9}"
    static let decomposed = "Cafe\u{301}"

    func commission(name: String, expect: String, _ members: String = "") async throws -> FixtureResult {
        let text = InlineFixture.commissionDevice(expect: expect, members).replacingOccurrences(of: #""deviceName": "Lamp""#, with: #""deviceName": "\#(name)""#)
        return try await InlineFixture.run(text)
    }

    @Test("a string expectation matches byte for byte: é composed is not e with a combining accent, and the mismatch names both spellings")
    func stringsMatchByteForByte() async throws {
        let same = try await commission(name: Self.composed, expect: #"{ "outcome": "succeeded", "output": { "name": "\#(Self.composed)" } }"#)
        #expect(same.passed, "\(same.mismatches)")
        let other = try await commission(name: Self.composed, expect: #"{ "outcome": "succeeded", "output": { "name": "\#(Self.decomposed)" } }"#)
        #expect(other.subjects == ["output.name"], "\(other.mismatches)")
        let mismatch = try #require(other.mismatches.first)
        #expect(mismatch.expected.hasSuffix("(U+0301)"), "\(mismatch.expected)")
        #expect(mismatch.actual.hasSuffix("(U+00E9: the same characters in other bytes, composed or decomposed)"), "\(mismatch.actual)")
        // So is a device's name in the home after the run.
        let device = try await commission(
            name: Self.composed, expect: #"{ "outcome": "succeeded", "hub": { "newDevices": [{ "name": "\#(Self.decomposed)" }] } }"#)
        #expect(device.subjects == ["hub.newDevices"], "\(device.mismatches)")
        #expect(
            device.mismatches.first?.details.last?.hasPrefix("the name expected and device-") == true
                && device.mismatches.first?.details.last?.hasSuffix(" are the same characters in other bytes, composed or decomposed (U+0301 expected, U+00E9 here)") == true,
            "\(device.mismatches)")
    }

    @Test("a secret output that differs only in composition says so, without naming the secret's characters")
    func secretSpellingsAreNotNamed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mf-secret-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let workflow = directory + "/echo.json"
        try #"{"workflow": "echo", "version": 1, "start": "done", "inputs": {"pw": {"type": "string", "required": true, "secret": true}}, "states": {"done": {"type": "succeed", "output": {"pw": "${input.pw}"}}}}"#
            .write(toFile: workflow, atomically: true, encoding: .utf8)
        let fixture = #"{"fixture": "f", "version": 1, "workflow": "\#(workflow)", "inputs": {"pw": "p\#(Self.composed)-word"}, "expect": {"outcome": "succeeded", "output": {"pw": "p\#(Self.decomposed)-word"}}}"#
        let result = try await InlineFixture.run(fixture)
        let mismatch = try #require(result.mismatches.first, "composed is not decomposed")
        #expect(mismatch.expected == #""<redacted>""#, "\(mismatch.expected)")
        #expect(mismatch.actual == #""<redacted>" (the same characters in other bytes, composed or decomposed)"#, "\(mismatch.actual)")
    }

    @Test("an event that never came says how often its operation was called; a fault on later calls and a state not visited after another read as sentences")
    func mismatchesRead() async throws {
        let result = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect: #"{ "outcome": "succeeded", "pathIncludes": ["configure", "rooms"] }"#,
                #""faults": [{ "operation": "commissionDevice", "attempts": "2-", "fail": { "cause": "deviceUnreachable" } }], "events": [{ "after": "commissionDevice", "attempt": 2, "action": "hubOffline" }]"#))
        let byKind = Dictionary(uniqueKeysWithValues: result.mismatches.map { ($0.subject, $0) })
        #expect(byKind["pathIncludes"]?.actual == "rooms not visited after configure (only before it)", "\(result.mismatches)")
        #expect(byKind["faults[0]"]?.expected == "a fault on calls 2 and later of commissionDevice", "\(result.mismatches)")
        let event = try #require(byKind["events[0]"], "\(result.mismatches)")
        #expect(event.actual.hasPrefix("it never happened (commissionDevice was called once; the run ended at "), "\(event.actual)")
    }

    @Test("a fixture's expectation holding the run's payload in another spelling (its manual code) is reported redacted")
    func expectationsHoldNoSecret() async throws {
        let result = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect: #"{ "outcome": "succeeded", "calls": { "commissionDevice": { "arguments": { "onboardingPayload": "3497-011-2332" } } } }"#))
        let mismatch = try #require(result.mismatches.first, "the argument is shown redacted, so it differs")
        for text in [mismatch.expected, mismatch.actual] + mismatch.details {
            #expect(!text.contains("3497") && !text.contains("2332"), "\(text)")
        }
    }

    @Test("a state unknown to a workflow without sub-workflows lists its states, without advice about qualified names")
    func unknownStateOfAFlatWorkflow() throws {
        let findings = InlineFixture.findings(
            #"{ "fixture": "f", "version": 1, "workflow": "../../rooms.json", "home": "../homes/ready.json", "expect": { "path": ["lsit"] } }"#)
        let finding = try #require(findings.first { $0.contains("unknownState") }, "\(findings)")
        #expect(finding.contains("; its states: fetch, fetchedRooms, noRooms, emptyRooms"), "\(findings)")
        #expect(!finding.contains("qualified by sub-workflow states"), "\(findings)")
    }

    @Test("an event's attempt may be written as a fault's attempts may: \"2\" is call 2; a range is refused, saying ranges are for faults")
    func eventAttemptAsText() throws {
        let fixture = try InlineFixture.valid(
            InlineFixture.commissionDevice(#""events": [{ "after": "commissionDevice", "attempt": "2", "action": "hubOffline" }]"#))
        #expect(fixture.events.first?.trigger == .after(.commissionDevice, attempt: 2))
        let findings = InlineFixture.findings(
            InlineFixture.commissionDevice(#""events": [{ "after": "commissionDevice", "attempt": "2-3", "action": "hubOffline" }]"#))
        #expect(findings.contains { $0.contains(#"error[invalidValue]: /events/0/attempt: "attempt" must be one call's number from 1 (2 or "2"); an event happens once"#) }, "\(findings)")
    }
}
