import Foundation
import MatterFlow
import MatterFlowFixtures
import MatterFlowJSON
import MatterFlowSimulator
import Testing

/// What the runner does with faults, events, mocks and expectations, on virtual time.
@Suite struct FixtureRunnerTests {
    @Test func aPassingFixtureHasNoMismatches() async throws {
        let result = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect:
                    #"{ "outcome": "succeeded", "output": { "room": "Kitchen" }, "hub": { "activeSession": null } }"#))
        #expect(result.passed, "\(result.mismatches)")
        #expect(result.observation?.result.visitedStates.last == "done")
    }

    @Test("a mismatch on the hub's devices reports a device whose name holds the run's secret redacted, also in --json")
    func hubMismatchesAreRedacted() async throws {
        // The payload's passcode is 20202021; a device is named after it.
        let text = InlineFixture.commissionDevice(expect: #"{ "outcome": "succeeded", "hub": { "newDevices": [{ "name": "Nope" }] } }"#)
            .replacingOccurrences(of: #""deviceName": "Lamp""#, with: #""deviceName": "Lamp 20202021""#)
        let result = try await InlineFixture.run(text)
        #expect(result.subjects == ["hub.newDevices"])
        let report = result.mismatches.map(\.description).joined(separator: "\n") + JSONWriter.compact(result.jsonValue)
        #expect(!report.contains("20202021"), "\(report)")
        #expect(result.mismatches.first?.details.first?.contains(#""Lamp \#(RunOptions.redacted)", in Kitchen"#) == true, "\(report)")
    }

    @Test func everyKindOfExpectationReportsWhatDiffered() async throws {
        let result = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect: """
                    {
                      "outcome": "failed",
                      "error": { "code": "unavailable" },
                      "path": ["prepare", "prepare/prepare", "prepare/failed", "failed"],
                      "pathIncludes": ["rooms", "prepare"],
                      "pathExcludes": ["done"],
                      "calls": { "cancelCommissioning": 1, "commissionDevice": { "atLeast": 2 } },
                      "output": { "room": "Hall", "roomsOffered": ["Kitchen"] },
                      "warnings": ["something"],
                      "hub": { "activeSession": { "phase": "requested" }, "online": false, "newDevices": [] },
                      "elapsedSeconds": 5
                    }
                    """))
        #expect(!result.passed)
        #expect(
            result.subjects == [
                "outcome", "error", "path", "pathIncludes", "pathExcludes", "calls.commissionDevice",
                "calls.cancelCommissioning",
                "output.room", "output.roomsOffered", "warnings", "hub.activeSession", "hub.online", "hub.newDevices",
                "elapsedSeconds",
            ])
        // Each names where its expectation was written.
        #expect(
            result.mismatches.map(\.pointer) == [
                "/expect/outcome", "/expect/error", "/expect/path", "/expect/pathIncludes", "/expect/pathExcludes",
                "/expect/calls/commissionDevice", "/expect/calls/cancelCommissioning", "/expect/output/room",
                "/expect/output/roomsOffered", "/expect/warnings", "/expect/hub/activeSession", "/expect/hub/online",
                "/expect/hub/newDevices", "/expect/elapsedSeconds",
            ])
        #expect(result.mismatches.allSatisfy { $0.location != nil })
        #expect(result.mismatches.first?.location?.column == 14, "the value of \"outcome\"")
        let path = try #require(result.mismatches.first { $0.subject == "path" })
        #expect(path.expected == "#3 prepare/failed")
        #expect(path.actual == "#3 prepare/prepared")
        #expect(path.details.last?.hasPrefix("actual (19):") == true)
        let device = try #require(result.mismatches.first { $0.subject == "hub.newDevices" })
        #expect(device.expected == "none")
        #expect(device.details.first?.contains(#""Lamp", in Kitchen"#) == true)
    }

    @Test func anEmptyExpectedPathIsAMismatchNotACrash() async throws {
        let result = try await InlineFixture.run(InlineFixture.commissionDevice(expect: #"{ "outcome": "succeeded", "path": [] }"#))
        #expect(!result.passed)
        let path = try #require(result.mismatches.first { $0.subject == "path" })
        #expect(path.expected == "no state at all")
        #expect(path.actual == "#1 prepare")
    }

    @Test func faultsFailTheGivenAttemptsThenLetCallsSucceed() async throws {
        let result = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect:
                    #"{ "outcome": "succeeded", "calls": { "commissionDevice": { "count": 2, "failed": 1 } }, "elapsedSeconds": 3 }"#,
                #""faults": [{ "operation": "commissionDevice", "attempts": "1", "fail": { "cause": "deviceUnreachable" } }]"#
            ))
        #expect(result.passed, "\(result.mismatches)")
        let calls = result.observation?.calls.filter { $0.operation == .commissionDevice } ?? []
        #expect(calls.map(\.outcome) == [.failed(code: .unavailable, cause: .deviceUnreachable), .succeeded])
        #expect(calls.map(\.startedAt) == [.zero, .seconds(3)], "commission.json retries after 3 s")
    }

    @Test func anEventAfterAnOperationHappensBeforeTheNextCall() async throws {
        let result = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect:
                    #"{ "outcome": "failed", "error": { "cause": "hubOffline", "state": "commission/commission" }, "hub": { "online": false } }"#,
                #""events": [{ "after": "createAddDeviceRequest", "action": "hubOffline" }]"#))
        #expect(result.passed, "\(result.mismatches)")
    }

    @Test func anAttemptNumberPicksWhichCallTheEventFollows() async throws {
        // readHubStatus #3 is the third guard check: the noActiveSession guard of prepare's first attempt.
        let result = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect: #"{ "outcome": "failed", "error": { "cause": "permissionNotGranted" } }"#,
                """
                "faults": [{ "operation": "prepareCommissioning", "attempts": 1, "fail": { "cause": "hubUnreachable" } }],
                  "events": [{ "after": "readHubStatus", "attempt": 3, "action": "permissionRevoked" }]
                """))
        #expect(result.passed, "\(result.mismatches)")
        #expect(result.observation?.elapsed == .seconds(2), "the retry after 2 s meets the revoked permission")
    }

    @Test func timedEventsHappenOnTheVirtualClock() async throws {
        let result = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect:
                    #"{ "outcome": "cancelled", "error": { "state": "commission/commission" }, "elapsedSeconds": 30 }"#,
                """
                "faults": [{ "operation": "commissionDevice", "delaySeconds": 100 }],
                  "events": [{ "at": 30, "action": "cancelRun" }]
                """))
        #expect(result.passed, "\(result.mismatches)")
    }

    @Test func enteringAStateCancelsBeforeItDoesAnyWork() async throws {
        let result = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect:
                    #"{ "outcome": "cancelled", "error": { "state": "commission/commission" }, "calls": { "commissionDevice": 0 } }"#,
                #""events": [{ "entering": "commission/commission", "action": "cancelRun" }]"#))
        #expect(result.passed, "\(result.mismatches)")
    }

    @Test func hubActionsOfAnEnteringEventApplyBeforeTheNextCall() async throws {
        let result = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect:
                    #"{ "outcome": "succeeded", "output": { "roomsOffered": [] }, "warnings": ["hubUnreachable"] }"#,
                #""events": [{ "entering": "rooms", "action": "hubUnreachable" }, { "entering": "configure", "action": "hubReachable" }]"#
            ))
        #expect(result.passed, "\(result.mismatches)")
    }

    @Test func anEventThatNeverHappensFailsTheFixture() async throws {
        let result = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                #""events": [{ "at": 500, "action": "hubOffline" }, { "after": "readBasicInformation", "action": "cancelRun" }]"#
            ))
        #expect(result.subjects == ["events[0]", "events[1]"])
        #expect(result.mismatches.first?.expected == "hubOffline at 500 s")
        #expect(result.observation?.finalHome.hub.online == true, "an event after the end of the run does not happen")
    }

    @Test func aHangEndsAtTheActionsTimeout() async throws {
        let result = try await InlineFixture.run(
            InlineFixture.commissionDevice(
                expect: #"{ "outcome": "failed", "error": { "cause": "actionTimedOut" }, "elapsedSeconds": 120 }"#,
                #""faults": [{ "operation": "commissionDevice", "attempts": "1-", "hang": true }]"#))
        #expect(result.passed, "\(result.mismatches)")
    }

    @Test func aMockReplacesOneSubworkflowOnly() async throws {
        let fixture = try InlineFixture.valid(
            InlineFixture.commissionDevice(
                expect:
                    #"{ "outcome": "succeeded", "output": { "roomsOffered": ["Attic"] }, "pathIncludes": ["rooms/mocked", "releaseAfterFailure/mocked"] }"#,
                """
                "mocks": [{ "state": "rooms", "output": { "rooms": ["Attic"] } }, { "state": "releaseAfterFailure", "output": { "released": true } }]
                """))
        #expect(fixture.mocks.map(\.state) == ["rooms", "releaseAfterFailure"])
        let result = await FixtureRunner().run(fixture)
        #expect(
            result.subjects == ["pathIncludes", "mocks[1]"],
            "the success path never releases, so releaseAfterFailure/mocked is not visited, and its mock is unused")
        #expect(result.mismatches.last?.pointer == "/mocks/1")
        #expect(result.observation?.result.output?["roomsOffered"] == ["Attic"])
        // The real rooms.json was not run, so it is not covered by this fixture; the mock is not a workflow of its own.
        let coverage = CoverageReport(results: [result])
        #expect(coverage.coverage(ofFile: Repository.workflows + "/rooms.json")?.coveredStates.isEmpty == true)
        #expect(coverage.workflows.count == 8)
    }

    @Test func onlyWorkflowStatesCanBeMocked() {
        let text = InlineFixture.commissionDevice(
            #""mocks": [{ "state": "rooms/fetch", "fail": { "code": "internal" } }]"#)
        #expect(
            InlineFixture.findings(text) == [
                #"7:24: error[invalidValue]: /mocks/0/state: "rooms/fetch" is not a workflow state; only sub-workflows can be mocked (script hub calls with "faults")"#
            ])
    }

    @Test func theSameFixtureGivesTheSameRun() async throws {
        let text = InlineFixture.commissionDevice(
            """
            "faults": [{ "operation": "commissionDevice", "attempts": "1-2", "fail": { "cause": "deviceUnreachable" } }],
              "events": [{ "at": 4, "action": "hubUnreachable" }, { "at": 8, "action": "hubReachable" }]
            """)
        let first = try await InlineFixture.run(text)
        let second = try await InlineFixture.run(text)
        #expect(first.observation?.events.map(\.jsonValue) == second.observation?.events.map(\.jsonValue))
        #expect(first.observation?.result.runID == second.observation?.result.runID)
    }
}
