import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// Every diagnostic code the workflow loader can report, each with an input that triggers it.
@Suite struct LoaderDiagnosticTests {
    /// A valid workflow body to break in one place at a time.
    static func workflow(states: String, extra: String = "", inputs: String = "{}") -> String {
        """
        {
          "workflow": "t",
          "version": 1,
          \(extra)
          "inputs": \(inputs),
          "start": "a",
          "states": \(states)
        }
        """
    }

    static let end = #""done": {"type": "succeed"}"#

    static let cases: [(code: String, text: String)] = [
        ("syntaxError", "{\"workflow\": \"t\",\n  \"version\": 1,\n  \"start\" \"a\"}"),
        ("duplicateKey", workflow(states: #"{"a": {"type": "succeed", "type": "succeed"}}"#)),
        ("unknownKey", workflow(states: #"{"a": {"type": "succeed", "ouput": 1}}"#)),
        ("missingKey", #"{"workflow": "t", "version": 1, "states": {"a": {"type": "succeed"}}}"#),
        ("wrongType", #"{"workflow": 7, "version": 1, "start": "a", "states": {"a": {"type": "succeed"}}}"#),
        ("invalidValue", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "retry": [{"errors": ["*"], "jitter": "some"}], "next": "done"}, "#+end+"}")),
        ("numberOutOfRange", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "timeoutSeconds": -1, "next": "done"}, "#+end+"}")),
        ("unsupportedVersion", #"{"workflow": "t", "version": 2, "start": "a", "states": {"a": {"type": "succeed"}}}"#),
        ("notAWorkflow", #"{"version": 1, "structure": {"id": "s", "name": "Home"}, "rooms": [], "devices": []}"#),
        ("missingStart", workflow(states: #"{"b": {"type": "succeed"}}"#)),
        ("undefinedState", workflow(states: #"{"a": {"type": "assign", "set": {"x": 1}, "next": "nowhere"}}"#)),
        ("unknownStateType", workflow(states: #"{"a": {"type": "sleep"}}"#)),
        ("unknownOperation", workflow(states: #"{"a": {"type": "action", "operation": "fetchRoom", "next": "done"}, "#+end+"}")),
        ("missingArgument", workflow(states: #"{"a": {"type": "action", "operation": "configureDevice", "next": "done"}, "#+end+"}")),
        ("unexpectedArgument", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "arguments": {"room": "x"}, "next": "done"}, "#+end+"}")),
        ("argumentType", workflow(states: #"{"a": {"type": "action", "operation": "configureDevice", "arguments": {"name": 5}, "next": "done"}, "#+end+"}")),
        ("unknownGuard", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "guards": ["hubOnline"], "next": "done"}, "#+end+"}")),
        ("invalidReference", workflow(states: #"{"a": {"type": "succeed", "output": "${inputs.x}"}}"#)),
        ("undefinedInput", workflow(states: #"{"a": {"type": "succeed", "output": "${input.missing}"}}"#)),
        ("undefinedVariable", workflow(states: #"{"a": {"type": "succeed", "output": "${vars.nothing}"}}"#)),
        ("typeMismatch", workflow(states: #"{"a": {"type": "action", "operation": "readHubStatus", "result": "s", "next": "c", "onError": [{"errors": ["*"], "next": "done"}]}, "c": {"type": "choice", "choices": [{"if": {"equals": ["${vars.s.online}", "true"]}, "next": "done"}], "default": "done"}, "done": {"type": "succeed"}}"#)),
        ("possiblyUnboundVariable", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "result": "r", "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "done": {"type": "succeed", "output": "${vars.r.roomNames}"}}"#)),
        ("unknownField", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "result": "r", "next": "done"}, "done": {"type": "succeed", "output": "${vars.r.roomz}"}}"#)),
        ("errorOutsideHandler", workflow(states: #"{"a": {"type": "succeed", "output": "${error.code}"}}"#)),
        ("undefinedWorkflowFile", workflow(states: #"{"a": {"type": "workflow", "path": "no-such.json", "next": "done"}, "#+end+"}")),
        ("unreachableState", workflow(states: #"{"a": {"type": "succeed"}, "island": {"type": "succeed"}}"#)),
        ("noTerminalReachable", workflow(states: #"{"a": {"type": "assign", "set": {"x": 1}, "next": "b"}, "b": {"type": "assign", "set": {"x": 2}, "next": "a"}}"#)),
        ("shadowedRetry", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "retry": [{"errors": ["unavailable"]}, {"errors": ["hubOffline"]}], "next": "done"}, "#+end+"}")),
        ("shadowedErrorRoute", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "next": "done", "onError": [{"errors": ["hubOffline"], "next": "done"}, {"errors": ["hubOffline"], "next": "done"}]}, "#+end+"}")),
        ("catchAllNotLast", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "next": "done", "onError": [{"errors": ["*"], "next": "done"}, {"errors": ["hubOffline"], "next": "done"}]}, "#+end+"}")),
        ("foreignErrorName", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "retry": [{"errors": ["States.ALL"]}], "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "#+end+"}")),
        ("pointlessRetry", workflow(states: #"{"a": {"type": "action", "operation": "commissionDevice", "arguments": {"onboardingPayload": "MT:Y.K9042C00KA0648G00"}, "retry": [{"errors": ["invalidPayload"]}], "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "#+end+"}")),
        ("unknownErrorName", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "next": "done", "onError": [{"errors": ["hubOfline"], "next": "done"}]}, "#+end+"}")),
        ("invalidErrorCode", workflow(states: #"{"a": {"type": "fail", "code": "broken", "message": "m"}}"#)),
        ("invalidCondition", workflow(states: #"{"a": {"type": "choice", "choices": [{"if": {"equal": [1, 1]}, "next": "done"}], "default": "done"}, "#+end+"}")),
        ("missingCancelPath", workflow(states: #"{"a": {"type": "action", "operation": "prepareCommissioning", "next": "done"}, "#+end+"}")),
        ("unknownEvent", workflow(states: #"{"a": {"type": "wait", "event": "doorbell", "timeoutSeconds": 5, "on": {}, "otherwise": "done", "onTimeout": "done"}, "#+end+"}")),
        ("unknownEventValue", workflow(states: #"{"a": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 5, "on": {"stolen": "done"}, "otherwise": "done", "onTimeout": "done"}, "#+end+"}")),
        ("unhandledEventValue", workflow(states: #"{"a": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 5, "on": {"keyUsed": "done"}, "onTimeout": "done"}, "#+end+"}")),
        ("causeCodeMismatch", workflow(states: #"{"a": {"type": "fail", "code": "unavailable", "cause": "sessionBusy", "message": "m"}}"#)),
        ("sessionLeak", workflow(states: #"{"a": {"type": "action", "operation": "prepareCommissioning", "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "done": {"type": "fail", "code": "unknown", "message": "m"}}"#)),
        ("unbalancedMapBody", workflow(states: #"{"a": {"type": "map", "items": [1], "as": "x", "maxItems": 2, "path": "prepare.json", "next": "b", "onError": [{"errors": ["*"], "next": "b"}]}, "b": {"type": "workflow", "path": "cancel.json", "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "#+end+"}")),
        ("concurrentSessionUse", workflow(states: #"{"a": {"type": "map", "items": [1, 2], "as": "x", "maxItems": 2, "concurrency": 2, "path": "cancel.json", "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "#+end+"}")),
        ("operationOutOfOrder", workflow(states: #"{"a": {"type": "action", "operation": "prepareCommissioning", "next": "b", "onError": [{"errors": ["*"], "next": "done"}]}, "b": {"type": "action", "operation": "configureDevice", "arguments": {"name": "x"}, "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "#+end+"}")),
        ("unknownSupportField", workflow(states: #"{"a": {"type": "workflow", "path": "find-border-router.json", "result": "router", "next": "b", "onError": [{"errors": ["*"], "next": "done"}]}, "b": {"type": "choice", "choices": [{"if": {"contains": ["${vars.router.comands}", "ThreadNetworkManagement.joinNetwork"]}, "next": "done"}], "default": "done"}, "#+end+"}")),
        ("deadErrorRoute", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "next": "done", "onError": [{"errors": ["sessionBusy"], "next": "done"}, {"errors": ["*"], "next": "done"}]}, "#+end+"}")),
        ("deadRetry", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "retry": [{"errors": ["roomNotFound"]}], "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "#+end+"}")),
        ("unhandledError", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "next": "done"}, "#+end+"}")),
        ("unboundedDuration", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "next": "done", "onError": [{"errors": ["*"], "next": "b"}]}, "b": {"type": "assign", "warning": "again", "next": "a"}, "#+end+"}")),
        ("deadlineNotMet", workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "#+end+"}", extra: #""deadlineSeconds": 5,"#)),
        ("secretInputNotDeclared", workflow(states: #"{"a": {"type": "action", "operation": "commissionDevice", "arguments": {"onboardingPayload": "${input.code}"}, "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "#+end+"}", inputs: #"{"code": {"type": "string", "required": true}}"#)),
        ("unsafeRetry", workflow(states: #"{"a": {"type": "action", "operation": "commissionDevice", "arguments": {"onboardingPayload": "MT:Y.K9042C00KA0648G00"}, "retry": [{"errors": ["deadlineExceeded"]}], "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "#+end+"}")),
    ]

    @Test("each code has an input that triggers it, with a location", arguments: cases.map(\.code))
    func triggers(code: String) throws {
        let text = try #require(Self.cases.first { $0.code == code }?.text)
        let diagnostics = diagnose(text)
        let match = diagnostics.first { $0.code == code }
        #expect(match != nil, "expected \(code), got \(diagnostics.map(\.description))")
        if code != "missingCancelPath" {
            #expect(match?.location != nil, "\(code) has no line:column")
        }
    }

    @Test func everyDocumentedCodeIsCovered() {
        let tested = Set(Self.cases.map(\.code))
        let documented = Set(WorkflowDiagnosticCode.all.map(\.code)).subtracting(["fileNotFound", "unreadableFile", "workflowCycle", "invalidSubworkflow"])
            // Trees of files and very large walks: NestedWorkflowTests triggers these.
            .subtracting(["nestingTooDeep", "proofIncomplete"])
        #expect(documented.subtracting(tested).isEmpty, "untested: \(documented.subtracting(tested).sorted())")
    }

    @Test func syntaxErrorNamesLineColumnAndExpectation() throws {
        let diagnostics = diagnose("{\"workflow\": \"t\",\n  \"version\": 1,\n  \"start\" \"a\"}")
        let error = try #require(diagnostics.first)
        #expect(error.code == "syntaxError")
        #expect(error.location == SourceLocation(line: 3, column: 11))
        #expect(error.description.hasPrefix("test.json:3:11: error[syntaxError]:"))
        #expect(error.message.contains("separator ':' expected"))
    }

    @Test func unknownKeySuggestsTheIntendedKey() throws {
        let diagnostics = diagnose(Self.workflow(states: #"{"a": {"type": "succeed", "ouput": 1}}"#))
        let finding = try #require(diagnostics.first { $0.code == "unknownKey" })
        #expect(finding.message.contains("did you mean \"output\""))
        #expect(finding.pointer == "/states/a/ouput")
        #expect(finding.location == SourceLocation(line: 7, column: 39))
    }

    @Test func aNumberNoValueCanHoldIsReportedWithTheFilesOtherFindings() throws {
        let diagnostics = diagnose(#"""
            {"workflow": "t", "version": 1, "start": "a", "states": {
              "a": {"type": "action", "operation": "fetchRooms", "retry": [{"errors": ["*"], "maxRetries": 1e400}], "nxet": "done", "next": "done"},
              "done": {"type": "succeed", "description": 5}
            }}
            """#)
        #expect(diagnostics.map(\.code) == ["numberOutOfRange", "unknownKey", "wrongType"], "\(diagnostics)")
        #expect(diagnostics.map(\.pointer) == ["/states/a/retry/0/maxRetries", "/states/a/nxet", "/states/done/description"])
        #expect(diagnostics.allSatisfy { $0.location != nil })
    }

    @Test func aSecretBooleanInputIsRefusedWhereItIsDeclared() throws {
        let diagnostics = diagnose(#"""
            {"workflow": "t", "version": 1, "start": "a",
             "inputs": {"optIn": {"type": "boolean", "secret": true}, "pin": {"type": "integer", "secret": true}},
             "states": {"a": {"type": "succeed"}}}
            """#)
        let finding = try #require(diagnostics.first { $0.severity == .error })
        #expect(diagnostics.filter { $0.severity == .error }.count == 1, "a secret integer is fine: \(diagnostics)")
        #expect(finding.code == "invalidValue")
        #expect(finding.pointer == "/inputs/optIn/secret")
        #expect(finding.location == SourceLocation(line: 2, column: 52))
        #expect(finding.message.contains("drop \"secret\", or make the input a string"))
    }

    @Test("an assign state's warning reads what its own set binds (it is evaluated after set), and nothing unbound")
    func anAssignWarningReadsItsOwnSet() throws {
        let reads = diagnose(Self.workflow(states: #"{"a": {"type": "assign", "set": {"old": 1}, "warning": "old=${vars.old}", "next": "done"}, "#+Self.end+"}"))
        #expect(reads.isEmpty, "\(reads)")
        let unbound = diagnose(Self.workflow(states: #"{"a": {"type": "assign", "set": {"old": 1}, "warning": "${vars.other}", "next": "b"}, "b": {"type": "assign", "set": {"other": 2}, "next": "done"}, "#+Self.end+"}"))
        #expect(unbound.map(\.code) == ["undefinedVariable"], "\(unbound)")
        #expect(unbound.first?.pointer == "/states/a/warning")
    }

    @Test("a reference inside an object or array value is reported where it is written, not at the value holding it")
    func nestedReferencesAreLocatedExactly() throws {
        let diagnostics = diagnose(#"""
            {"workflow": "t", "version": 1, "start": "a", "states": {
              "a": {"type": "assign", "set": {"z": ["${vars.q2}", {"x": "${vars.q3}"}]}, "next": "b"},
              "b": {"type": "succeed", "output": {
                "fine": 1,
                "nested": {"deeper": "${vars.nothing}"}}}}}
            """#)
        #expect(Set(diagnostics.map(\.pointer)) == ["/states/a/set/z/0", "/states/a/set/z/1/x", "/states/b/output/nested/deeper"], "\(diagnostics)")
        let deeper = try #require(diagnostics.first { $0.pointer == "/states/b/output/nested/deeper" })
        #expect(deeper.location == SourceLocation(line: 5, column: 26))
    }

    @Test("a secret input's default too short to be redacted is refused where it is written, not blamed on --input at run time")
    func aShortSecretDefaultIsRefusedAtLoad() throws {
        let diagnostics = diagnose(Self.workflow(
            states: #"{"a": {"type": "succeed"}}"#,
            inputs: #"{"pin": {"type": "string", "secret": true, "default": "ab"}, "code": {"type": "integer", "secret": true, "default": 7}, "fine": {"type": "string", "secret": true, "default": "abcd"}}"#))
        #expect(diagnostics.map(\.code) == ["invalidValue", "invalidValue"], "\(diagnostics)")
        #expect(diagnostics.map(\.pointer) == ["/inputs/pin/default", "/inputs/code/default"])
        #expect(diagnostics.first?.message.contains("the default of secret input \"pin\" has 1-3 characters") == true, "\(diagnostics)")
        #expect(!diagnostics.contains { $0.message.contains("\"ab\"") })
    }

    @Test("a name no ${...} could read is refused where it is bound: an input, a result, a set key")
    func unreadableNamesAreRefused() throws {
        let diagnostics = diagnose(Self.workflow(
            states: #"{"a": {"type": "assign", "set": {"a.b": 1, "ok-name_2": 2}, "next": "b"}, "b": {"type": "action", "operation": "fetchRooms", "result": "r[0]", "next": "done"}, "#+Self.end+"}",
            inputs: #"{"my input": {"type": "string"}}"#))
        #expect(diagnostics.map(\.code) == ["invalidValue", "invalidValue", "invalidValue"], "\(diagnostics)")
        #expect(Set(diagnostics.map(\.pointer)) == ["/inputs/my input", "/states/a/set/a.b", "/states/b/result"])
        #expect(diagnostics.contains { $0.message == #"variable "a.b" could never be read: in ${...} a name consists of letters, digits, `_` and `-` ("a.b" would be read as a path); rename it, e.g. "a_b""# })
        #expect(diagnose(Self.workflow(states: #"{"a": {"type": "assign", "set": {"Größe": 1, "x-1": 2}, "next": "done"}, "#+Self.end+"}")).isEmpty)
    }

    @Test("a state or workflow name that is empty or holds '/' is refused: it could name two places in a run")
    func levelNamesCannotHoldTheSeparator() throws {
        // With "a/b" beside a sub-workflow state "a" whose child has a state "b", traces, graphs and idempotency
        // keys would name two states alike; a workflow named "x/y" would not resume from its checkpoints.
        let diagnostics = diagnose(#"""
            {"workflow": "x/y", "version": 1, "start": "a", "states": {
              "a": {"type": "assign", "set": {"x": 1}, "next": "a/b"}, "a/b": {"type": "assign", "set": {"y": 2}, "next": ""},
              "": {"type": "succeed"}}}
            """#)
        #expect(diagnostics.map(\.code) == ["invalidValue", "invalidValue", "invalidValue"], "\(diagnostics)")
        #expect(diagnostics.map(\.pointer) == ["/workflow", "/states/a~1b", "/states/"])
        #expect(diagnostics[0].message.contains(#"the workflow's name "x/y" holds '/'"#), "\(diagnostics)")
        #expect(diagnostics[1].message.hasSuffix(#"rename it, e.g. "a_b""#), "\(diagnostics)")
        #expect(diagnostics[2].message == "state name is empty; give it one")
        #expect(diagnostics[1].location == SourceLocation(line: 2, column: 67), "the state's object")
        let control = diagnose(#"{"workflow": "read\u0000device", "version": 1, "start": "a\tb", "states": {"a\tb": {"type": "succeed"}}}"#)
        #expect(control.map(\.pointer) == ["/workflow", "/states/a\tb"], "\(control)")
        #expect(control.allSatisfy { $0.message.contains("holds a control character") })
    }

    @Test("a workflow changed in code is validated as a file is: a next to nowhere, an unknown operation")
    func aWorkflowBuiltInCodeCanBeValidated() throws {
        let engine = WorkflowEngine()
        let loaded = try engine.load(path: Repository.workflow("commission-device.json"))
        #expect(engine.validate(loaded).filter { $0.severity == .error }.isEmpty)
        var changed = try loadWorkflow(Self.workflow(states: #"{"a": {"type": "action", "operation": "fetchRooms", "next": "done"}, "#+Self.end+"}"))
        #expect(engine.validate(changed).filter { $0.severity == .error }.isEmpty, "as loading found it")
        changed = changed.with { $0.states["a"] = $0.states["a"].map { state in
            var state = state
            if case .action(var action) = state.kind {
                action.operation = "fetchRoom"
                action.step.next = "nowhere"
                state.kind = .action(action)
            }
            return state
        } }
        let codes = Set(engine.validate(changed).map(\.code))
        #expect(codes.isSuperset(of: ["unknownOperation", "undefinedState"]), "\(codes)")
    }

    @Test("a literal argument or child input the call would refuse is refused where it is written, never quoted")
    func literalsTheRunWouldRefuse() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mf-literals-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        func write(_ text: String, to name: String) throws -> String {
            try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
            return directory + "/" + name
        }
        _ = try write(
            #"""
            {"workflow": "child", "version": 1, "inputs": {"name": {"type": "string", "required": true},
              "code": {"type": "onboardingPayload"}, "pin": {"type": "string", "secret": true}},
             "start": "done", "states": {"done": {"type": "succeed"}}}
            """#, to: "child.json")
        let parent = try write(
            #"""
            {"workflow": "parent", "version": 1, "start": "c", "onCancel": "stop", "states": {
              "c": {"type": "workflow", "path": "child.json", "inputs": {"name": "", "code": "MT:notvalid1", "pin": "ab"}, "next": "p"},
              "p": {"type": "action", "operation": "prepareCommissioning", "next": "cd", "onError": [{"errors": ["*"], "next": "stop"}]},
              "cd": {"type": "action", "operation": "commissionDevice", "arguments": {"onboardingPayload": "MT:notvalid2", "commissioningID": "${run.id}"}, "next": "stop", "onError": [{"errors": ["*"], "next": "stop"}]},
              "stop": {"type": "action", "operation": "cancelCommissioning", "next": "done", "onError": [{"errors": ["*"], "next": "done"}]},
              "done": {"type": "succeed"}}}
            """#, to: "parent.json")
        let diagnostics = WorkflowEngine().validate(path: parent).filter { $0.code == "invalidValue" }
        #expect(
            Set(diagnostics.map(\.pointer)) == ["/states/c/inputs/name", "/states/c/inputs/code", "/states/c/inputs/pin", "/states/cd/arguments/onboardingPayload"],
            "\(diagnostics)")
        #expect(!diagnostics.contains { $0.message.contains("MT:notvalid") || $0.message.contains("\"ab\"") })
    }

    @Test func newerVersionHasItsOwnMessage() throws {
        let diagnostics = diagnose(#"{"workflow": "t", "version": 3, "start": "a", "states": {"a": {"type": "succeed"}}}"#)
        let finding = try #require(diagnostics.first)
        #expect(finding.code == "unsupportedVersion")
        #expect(finding.message.contains("version 3"))
        #expect(finding.message.contains("upgrade MatterFlow"))
    }

    @Test func allFindingsAreCollectedNotOnlyTheFirst() {
        let diagnostics = diagnose(Self.workflow(states: #"{"a": {"type": "action", "operation": "nope", "next": "gone", "bogus": 1}}"#))
        let codes = Set(diagnostics.map(\.code))
        #expect(codes.isSuperset(of: ["unknownOperation", "undefinedState", "unknownKey"]))
    }

    @Test func aDirectoryIsReportedAsUnreadable() {
        let diagnostics = WorkflowEngine().validate(path: Repository.workflowsDirectory)
        #expect(diagnostics.map(\.code) == ["unreadableFile"])
    }

    @Test func aLoopThatOnlyCancellationCanEndNeverEnds() {
        let diagnostics = diagnose(#"""
            {"workflow": "t", "version": 1, "start": "a", "onCancel": "stop", "states": {
              "a": {"type": "assign", "set": {"x": 1}, "next": "b"},
              "b": {"type": "assign", "set": {"x": 2}, "next": "a"},
              "stop": {"type": "fail", "code": "cancelled", "message": "stopped"}
            }}
            """#)
        #expect(diagnostics.filter { $0.code == "noTerminalReachable" }.count == 2)
    }

    @Test func anUnknownStateTypeDoesNotCascade() {
        let diagnostics = diagnose(Self.workflow(states: #"{"a": {"type": "wiat", "next": "b"}, "b": {"type": "succeed"}}"#))
        #expect(diagnostics.map(\.code) == ["unknownStateType"], "\(diagnostics)")
    }

    @Test func aVariableTestedWithExistsIsNotAWarning() {
        let diagnostics = diagnose(Self.workflow(states: #"""
            {"a": {"type": "action", "operation": "fetchRooms", "result": "r", "next": "check", "onError": [{"errors": ["*"], "next": "check"}]},
             "check": {"type": "choice", "choices": [{"if": {"exists": "${vars.r}"}, "next": "done"}], "default": "done"},
             "done": {"type": "succeed"}}
            """#))
        #expect(diagnostics.isEmpty, "\(diagnostics)")
    }

    @Test func missingFileIsReportedWithItsPath() {
        let diagnostics = WorkflowEngine().validate(path: "/nonexistent/flow.json")
        #expect(diagnostics.map(\.code) == ["fileNotFound"])
        #expect(diagnostics.first?.file == "/nonexistent/flow.json")
    }

    @Test func workflowFilesIncludingEachOtherAreACycle() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mf-cycle-\(UInt64.random(in: 0...UInt64.max))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let body = { (other: String) in
            #"{"workflow": "w", "version": 1, "start": "a", "states": {"a": {"type": "workflow", "path": ""# + other
                + #"", "next": "done"}, "done": {"type": "succeed"}}}"#
        }
        try body("b.json").write(toFile: directory + "/a.json", atomically: true, encoding: .utf8)
        try body("a.json").write(toFile: directory + "/b.json", atomically: true, encoding: .utf8)
        let codes = WorkflowEngine().validate(path: directory + "/a.json").map(\.code)
        #expect(codes.contains("workflowCycle"))
        #expect(codes.contains("invalidSubworkflow"))
    }

    @Test func theDoneWhenCopyOfCommissionDeviceHasExactlyThreeFindings() throws {
        let original = try String(contentsOfFile: Repository.workflow("commission-device.json"), encoding: .utf8)
        var text = original.replacingOccurrences(of: #""next": "rooms","#, with: #""next": "roms","#)
        text = text.replacingOccurrences(
            of: #""path": "rooms.json","#, with: #""path": "rooms.json",\#n      "path": "rooms.json","#)
        text = text.replacingOccurrences(
            of: #""states": {"#, with: #""states": {\#n    "orphan": { "type": "succeed" },"#)
        let diagnostics = diagnose(text, file: "broken.json")
        #expect(diagnostics.map(\.code).sorted() == ["duplicateKey", "undefinedState", "unreachableState"], "\(diagnostics)")
        #expect(diagnostics.allSatisfy { $0.location != nil && $0.severity == .error })
        let undefined = try #require(diagnostics.first { $0.code == "undefinedState" })
        #expect(undefined.message.contains("did you mean \"rooms\""))
    }

    @Test("a workflow that lost its onCancel line: the unreachable cancel path is asked about, not offered for removal")
    func lostOnCancelIsAskedAbout() throws {
        let original = try String(contentsOfFile: Repository.workflow("commission-device.json"), encoding: .utf8)
        let line = "  \"onCancel\": \"cancelIfPrepared\",\n"
        try #require(original.contains(line))
        let diagnostics = diagnose(original.replacingOccurrences(of: line, with: ""), file: "commission-device.json")
        #expect(diagnostics.map(\.code).sorted() == ["missingCancelPath", "unreachableState"], "\(diagnostics)")
        let unreachable = try #require(diagnostics.first { $0.code == "unreachableState" })
        #expect(unreachable.severity == .error)
        #expect(unreachable.message.hasSuffix(#"(nor "cancel", "cancelled", only reachable through it); it looks like this workflow's cancel path, and "onCancel" is not declared: did you mean "onCancel": "cancelIfPrepared"?"#), "\(unreachable.message)")
        #expect(!unreachable.message.contains("remove it"))
        let missing = try #require(diagnostics.first { $0.code == "missingCancelPath" })
        #expect(missing.severity == .warning)
        #expect(missing.message.hasSuffix(#"state "cancelIfPrepared" looks like its cancel path, but nothing leads to it: did you mean "onCancel": "cancelIfPrepared"?"#))
        // The findings are the ones the language reference shows.
        let reference = try String(contentsOfFile: Repository.root + "/docs/workflow-language.md", encoding: .utf8)
        for diagnostic in diagnostics {
            #expect(reference.contains("  " + diagnostic.description + "\n"), "\(diagnostic.description)")
        }
    }

    @Test("what looks like a cancel path: a name holding cancel, or a region that ends the run as cancelled; not a release alone")
    func cancelPathLookalikes() throws {
        let prepare = #""a": {"type": "action", "operation": "prepareCommissioning", "next": "release", "onError": [{"errors": ["*"], "next": "failed"}]}, "release": {"type": "action", "operation": "cancelCommissioning", "next": "done", "onError": [{"errors": ["*"], "next": "done"}]}, "done": {"type": "succeed"}, "failed": {"type": "fail", "error": "${error}"}"#
        func unreachable(_ states: String, extra: String = "") throws -> String {
            let diagnostics = diagnose(Self.workflow(states: "{" + prepare + ", " + states + "}", extra: extra))
            return try #require(diagnostics.first { $0.code == "unreachableState" }, "\(diagnostics)").message
        }
        // Named so, in any case.
        let named = try unreachable(#""onCANCELLED": {"type": "fail", "code": "unavailable", "message": "stopped"}"#)
        #expect(named.hasSuffix(#"did you mean "onCancel": "onCANCELLED"?"#), "\(named)")
        // Ending the run as cancelled, by cause or by code, behind a state of another name.
        for end in [#""code": "aborted", "cause": "runCancelled""#, #""code": "cancelled""#] {
            let ends = try unreachable(
                #""stop": {"type": "action", "operation": "cancelCommissioning", "next": "stopped", "onError": [{"errors": ["*"], "next": "stopped"}]}, "stopped": {"type": "fail", "#
                    + end + #", "message": "stopped"}"#)
            #expect(ends.hasSuffix(#"did you mean "onCancel": "stop"?"#), "\(ends)")
        }
        // A failure path that releases the session is no cancel path.
        let cleanup = try unreachable(
            #""rememberFailure": {"type": "assign", "set": {"failure": "${error}"}, "next": "releaseAfterFailure"}, "releaseAfterFailure": {"type": "action", "operation": "cancelCommissioning", "next": "failedAfterRelease", "onError": [{"errors": ["*"], "next": "failedAfterRelease"}]}, "failedAfterRelease": {"type": "fail", "error": "${vars.failure}"}"#)
        #expect(cleanup.hasSuffix("remove it or add a transition"), "\(cleanup)")
        // Two lookalikes: each is asked about, and the warning names both.
        let two = diagnose(Self.workflow(states: "{" + prepare + #", "cancelA": {"type": "fail", "code": "cancelled", "message": "x"}, "cancelB": {"type": "fail", "code": "cancelled", "message": "x"}}"#))
        #expect(two.filter { $0.code == "unreachableState" }.map { $0.message.hasSuffix(#"?"#) } == [true, true], "\(two)")
        #expect(two.first { $0.code == "missingCancelPath" }?.message.hasSuffix(
            #"states "cancelA", "cancelB" look like its cancel path, but nothing leads to them: declare the one a cancelled run should take as "onCancel""#) == true, "\(two)")
        // A workflow that declares its cancel path has no other to guess.
        let declared = try unreachable(
            #""cancelOld": {"type": "fail", "code": "cancelled", "message": "stopped"}, "cancelNew": {"type": "fail", "code": "cancelled", "message": "stopped"}"#,
            extra: #""onCancel": "cancelNew","#)
        #expect(declared.contains(#""cancelOld" is unreachable"#) && declared.hasSuffix("remove it or add a transition"), "\(declared)")
    }
}
