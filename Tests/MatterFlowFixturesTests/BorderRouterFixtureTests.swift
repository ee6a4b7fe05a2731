import Foundation
import MatterFlow
import MatterFlowFixtures
import MatterFlowJSON
import Testing

/// Border-router fixtures: commissioner actions with the issued or a wrong key, ePSKc state and Thread network
/// expectations, lost hub events.
@Suite struct BorderRouterFixtureTests {
    static let router = "device-nest-hub"

    static func epskcShare(expect: String, _ members: String = "") -> String {
        """
        {
          "fixture": "share", "version": 1, "workflow": "../../epskc-share.json", "home": "../homes/border-router.json",\(members.isEmpty ? "" : "\n  " + members + ",")
          "expect": \(expect)
        }
        """
    }

    @Test func theIssuedKeyIsUsedAndTheModeEnds() async throws {
        let result = try await InlineFixture.run(
            Self.epskcShare(
                expect:
                    #"{ "outcome": "succeeded", "output": { "reason": "keyUsed" }, "hub": { "borderRouters": [{ "deviceID": "device-nest-hub", "epskc": "stopped" }] } }"#,
                #""events": [{ "at": 12, "action": "commissionerUsesKey", "deviceID": "device-nest-hub" }]"#))
        #expect(result.passed, "\(result.mismatches)")
        #expect(result.observation?.elapsed == .seconds(12))
    }

    @Test func aConnectedCommissionerIsVisibleInTheFinalState() async throws {
        // The run is cancelled while the commissioner is connected; the cancel path withdraws the key.
        let result = try await InlineFixture.run(
            Self.epskcShare(
                expect:
                    #"{ "outcome": "cancelled", "hub": { "borderRouters": [{ "deviceID": "device-nest-hub", "epskc": "stopped" }] } }"#,
                """
                "events": [
                    { "at": 5, "action": "commissionerConnects", "deviceID": "device-nest-hub" },
                    { "at": 6, "action": "commissionerPetitionAccepted", "deviceID": "device-nest-hub" },
                    { "at": 7, "action": "cancelRun" }
                  ]
                """))
        #expect(result.passed, "\(result.mismatches)")
    }

    @Test func theFinalStateIsTheOneTheRunLeft() async throws {
        // Another app's key is active when the run fails at once; its 120 s expiry must not have happened yet.
        let result = try await InlineFixture.run(
            Self.epskcShare(
                expect:
                    #"{ "outcome": "failed", "error": { "cause": "epskcAlreadyActive" }, "hub": { "borderRouters": [{ "deviceID": "device-nest-hub", "epskc": "started" }] } }"#,
                #""events": [{ "after": "readThreadCapabilities", "action": "epskcActivatedElsewhere", "deviceID": "device-nest-hub" }]"#
            ))
        #expect(result.passed, "\(result.mismatches)")
        #expect(result.observation?.epskcPhases[Self.router] == .started)
    }

    @Test func aCommissionerTurnedAwayFailsTheFixture() async throws {
        // No key was issued when the commissioner comes: the event happens, but the simulator refuses it.
        let result = try await InlineFixture.run(
            Self.epskcShare(
                expect: #"{ "outcome": "failed" }"#,
                """
                "faults": [{ "operation": "activateEpskc", "fail": { "cause": "invalidArgumentValue" } }],
                  "events": [{ "after": "activateEpskc", "action": "commissionerConnects", "deviceID": "device-nest-hub", "key": "wrong" }]
                """))
        #expect(result.subjects == ["events[0]"])
        #expect(result.mismatches.first?.pointer == "/events/0")
        #expect(result.mismatches.first?.actual.contains("epskcNotActive") == true)
    }

    @Test func lostEventsMakeTheWaitTimeOut() async throws {
        let result = try await InlineFixture.run(
            Self.epskcShare(
                expect: #"{ "outcome": "failed", "error": { "state": "timedOut" }, "elapsedSeconds": 660 }"#,
                #""events": [{ "entering": "waitForEnd", "action": "hubEventsLost" }]"#))
        #expect(result.passed, "\(result.mismatches)")
    }

    @Test("a hub action on entering a state that calls no hub happens while the run is in that state")
    func anEnteringActionHappensDuringAWait() async throws {
        // waitForEnd only waits for the hub's event: the commissioner comes while it waits, and the run sees it.
        let used = try await InlineFixture.run(
            Self.epskcShare(
                expect: #"{ "outcome": "succeeded", "output": { "reason": "keyUsed" }, "elapsedSeconds": 0 }"#,
                #""events": [{ "entering": "waitForEnd", "action": "commissionerUsesKey", "deviceID": "device-nest-hub" }]"#))
        #expect(used.passed, "\(used.mismatches)")
        // The hub goes offline while the run waits, so a deactivation from elsewhere is refused and the key expires.
        let offline = try await InlineFixture.run(
            Self.epskcShare(
                expect: #"{ "outcome": "succeeded", "output": { "reason": "expired" } }"#,
                """
                "events": [{ "entering": "waitForEnd", "action": "hubOffline" },
                    { "at": 30, "action": "epskcDeactivatedElsewhere", "deviceID": "device-nest-hub" }]
                """))
        #expect(offline.subjects == ["events[1]"], "\(offline.mismatches)")
        #expect(offline.mismatches.first?.actual.contains("hubOffline") == true)
    }

    @Test func networkExpectationsReportWhatDiffers() async throws {
        let text = """
            {
              "fixture": "leave", "version": 1, "workflow": "../../leave-network.json", "home": "../homes/border-router.json",
              "expect": {
                "outcome": "succeeded",
                "hub": {
                  "internetAccessOption": "all",
                  "borderRouters": [{ "deviceID": "device-nest-hub", "epskc": "started", "network": { "networkName": "OpenThread-5938" }, "threadDevices": [] }]
                }
              }
            }
            """
        let result = try await InlineFixture.run(text)
        #expect(
            result.subjects == [
                "hub.internetAccessOption", "hub.borderRouters[device-nest-hub].epskc",
                "hub.borderRouters[device-nest-hub].network",
            ])
        #expect(result.mismatches.map(\.actual) == ["unspecified", "stopped", "none"])
    }

    @Test func borderRoutersNamedInTheFixtureMustExist() {
        let text = Self.epskcShare(
            expect:
                #"{ "outcome": "succeeded", "hub": { "borderRouters": [{ "deviceID": "device-door-lock", "epskc": "on" }] } }"#,
            #""events": [{ "at": 1, "action": "commissionerConnects", "deviceID": "device-nest-hbu", "key": "stolen", "count": 0 }]"#
        )
        #expect(
            InlineFixture.findings(text) == [
                #"3:71: error[unknownDevice]: /events/0/deviceID: the home has no border router "device-nest-hbu" (did you mean "device-nest-hub"?)"#,
                #"3:97: error[invalidValue]: /events/0/key: "key" is "issued" or "wrong", found "stolen""#,
                #"3:116: error[numberOutOfRange]: /events/0/count: 0 is outside 1...100 (keys); use a value in that range"#,
                #"4:80: error[unknownDevice]: /expect/hub/borderRouters/0/deviceID: the home has no border router "device-door-lock" (border routers: device-nest-hub)"#,
                #"4:109: error[invalidValue]: /expect/hub/borderRouters/0/epskc: "epskc" is one of disabled, stopped, started, connected, accepted, found "on""#,
            ])
    }
    @Test("a mismatch on output or shown is found against the key itself but reports it redacted, also in --json")
    func mismatchesDoNotPrintTheKey() async throws {
        let events = #""events": [{ "at": 12, "action": "commissionerUsesKey", "deviceID": "device-nest-hub" }]"#
        let wrong = try await InlineFixture.run(
            Self.epskcShare(
                expect: #"{ "outcome": "succeeded", "output": { "epskc": "00000000" }, "shown": [{ "epskc": "00000000" }] }"#, events))
        let key = try #require(wrong.observation?.result.output?["epskc"]?.stringValue)
        #expect(!key.isEmpty && key.allSatisfy(\.isNumber))
        #expect(wrong.subjects == ["output.epskc", "shown[0].epskc"])
        let report = wrong.mismatches.map(\.description).joined(separator: "\n") + JSONWriter.compact(wrong.jsonValue)
        #expect(!report.contains(key), "\(report)")
        #expect(wrong.mismatches.allSatisfy { $0.actual == JSONWriter.compact(.string(RunOptions.redacted)) })

        // The same expectations with the key the run issued are met: matching sees the real value.
        let right = try await InlineFixture.run(
            Self.epskcShare(
                expect: #"{ "outcome": "succeeded", "output": { "epskc": "\#(key)" }, "shown": [{ "epskc": "\#(key)" }] }"#, events))
        #expect(right.passed, "\(right.mismatches)")
    }
}
