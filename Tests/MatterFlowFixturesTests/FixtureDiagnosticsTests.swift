import Foundation
import MatterFlow
import MatterFlowFixtures
import MatterFlowJSON
import Testing

/// Fixture files are checked like workflows: every problem at once, each with a stable code, a pointer, a line
/// and a column, and a suggestion where a typo is likely.
@Suite struct FixtureDiagnosticsTests {
    @Test func unknownKeysSuggestTheIntendedOne() {
        let text = InlineFixture.commissionDevice(
            expect: #"{ "outcome": "succeeded", "outcomes": "failed", "hub": { "activeSesion": null } }"#,
            #""fautls": []"#)
        #expect(
            InlineFixture.findings(text) == [
                #"7:3: error[unknownKey]: /fautls: unknown key "fautls" (did you mean "faults"?)"#,
                #"8:39: error[unknownKey]: /expect/outcomes: unknown key "outcomes" (did you mean "outcome"?)"#,
                #"8:70: error[unknownKey]: /expect/hub/activeSesion: unknown key "activeSesion" (did you mean "activeSession"?)"#,
            ])
    }

    @Test("a fault's element must name an element of a map state that runs elements at once, or the fault would hit nothing")
    func faultElementsAreChecked() {
        let bridge = #"""
            {
              "fixture": "inline",
              "version": 1,
              "workflow": "../../commission-bridge.json",
              "inputs": { "onboardingPayload": "MT:O6PS0C1K01HWUR1VJ00" },
              "home": "../homes/bridge.json",
              "faults": [
                { "operation": "readBasicInformation", "element": "readDevice[1]", "fail": { "cause": "hubUnreachable" } },
                { "operation": "readBasicInformation", "element": "garbage", "fail": { "cause": "hubUnreachable" } },
                { "operation": "readBasicInformation", "element": "readDevices[-1]", "fail": { "cause": "hubUnreachable" } },
                { "operation": "readBasicInformation", "element": "readDevices[+1]", "fail": { "cause": "hubUnreachable" } },
                { "operation": "readBasicInformation", "element": "readDevices[01]", "fail": { "cause": "hubUnreachable" } },
                { "operation": "readBasicInformation", "element": "readDevices#1[0]", "fail": { "cause": "hubUnreachable" } },
                { "operation": "readBasicInformation", "element": "readDevices#2", "fail": { "cause": "hubUnreachable" } },
                { "operation": "readBasicInformation", "element": "readDevices[1]#02", "fail": { "cause": "hubUnreachable" } },
                { "operation": "readBasicInformation", "element": "readDevices#2[1]", "fail": { "cause": "hubUnreachable" } },
                { "operation": "readBasicInformation", "element": "readDevices[1]", "fail": { "cause": "hubUnreachable" } }
              ],
              "expect": { "outcome": "succeeded" }
            }
            """#
        // A repeat's iteration (`#2` on) may stand among the indices; the name still ends with the element's index.
        let findings = InlineFixture.findings(bridge)
        #expect(findings.count == 9, "\(findings)")
        #expect(findings.first?.contains("/faults/0/element: workflow commission-bridge has no map state \"readDevice\" (did you mean \"readDevices\"?)") == true, "\(findings)")
        #expect(findings.dropFirst().prefix(7).allSatisfy { $0.contains("names no element; write the map state's qualified name and the element's index") }, "\(findings)")
        #expect(
            findings.last?.contains(
                "/faults/8/element: no run names an element \"readDevices#2[1]\", so the fault would hit nothing: map state readDevices needs the index of its element (\"[0]\" to \"[63]\") there, and finds #2"
            ) == true, "\(findings)")
        let noMap = InlineFixture.commissionDevice(#""faults": [{ "operation": "commissionDevice", "element": "commission[0]", "fail": { "cause": "hubUnreachable" } }]"#)
        #expect(InlineFixture.findings(noMap).contains { $0.contains("/faults/0/element: \"commission\" is not a map state that runs elements at once") }, "\(InlineFixture.findings(noMap))")
    }

    @Test(
        "an element name must fit the states around its map: an index per map, an iteration per repeat from the second, within their bounds",
        arguments: [
            ("poll/readAll[1]", nil), ("poll/readAll#2[1]", nil), ("poll/readAll#3[0]", nil),
            ("poll/readAll#4[0]", "repeat state poll runs its body at most 3 times (its maxIterations), so it has no iteration 4"),
            ("poll/readAll#2[2]", "map state poll/readAll runs at most 2 elements (its maxItems), so no element has index 2"),
            ("poll/readAll#2#3[0]", "map state poll/readAll needs the index of its element (\"[0]\" to \"[1]\") there, and finds #3"),
            ("poll/readAll#2[0]#3[1]", "#3 names the iteration of a repeat state, and no repeat state that could stand there surrounds poll/readAll"),
            ("poll/readAll[0][1]", "[1] is one index too many: only the map states around poll/readAll and poll/readAll itself add one"),
            ("poll/readAll[99999999999999999999]", "names no element"),
        ] as [(String, String?)])
    func elementNamesFitTheirStates(element: String, problem: String?) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mf-element-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let files = [
            "poll.json": #"""
                {"workflow": "poll", "version": 1, "start": "poll", "states": {
                  "poll": {"type": "repeat", "path": "read-all.json", "until": {"equals": ["${vars.all.done}", true]},
                           "maxIterations": 3, "result": "all", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
                  "done": {"type": "succeed"},
                  "failed": {"type": "fail", "error": "${error}"}
                }}
                """#,
            "read-all.json": #"""
                {"workflow": "read-all", "version": 1, "start": "readAll", "states": {
                  "readAll": {"type": "map", "items": ["device-1", "device-2"], "as": "deviceID", "maxItems": 2, "concurrency": 2,
                              "path": "read-one.json", "inputs": {"deviceID": "${vars.deviceID}"}, "result": "devices",
                              "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
                  "done": {"type": "succeed", "output": {"done": false}},
                  "failed": {"type": "fail", "error": "${error}"}
                }}
                """#,
            "read-one.json": #"""
                {"workflow": "read-one", "version": 1, "start": "read",
                 "inputs": {"deviceID": {"type": "string"}}, "states": {
                  "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": "${input.deviceID}"},
                           "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
                  "done": {"type": "succeed"},
                  "failed": {"type": "fail", "error": "${error}"}
                }}
                """#,
        ]
        for (name, text) in files { try Data(text.utf8).write(to: URL(fileURLWithPath: directory + "/" + name)) }
        let fixture = """
            {
              "fixture": "element names", "version": 1, "workflow": "poll.json", "home": "\(Repository.fixtures)/homes/ready.json",
              "faults": [{ "operation": "readBasicInformation", "element": "\(element)", "fail": { "cause": "hubUnreachable" } }],
              "expect": { "outcome": "failed" }
            }
            """
        let diagnostics = FixtureLoader().load(text: fixture, file: directory + "/x.fixture.json").diagnostics.map(\.description)
        if let problem {
            #expect(diagnostics.count == 1 && diagnostics[0].contains("/faults/0/element: ") && diagnostics[0].contains(problem), "\(diagnostics)")
        } else {
            #expect(diagnostics.isEmpty, "\(diagnostics)")
        }
    }

    @Test("call bounds no run can meet are refused at load, naming why")
    func impossibleCallBounds() {
        for (bounds, why) in [
            (#"{ "count": 1, "atLeast": 5, "atMost": 2 }"#, "at least 5 and at most 2"),
            (#"{ "count": 3, "succeeded": 2, "failed": 2 }"#, "3 in all, but at least 4"),
            (#"{ "count": 5, "succeeded": 2, "failed": 2 }"#, "5 in all, but 4 that succeeded or failed"),
            (#"{ "atLeast": 3, "succeeded": 1, "failed": 0 }"#, "1 that succeeded or failed, but at least 3"),
        ] {
            let text = InlineFixture.commissionDevice(expect: #"{ "outcome": "succeeded", "calls": { "commissionDevice": \#(bounds) } }"#)
            let findings = InlineFixture.findings(text)
            #expect(findings.count == 1 && findings[0].contains("error[invalidValue]: /expect/calls/commissionDevice: no run can make these commissionDevice calls: \(why)"), "\(findings)")
        }
        #expect(InlineFixture.findings(InlineFixture.commissionDevice(expect: #"{ "outcome": "succeeded", "calls": { "commissionDevice": { "count": 1, "atLeast": 1, "succeeded": 1 } } }"#)).isEmpty)
    }

    @Test("$schema, which editors read, must be a string in fixtures and workflows alike")
    func schemaMustBeAString() {
        let text = InlineFixture.commissionDevice(#""$schema": 5"#)
        #expect(InlineFixture.findings(text).contains { $0.contains(#"error[wrongType]: /$schema: "$schema" must be a string, found integer"#) }, "\(InlineFixture.findings(text))")
        let outcome = WorkflowLoader().load(
            text: #"{"$schema": [], "workflow": "w", "version": 1, "start": "a", "states": {"a": {"type": "succeed"}}}"#,
            file: "w.json", baseDirectory: "/")
        let schema = outcome.diagnostics.filter { $0.pointer == "/$schema" }
        #expect(schema.map(\.code) == ["wrongType"], "\(outcome.diagnostics)")
    }

    @Test func wrongTypesAndMissingKeys() {
        let text = """
            {
              "fixture": 5,
              "version": 1,
              "workflow": "../../rooms.json",
              "seed": "one",
              "faults": {}
            }
            """
        #expect(
            InlineFixture.findings(text) == [
                #"1:1: error[missingKey]: missing required key "expect" (an object)"#,
                #"2:14: error[wrongType]: /fixture: "fixture" must be a string, found integer"#,
                #"5:11: error[wrongType]: /seed: "seed" must be an integer, found string"#,
                #"6:13: error[wrongType]: /faults: "faults" must be an array, found object"#,
            ])
    }

    @Test func unknownOperationsStatesActionsAndCodes() {
        let text = InlineFixture.commissionDevice(
            expect: """
                { "outcome": "failed", "error": { "code": "unavaliable", "state": "commision/commission" },
                    "path": ["prepare", "prepare/prepaired"], "calls": { "cancelComissioning": 1 } }
                """,
            """
            "faults": [{ "operation": "comissionDevice", "fail": { "cause": "deviceUnreachable" } }],
              "events": [{ "entering": "rooms/fetched", "action": "hubOfline" }, { "after": "fetchRoom", "action": "cancelRun" }]
            """)
        #expect(
            InlineFixture.findings(text) == [
                #"7:29: error[unknownOperation]: /faults/0/operation: unknown operation "comissionDevice" (did you mean "commissionDevice"?)"#,
                #"8:28: error[unknownState]: /events/0/entering: workflow commission-device has no state "rooms/fetched" (did you mean "rooms/fetch"?); name states as in visitedStates, qualified by sub-workflow states ("commission/commission")"#,
                #"8:55: error[unknownAction]: /events/0/action: unknown action "hubOfline" (did you mean "hubOffline"?)"#,
                #"8:81: error[unknownOperation]: /events/1/after: unknown operation "fetchRoom" (did you mean "fetchRooms"?)"#,
                #"9:55: error[invalidErrorCode]: /expect/error/code: "unavaliable" is not a canonical error code (did you mean "unavailable"?)"#,
                #"9:79: error[unknownState]: /expect/error/state: workflow commission-device has no state "commision/commission" (did you mean "commission/commission"?); name states as in visitedStates, qualified by sub-workflow states ("commission/commission")"#,
                #"10:25: error[unknownState]: /expect/path/1: workflow commission-device has no state "prepare/prepaired" (did you mean "prepare/prepared"?); name states as in visitedStates, qualified by sub-workflow states ("commission/commission")"#,
                #"10:80: error[unknownOperation]: /expect/calls/cancelComissioning: unknown operation "cancelComissioning" (did you mean "cancelCommissioning"?)"#,
            ])
    }

    @Test("a fault for an operation no catalog defines is reported once, as unknown: its other members (a custom operation's \"result\") are not judged against the standard operations'")
    func faultOfAnUnknownOperationIsNotJudgedFurther() {
        let text = InlineFixture.commissionDevice(
            """
            "faults": [{ "operation": "readFirmwareStatus", "result": { "version": "2.0" } }]
            """)
        let findings = InlineFixture.findings(text)
        #expect(findings.count == 1, "\(findings)")
        #expect(findings.first?.contains("error[unknownOperation]: /faults/0/operation: unknown operation \"readFirmwareStatus\"") == true, "\(findings)")
        #expect(findings.first?.contains("a custom operation needs its catalog: --catalog FILE") == true, "\(findings)")
    }

    @Test func faultsAndEventsNeedExactlyOneEffectAndOneTrigger() {
        let text = InlineFixture.commissionDevice(
            """
            "faults": [
                { "operation": "fetchRooms", "attempts": "3-1", "hang": true },
                { "operation": "fetchRooms", "hang": true, "delaySeconds": 2 },
                { "operation": "fetchRooms" },
                { "operation": "fetchRooms", "hang": false }
              ],
              "events": [
                { "at": 0, "action": "cancelRun" },
                { "at": 2, "after": "fetchRooms", "action": "cancelRun" },
                { "entering": "rooms", "attempt": 2, "action": "cancelRun" }
              ]
            """)
        #expect(
            InlineFixture.findings(text) == [
                #"8:46: error[invalidValue]: /faults/0/attempts: "attempts": "3-1" runs backwards; write "1-3""#,
                #"9:5: error[invalidValue]: /faults/1: a fault has one effect; found "hang" and "delaySeconds" (write two faults to delay then fail)"#,
                #"10:5: error[missingKey]: /faults/2: a fault needs one of "fail" (an error), "hang" (true), "delaySeconds" (a number) or "failAfterActing" (an error)"#,
                #"11:42: error[invalidValue]: /faults/3/hang: "hang" can only be true; remove the fault instead"#,
                #"14:13: error[invalidValue]: /events/0/at: "at" must be a positive number of seconds; to start in a condition, describe it in the home"#,
                #"15:5: error[invalidValue]: /events/1: an event has one trigger; found "at" and "after""#,
                #"16:39: error[invalidValue]: /events/2/attempt: "attempt" only goes with "after""#,
            ])
    }

    @Test("a misspelt cause is told the one meant, not only to add a code")
    func aMisspeltCauseHasAHint() {
        let text = InlineFixture.commissionDevice(#""faults": [{ "operation": "commissionDevice", "fail": { "cause": "deviceUnreachabl" } }]"#)
        let error = InlineFixture.findings(text).first { $0.contains("error[missingKey]") }
        #expect(error?.hasSuffix(#"cause "deviceUnreachabl" is not a known cause (did you mean "deviceUnreachable"?); a cause of your own needs "code" too"#) == true, "\(String(describing: error))")
    }

    @Test func aCauseTheOperationCannotRaiseIsAWarning() throws {
        let text = InlineFixture.commissionDevice(
            #""faults": [{ "operation": "fetchRooms", "fail": { "code": "unavailable", "cause": "sessionBusy" } }]"#)
        #expect(
            InlineFixture.findings(text) == [
                #"7:85: warning[causeCodeMismatch]: /faults/0/fail/cause: cause "sessionBusy" belongs to code failedPrecondition, not unavailable; routes by code and by cause would disagree"#,
                #"7:85: warning[undeclaredCause]: /faults/0/fail/cause: fetchRooms does not declare cause "sessionBusy" (it may raise: hubOffline, hubUnreachable, structureNotFound, actionTimedOut, hubFailure); a real hub would not raise it there"#,
            ])
        #expect(InlineFixture.load(text).fixture != nil, "warnings do not stop a fixture")
    }

    @Test func inputsAreCheckedAgainstTheWorkflow() {
        let text = """
            {
              "fixture": "inputs", "version": 1, "workflow": "../../commission-device.json",
              "inputs": { "deviceName": 3, "room": "Kitchen" },
              "expect": { "outcome": "succeeded" }
            }
            """
        #expect(
            InlineFixture.findings(text) == [
                #"3:13: error[missingKey]: /inputs: required input "onboardingPayload" is missing (or null); give it in the fixture's "inputs""#,
                #"3:29: error[wrongType]: /inputs/deviceName: input "deviceName" must be a string, got integer; write it in quotes"#,
                #"3:32: error[unknownKey]: /inputs/room: workflow commission-device has no input "room" (did you mean "roomName"?) (inputs: onboardingPayload, deviceName, roomName, ecosystemName)"#,
            ])
    }

    @Test("a fixture without inputs is told to add them, not to use the command line's --input")
    func missingInputsAreAskedForInTheFixture() {
        let text = """
            {
              "fixture": "inputs", "version": 1, "workflow": "../../rooms.json",
              "expect": { "outcome": "succeeded" }
            }
            """
        #expect(InlineFixture.findings(text).isEmpty, "rooms.json needs no input")
        let needing = text.replacingOccurrences(of: "../../rooms.json", with: "../../read-device.json")
        #expect(
            InlineFixture.findings(needing) == [
                #"1:1: error[missingKey]: required input "deviceID" is missing (or null); give it in the fixture's "inputs" (add "inputs": {"deviceID": ...} to the fixture)"#
            ])
    }

    @Test func anInlineHomeIsReportedInsideTheFixture() {
        let text = """
            {
              "fixture": "home", "version": 1, "workflow": "../../rooms.json",
              "home": { "version": 1, "structure": { "id": "x", "name": "X" }, "hub": { "online": "yes" }, "roms": [] },
              "expect": { "outcome": "succeeded", "hub": { "devices": [{ "room": "Garage" }] } }
            }
            """
        #expect(
            InlineFixture.findings(text) == [
                #"3:87: error[wrongType]: /home/hub/online: "online" must be a boolean, found string"#,
                #"3:96: error[unknownKey]: /home/roms: unknown key "roms" (did you mean "rooms"?)"#,
            ])
    }

    @Test func roomsNamedInExpectationsMustExist() {
        let text = InlineFixture.commissionDevice(
            expect: #"{ "outcome": "succeeded", "hub": { "newDevices": [{ "name": "Lamp", "room": "Kitchn" }] } }"#)
        #expect(
            InlineFixture.findings(text) == [
                #"7:89: error[unknownRoom]: /expect/hub/newDevices/0/room: the home has no room named "Kitchn" (did you mean "Kitchen"?) (rooms: Kitchen, Hall)"#
            ])
    }

    @Test func missingFilesAndBrokenWorkflowsPointAtTheMember() {
        let text = """
            {
              "fixture": "files", "version": 1, "workflow": "../../comission-device.json", "home": "../homes/nope.json",
              "expect": { "outcome": "succeeded" }
            }
            """
        let findings = InlineFixture.findings(text)
        #expect(findings.count == 2, "\(findings)")
        #expect(
            findings.first?.hasPrefix(
                #"2:49: error[fileNotFound]: /workflow: workflow file "../../comission-device.json" does not exist"#)
                == true)
        #expect(
            findings.first?.hasSuffix(#" (did you mean "commission-device.json"?); paths are relative to this fixture"#)
                == true)
        #expect(
            findings.last?.hasPrefix(
                #"2:88: error[fileNotFound]: /home: home file "../homes/nope.json" does not exist"#) == true)
    }

    @Test("a workflow path naming a directory says so, not that it does not exist")
    func aWorkflowPathNamingADirectory() {
        let text = #"{ "fixture": "dir", "version": 1, "workflow": "..", "expect": { "outcome": "succeeded" } }"#
        let findings = InlineFixture.findings(text)
        #expect(findings.count == 1, "\(findings)")
        #expect(findings.first?.contains(#"error[fileNotFound]: /workflow: ".." is a directory ("#) == true, "\(findings)")
        #expect(findings.first?.hasSuffix("not a workflow file; name the JSON file in it") == true, "\(findings)")
    }

    @Test func aWorkflowFileIsNotAFixture() {
        let outcome = FixtureLoader().load(path: Repository.workflows + "/rooms.json")
        #expect(outcome.fixture == nil)
        #expect(outcome.diagnostics.map(\.code) == [FixtureDiagnosticCode.notAFixture])
    }

    @Test func aHomeDescriptionIsNotAFixture() {
        let outcome = FixtureLoader().load(path: Repository.root + "/Examples/default-home.json")
        #expect(outcome.fixture == nil)
        #expect(outcome.diagnostics.map(\.code) == [FixtureDiagnosticCode.notAFixture])
        #expect(outcome.diagnostics.first?.message.contains("this looks like a home description, not a fixture") == true)
    }

    @Test func newerVersionsAreReportedAlone() {
        let text = #"{ "fixture": "future", "version": 2, "workflow": 7, "expect": {}, "someday": true }"#
        #expect(
            InlineFixture.findings(text) == [
                #"1:35: error[unsupportedVersion]: /version: this fixture has version 2, newer than this MatterFlow reads (1); upgrade MatterFlow or write a version 1 fixture"#
            ])
    }

    @Test func syntaxErrorsAndDuplicateKeys() {
        #expect(InlineFixture.findings(#"{ "fixture": "x", }"#).first?.contains("error[syntaxError]") == true)
        let text = InlineFixture.commissionDevice(expect: #"{ "outcome": "succeeded", "outcome": "failed" }"#)
        #expect(
            InlineFixture.findings(text).map { $0.components(separatedBy: ": ").dropFirst().first } == [
                "error[duplicateKey]"
            ])
    }

    @Test func everyCodeIsListed() {
        #expect(Set(FixtureDiagnosticCode.all).count == FixtureDiagnosticCode.all.count)
        for code in [
            FixtureDiagnosticCode.unknownState, FixtureDiagnosticCode.unknownOperation,
            FixtureDiagnosticCode.unknownAction,
        ] {
            #expect(FixtureDiagnosticCode.all.contains(code))
        }
    }
}
