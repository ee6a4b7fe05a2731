import MatterFlow
import MatterFlowJSON
import Testing

/// Interpreter semantics: retries, timeouts, error routing, guards, cancellation, data flow.
@Suite struct InterpreterTests {
    let engine = WorkflowEngine()

    /// Runs a workflow, advancing the manual clock through every retry delay, and returns the result and events.
    func run(
        _ workflow: Workflow, hub: ScriptedHub, inputs: JSONObject = [:], clock: ManualClock = ManualClock(),
        whenCalled: (@Sendable (RunEvent, RunHandle) async -> Void)? = nil
    ) async throws -> (RunResult, [RunEvent]) {
        let handle = try engine.start(
            workflow, inputs: inputs, on: hub, options: RunOptions(structureID: "s", clock: clock, random: SeededRandomSource(seed: 7)))
        var events: [RunEvent] = []
        for await event in handle.events {
            events.append(event)
            if case .retryScheduled(_, _, let delay, _) = event.kind {
                await clock.waitForSleepers(1)
                clock.advance(by: .milliseconds(Int64((delay * 1000).rounded())))
            }
            await whenCalled?(event, handle)
        }
        return (await handle.result, events)
    }

    /// An action state with `extra` members; the `routed` and `other` states exist when `extra` routes to them.
    static func action(_ extra: String) -> String {
        var states = [
            #""a": {"type": "action", "operation": "fetchRooms", "result": "r", "next": "ok", "# + extra + "}",
            #""ok": {"type": "succeed", "output": "${vars.r.roomNames}"}"#,
        ]
        if extra.contains(#""routed""#) { states.append(#""routed": {"type": "fail", "error": "${error}"}"#) }
        if extra.contains(#""other""#) { states.append(#""other": {"type": "fail", "code": "internal", "message": "other route"}"#) }
        return #"{"workflow": "t", "version": 1, "start": "a", "states": {"# + states.joined(separator: ",\n") + "}}"
    }

    static let offline = FlowError(.hubOffline, "offline")
    static let unreachable = FlowError(.hubUnreachable, "unreachable")

    @Test("a computed cause that is null or empty is the default; another value is its JSON text; a computed code that is no string is malformedError")
    func computedCauseAndCode() async throws {
        let text = #"""
            {"workflow": "t", "version": 1, "inputs": {"cause": {"type": "any"}, "code": {"type": "any", "default": "internal"}},
             "start": "f", "states": {"f": {"type": "fail", "code": "${input.code}", "cause": "${input.cause}", "message": "m"}}}
            """#
        let workflow = try loadWorkflow(text)
        for (given, expected) in [(JSONValue.int(5), "5"), (.null, "workflowFailed"), (.string(""), "workflowFailed"), (.string("custom"), "custom")] {
            let (result, _) = try await run(workflow, hub: ScriptedHub(), inputs: ["cause": given])
            #expect(result.error?.code == .internal)
            #expect(result.error?.cause.rawValue == expected, "\(given)")
        }
        let (result, _) = try await run(workflow, hub: ScriptedHub(), inputs: ["cause": "c", "code": 7])
        #expect(result.error?.cause == .malformedError)
        #expect(result.error?.message == "the fail state's code evaluated to integer, not a canonical code's name")
    }

    @Test("a re-raised value that is no error value is malformedError saying which member is wrong and what it should be")
    func reRaisedValueThatIsNoError() async throws {
        let workflow = try loadWorkflow(#"""
            {"workflow": "t", "version": 1, "inputs": {"failure": {"type": "any"}},
             "start": "f", "states": {"f": {"type": "fail", "error": "${input.failure}"}}}
            """#)
        let cases: [(JSONValue, String)] = [
            (["code": "timeout", "message": "m"], #"its "code" "timeout" is no canonical code; use one of permissionDenied, "#),
            (["message": "m"], #"it has no "code"; give a canonical code ("#),
            (["code": 5], #"its "code" is an integer, not the name of a canonical code"#),
            (["code": "unavailable", "message": 5], #"its "message" is an integer, not a string"#),
            ("unavailable", #"it is a string, not an object such as {"code": "unavailable", "message": "..."}"#),
        ]
        for (given, expected) in cases {
            let (result, _) = try await run(workflow, hub: ScriptedHub(), inputs: ["failure": given])
            #expect(result.error?.cause == .malformedError, "\(given)")
            #expect(result.error?.message.hasPrefix(#"the fail state's "error" is not an error value: "# + expected) == true, "\(result.error?.message ?? "")")
        }
        let (raised, _) = try await run(workflow, hub: ScriptedHub(), inputs: ["failure": ["code": "unavailable", "cause": "hubOffline", "state": .null]])
        #expect(raised.error?.code == .unavailable && raised.error?.cause == .hubOffline)
    }

    @Test func retryDelaysFollowIntervalTimesRateToTheCap() async throws {
        let workflow = try loadWorkflow(Self.action(#"""
            "retry": [{"errors": ["hubOffline"], "maxRetries": 4, "intervalSeconds": 1, "backoffRate": 2, "maxDelaySeconds": 5}],
            "onError": [{"errors": ["*"], "next": "routed"}]
            """#))
        let hub = ScriptedHub()
        hub.script("fetchRooms", Array(repeating: .fail(Self.offline), count: 4))
        let clock = ManualClock()
        let (result, events) = try await run(workflow, hub: hub, clock: clock)
        let delays = events.compactMap { event -> Double? in
            if case .retryScheduled(_, _, let delay, _) = event.kind { return delay }
            return nil
        }
        #expect(delays == [1, 2, 4, 5])
        #expect(result.outcome == .succeeded)
        #expect(hub.count("fetchRooms") == 5)
        #expect(clock.now == .seconds(12))
    }

    @Test func exhaustedRetriesFallThroughToTheErrorRoute() async throws {
        let workflow = try loadWorkflow(Self.action(#"""
            "retry": [{"errors": ["unavailable"], "maxRetries": 2, "intervalSeconds": 1}],
            "onError": [{"errors": ["hubOffline"], "next": "routed"}, {"errors": ["*"], "next": "other"}]
            """#))
        let hub = ScriptedHub()
        hub.script("fetchRooms", Array(repeating: .fail(Self.offline), count: 5))
        let (result, _) = try await run(workflow, hub: hub)
        #expect(hub.count("fetchRooms") == 3)
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .hubOffline)
        #expect(result.error?.state == "a")
        #expect(result.visitedStates == ["a", "routed"])
    }

    @Test func theFirstMatchingRetrierAppliesAndZeroMeansNever() async throws {
        // hubOffline matches the first retrier (maxRetries 0) before the catch-all, so it is never retried.
        let workflow = try loadWorkflow(Self.action(#"""
            "retry": [{"errors": ["hubOffline"], "maxRetries": 0}, {"errors": ["*"], "maxRetries": 3}],
            "onError": [{"errors": ["*"], "next": "routed"}]
            """#))
        let hub = ScriptedHub()
        hub.script("fetchRooms", [.fail(Self.unreachable), .fail(Self.offline)])
        let (result, _) = try await run(workflow, hub: hub)
        #expect(hub.count("fetchRooms") == 2)
        #expect(result.error?.cause == .hubOffline)
    }

    @Test func retryCountersAreKeptPerRetrierWithinOneVisit() async throws {
        // Two retriers of one retry each: A, B, A again exhausts A's retrier (ASL's worked example).
        let workflow = try loadWorkflow(Self.action(#"""
            "retry": [{"errors": ["hubOffline"], "maxRetries": 1}, {"errors": ["hubUnreachable"], "maxRetries": 1}],
            "onError": [{"errors": ["*"], "next": "routed"}]
            """#))
        let hub = ScriptedHub()
        hub.script("fetchRooms", [.fail(Self.offline), .fail(Self.unreachable), .fail(Self.offline)])
        let (result, _) = try await run(workflow, hub: hub)
        #expect(hub.count("fetchRooms") == 3)
        #expect(result.error?.cause == .hubOffline)
    }

    @Test func retryCountersResetWhenTheRunLeavesTheState() async throws {
        let workflow = try loadWorkflow(#"""
            {"workflow": "t", "version": 1, "start": "a", "states": {
              "a": {"type": "action", "operation": "fetchRooms", "retry": [{"errors": ["hubOffline"], "maxRetries": 1}],
                    "next": "again", "onError": [{"errors": ["*"], "next": "failed"}]},
              "again": {"type": "action", "operation": "fetchRooms", "retry": [{"errors": ["hubOffline"], "maxRetries": 1}],
                    "next": "ok", "onError": [{"errors": ["*"], "next": "failed"}]},
              "ok": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#)
        let hub = ScriptedHub()
        hub.script("fetchRooms", [.fail(Self.offline), .succeed, .fail(Self.offline), .succeed])
        let (result, _) = try await run(workflow, hub: hub)
        #expect(result.outcome == .succeeded)
        #expect(hub.count("fetchRooms") == 4)
    }

    @Test func anUnroutedErrorFailsTheRunWithItsState() async throws {
        let workflow = try loadWorkflow(Self.action(#""onError": [{"errors": ["permissionDenied"], "next": "routed"}]"#))
        let hub = ScriptedHub()
        hub.script("fetchRooms", [.fail(Self.offline)])
        let (result, _) = try await run(workflow, hub: hub)
        #expect(result.outcome == .failed)
        #expect(result.error?.code == .unavailable)
        #expect(result.error?.state == "a")
    }

    @Test func aCallThatHangsTimesOutAndIsRoutedAsDeadlineExceeded() async throws {
        let workflow = try loadWorkflow(Self.action(#""timeoutSeconds": 5, "onError": [{"errors": ["deadlineExceeded"], "next": "routed"}]"#))
        let hub = ScriptedHub()
        hub.script("fetchRooms", [.hang])
        let clock = ManualClock()
        let (result, events) = try await run(workflow, hub: hub, clock: clock) { event, _ in
            if case .hubCallStarted = event.kind {
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(5))
            }
        }
        #expect(result.error?.cause == .actionTimedOut)
        #expect(result.error?.code == .deadlineExceeded)
        #expect(events.contains { if case .hubCallFinished(_, _, _, let duration, let error) = $0.kind { duration == .seconds(5) && error != nil } else { false } })
    }

    @Test func operationsHaveADefaultTimeout() async throws {
        let workflow = try loadWorkflow(Self.action(#""onError": [{"errors": ["*"], "next": "routed"}]"#))
        let hub = ScriptedHub()
        hub.script("fetchRooms", [.hang])
        let clock = ManualClock()
        let (result, _) = try await run(workflow, hub: hub, clock: clock) { event, _ in
            if case .hubCallStarted = event.kind {
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(OperationCatalog.standard["fetchRooms"]?.defaultTimeoutSeconds ?? 0))
            }
        }
        #expect(result.error?.cause == .actionTimedOut)
    }

    @Test func guardsAreCheckedInOrderAndTheirErrorsRouted() async throws {
        let workflow = try loadWorkflow(Self.action(#""guards": ["permission", "hubReachable"], "onError": [{"errors": ["unavailable"], "next": "routed"}]"#))
        let hub = ScriptedHub()
        hub.setStatus(HubStatus(online: false, reachable: false, permissionGranted: true, activeSession: false))
        let (result, events) = try await run(workflow, hub: hub)
        #expect(result.error?.cause == .hubOffline)
        #expect(hub.count("fetchRooms") == 0)
        let checks = events.compactMap { event -> String? in
            if case .guardChecked(_, let guardName, let error) = event.kind { return "\(guardName.name):\(error == nil)" }
            return nil
        }
        #expect(checks == ["permission:true", "hubReachable:false"])
    }

    @Test("each guard raises its documented cause", arguments: [
        (Guard.permission, HubStatus(online: true, reachable: true, permissionGranted: false, activeSession: false), ErrorCause.permissionNotGranted, ErrorCode.permissionDenied),
        (Guard.hubReachable, HubStatus(online: false, reachable: true, permissionGranted: true, activeSession: false), .hubOffline, .unavailable),
        (Guard.hubReachable, HubStatus(online: true, reachable: false, permissionGranted: true, activeSession: false), .hubUnreachable, .unavailable),
        (Guard.noActiveSession, HubStatus(online: true, reachable: true, permissionGranted: true, activeSession: true), .sessionBusy, .failedPrecondition),
    ])
    func guardCauses(guardName: Guard, status: HubStatus, cause: ErrorCause, code: ErrorCode) async throws {
        let workflow = try loadWorkflow(Self.action(#""guards": [""# + guardName.name + #""], "onError": [{"errors": ["*"], "next": "routed"}]"#))
        let hub = ScriptedHub()
        hub.setStatus(status)
        let (result, _) = try await run(workflow, hub: hub)
        #expect(result.error?.cause == cause)
        #expect(result.error?.code == code)
    }

    @Test func aPassingGuardLetsTheActionRun() async throws {
        let workflow = try loadWorkflow(Self.action(#""guards": ["permission", "hubReachable", "noActiveSession"], "retry": []"#))
        let (result, _) = try await run(workflow, hub: ScriptedHub())
        #expect(result.outcome == .succeeded)
        #expect(result.output == ["Kitchen", "Office"])
    }

    @Test func choicesTakeTheFirstMatchingBranchElseTheDefault() async throws {
        let text = #"""
            {"workflow": "t", "version": 1, "inputs": {"n": {"type": "integer", "required": true}, "tags": {"type": "array", "default": ["x"]}},
             "start": "pick", "states": {
              "pick": {"type": "choice", "choices": [
                  {"if": {"greaterThan": ["${input.n}", 10]}, "next": "big"},
                  {"if": {"and": [{"greaterThanOrEqual": ["${input.n}", 5]}, {"contains": ["${input.tags}", "x"]}]}, "next": "medium"},
                  {"if": {"equals": ["${input.n}", "5"]}, "next": "big"}
              ], "default": "small"},
              "big": {"type": "succeed", "output": "big"},
              "medium": {"type": "succeed", "output": "medium"},
              "small": {"type": "succeed", "output": "small"}
            }}
            """#
        let workflow = try loadWorkflow(text)
        for (n, expected) in [(11, "big"), (5, "medium"), (4, "small")] {
            let (result, _) = try await run(workflow, hub: ScriptedHub(), inputs: ["n": .int(n)])
            #expect(result.output == .string(expected), "n = \(n)")
        }
    }

    @Test func assignSetsVariablesAndRecordsWarnings() async throws {
        let workflow = try loadWorkflow(#"""
            {"workflow": "t", "version": 1, "inputs": {"who": {"type": "string", "default": "Ada"}}, "start": "a", "states": {
              "a": {"type": "assign", "set": {"greeting": "hello ${input.who}", "count": 3}, "warning": "note ${input.who}", "next": "b"},
              "b": {"type": "succeed", "output": {"g": "${vars.greeting}", "c": "${vars.count}", "run": "${run.structureID}"}}
            }}
            """#)
        let (result, _) = try await run(workflow, hub: ScriptedHub())
        #expect(result.output == ["g": "hello Ada", "c": 3, "run": "s"])
        #expect(result.warnings == ["note Ada"])
    }

    @Test func inputsAreCheckedBeforeTheRunStarts() throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device.json"))
        #expect(throws: DiagnosticsError.self) {
            _ = try workflow.resolveInputs(["deviceName": "Lamp", "bogus": 1])
        }
        do {
            _ = try workflow.resolveInputs(["deviceName": .int(3), "onboardingPaylod": "x"])
        } catch {
            // The misspelt name is one mistake: the required input its hint names is not reported missing too.
            let codes = error.diagnostics.map(\.code).sorted()
            #expect(codes == ["unknownKey", "wrongType"])
            #expect(error.diagnostics.contains { $0.message.contains("did you mean \"onboardingPayload\"") })
        }
        let resolved = try workflow.resolveInputs(["onboardingPayload": "MT:Y.K9042C00KA0648G00", "deviceName": "Lamp"])
        #expect(resolved["ecosystemName"] == "Google Home")
        #expect(resolved["roomName"] == .null)
        // An input given as null counts as not given: the default applies, and a required one is missing.
        let nulls = try workflow.resolveInputs(["onboardingPayload": "MT:Y.K9042C00KA0648G00", "deviceName": "Lamp", "ecosystemName": .null])
        #expect(nulls["ecosystemName"] == "Google Home")
        #expect(throws: DiagnosticsError.self) {
            _ = try workflow.resolveInputs(["onboardingPayload": "MT:Y.K9042C00KA0648G00", "deviceName": .null])
        }
    }

    @Test("secrets are redacted in events", arguments: ["MT:Y.K9042C00KA0648G00", "34970112332", "3497-011-2332"])
    func secretsAreRedactedInEvents(payload: String) async throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device.json"))
        let (result, events) = try await run(workflow, hub: ScriptedHub(), inputs: ["onboardingPayload": .string(payload), "deviceName": "Lamp"])
        #expect(result.outcome == .succeeded)
        let trace = events.map { JSONWriter.compact($0.jsonValue) + $0.text }.joined()
        #expect(!trace.contains(payload))
        #expect(!trace.contains("20202021"))
        #expect(trace.contains(RunOptions.redacted))
    }

    /// A directory with `child.json`, whose secret input `code` its only state quotes in the error it fails with,
    /// and `parent.json`, whose state `child` runs it as `call` says (its members but `next`).
    static func childQuotingItsSecret(parentCalling call: String) throws -> WorkflowDirectory {
        let child = #"""
            {"workflow": "child", "version": 1, "start": "quote",
             "inputs": {"code": {"type": "string", "required": true, "secret": true}},
             "states": {"quote": {"type": "fail", "code": "aborted", "message": "the code was ${input.code}"}}}
            """#
        let parent = #"""
            {"workflow": "parent", "version": 1, "start": "child",
             "states": {"child": {\#(call), "next": "done"}, "done": {"type": "succeed"}}}
            """#
        return try WorkflowDirectory("child-secret", files: ["child.json": child, "parent.json": parent])
    }

    /// A sub-workflow whose secret input the parent fills from a value it does not hold secret (here a literal),
    /// then fails quoting it: run as a state's child, and as a map's elements one and two at a time.
    @Test(
        "a value a sub-workflow declares secret is redacted wherever the run shows it",
        arguments: [#""type": "workflow", "path": "child.json", "inputs": {"code": "hunter2-secret"}"#,
                    #""type": "map", "items": ["a"], "as": "i", "maxItems": 1, "concurrency": 1, "path": "child.json", "inputs": {"code": "hunter2-secret"}"#,
                    #""type": "map", "items": ["a", "b"], "as": "i", "maxItems": 2, "concurrency": 2, "path": "child.json", "inputs": {"code": "hunter2-secret"}"#])
    func aSubWorkflowsSecretInputIsRedacted(call: String) async throws {
        let directory = try Self.childQuotingItsSecret(parentCalling: call)
        defer { directory.remove() }
        let workflow = try engine.load(path: directory.path + "/parent.json")
        let (result, events) = try await run(workflow, hub: ScriptedHub())
        #expect(result.outcome == .failed)
        let error = try #require(result.error)
        #expect(error.message.contains("the code was \(RunOptions.redacted)"), "\(error.message)")
        #expect(!error.message.contains("hunter2"))
        let trace = events.map { JSONWriter.compact($0.jsonValue) + $0.text }.joined()
        #expect(!trace.contains("hunter2"))
        #expect(trace.contains("the code was \(RunOptions.redacted)"))
    }

    @Test func aSecretIntegerInputIsRedactedFromReportsCheckpointsAndTheResult() async throws {
        let workflow = try loadWorkflow(#"""
            {"workflow": "pin", "version": 1, "start": "keep",
             "inputs": {"pin": {"type": "integer", "required": true, "secret": true}},
             "states": {
              "keep": {"type": "assign", "set": {"copy": "${input.pin}"}, "next": "quote"},
              "quote": {"type": "fail", "code": "aborted", "message": "pin ${input.pin} refused"}
             }}
            """#)
        let checkpoints = MutexBox<[RunCheckpoint]>([])
        var options = RunOptions(structureID: "s", clock: ManualClock(), runID: "r")
        options.checkpoints = { checkpoint in checkpoints.mutate { $0.append(checkpoint) } }
        let handle = try engine.start(workflow, inputs: ["pin": 20202021], on: ScriptedHub(), options: options)
        var trace = ""
        for await event in handle.events { trace += JSONWriter.compact(event.jsonValue) + event.text }
        let result = await handle.result
        #expect(result.error?.message == "pin \(RunOptions.redacted) refused")
        let kept = checkpoints.value.map { JSONWriter.compact($0.jsonValue) }.joined()
        #expect(checkpoints.value.last?.variables["copy"] == .string(RunOptions.redacted))
        #expect(!kept.contains("20202021") && !trace.contains("20202021"), "\(kept)\n\(trace)")
        // A secret number as short as a short secret string is refused before the run, for the same reason.
        #expect(throws: DiagnosticsError.self) { try workflow.resolveInputs(["pin": 123]) }
    }

    @Test func aSubWorkflowsSecretInputIsRedactedInAResumedRun() async throws {
        let directory = try Self.childQuotingItsSecret(
            parentCalling: #""type": "workflow", "path": "child.json", "inputs": {"code": "hunter2-secret"}"#)
        defer { directory.remove() }
        let workflow = try engine.load(path: directory.path + "/parent.json")
        // The journal kept the child's level without its secret input; the parent's template gives it back.
        let point = ResumePoint(
            levels: [
                RunCheckpoint(workflowPath: ["parent"], state: "child", inputs: [:], variables: [:]),
                RunCheckpoint(workflowPath: ["parent", "child"], state: "quote", inputs: [:], variables: [:]),
            ], cancel: false)
        let handle = try engine.resume(workflow, from: point, on: ScriptedHub(), options: RunOptions(structureID: "s", clock: ManualClock(), runID: "r"))
        var trace = ""
        for await event in handle.events { trace += JSONWriter.compact(event.jsonValue) + event.text }
        let result = await handle.result
        #expect(result.error?.message == "the code was \(RunOptions.redacted)")
        #expect(!trace.contains("hunter2"))
        #expect(trace.contains("the code was \(RunOptions.redacted)"))
    }

    @Test func anInvalidPayloadIsRejectedBeforeTheHubAndTheSessionReleased() async throws {
        // A string input (not an onboardingPayload one) reaches commissionDevice unchecked; the engine checks it there.
        let workflow = try loadWorkflow(#"""
            {"workflow": "t", "version": 1, "start": "prepare", "onCancel": "release",
             "inputs": {"code": {"type": "string", "required": true, "secret": true}},
             "states": {
              "prepare": {"type": "workflow", "path": "prepare.json", "next": "request", "onError": [{"errors": ["*"], "next": "failed"}]},
              "request": {"type": "workflow", "path": "add-device.json", "next": "commission", "onError": [{"errors": ["*"], "next": "failed"}]},
              "commission": {"type": "action", "operation": "commissionDevice", "arguments": {"onboardingPayload": "${input.code}"},
                             "next": "release", "onError": [{"errors": ["*"], "next": "remember"}]},
              "remember": {"type": "assign", "set": {"failure": "${error}"}, "next": "releaseAfterFailure"},
              "releaseAfterFailure": {"type": "workflow", "path": "cancel.json", "next": "failedAfterRelease", "onError": [{"errors": ["*"], "next": "failedAfterRelease"}]},
              "failedAfterRelease": {"type": "fail", "error": "${vars.failure}"},
              "release": {"type": "workflow", "path": "cancel.json", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#)
        let hub = ScriptedHub()
        let (result, events) = try await run(workflow, hub: hub, inputs: ["code": "34970112333"])
        #expect(result.outcome == .failed)
        #expect(result.error?.cause == .invalidPayload)
        #expect(result.error?.code == .invalidArgument)
        #expect(result.error?.message.contains("check digit") == true)
        #expect(result.error?.message.contains("34970112333") == false)
        #expect(hub.count("commissionDevice") == 0, "the hub never saw the invalid payload")
        #expect(!hub.session.isActive)
        #expect(events.allSatisfy { !JSONWriter.compact($0.jsonValue).contains("34970112333") })
    }

    @Test func anInputDeclaredOnboardingPayloadRefusesAnInvalidCodeBeforeTheRun() throws {
        let workflow = try WorkflowEngine().load(path: Repository.workflow("commission-device.json"))
        do {
            _ = try workflow.resolveInputs(["onboardingPayload": "34970112333", "deviceName": "Lamp"])
            Issue.record("an invalid code was accepted")
        } catch {
            #expect(error.diagnostics.map(\.code) == ["invalidValue"])
            #expect(error.diagnostics.first?.pointer == "/onboardingPayload")
            #expect(error.diagnostics.allSatisfy { !$0.message.contains("34970112333") })
        }
    }
}

/// The run IDs a user may choose name files: nothing that could leave a directory or hide a file.
@Suite("Run IDs")
struct RunIDRuleTests {
    @Test("accepted: what names a file in the directory, such as IDs of other systems; up to 200 bytes")
    func accepted() {
        for id in ["run-0123456789ab", "my_run.1", "A", "-x", "order:42", "caf\u{e9} 3", "bad id!", String(repeating: "a", count: 200)] {
            #expect(RunIDRule.problem(with: id) == nil, "\(id)")
        }
    }

    @Test("refused: empty, a path, a hidden name, control characters, 201 bytes")
    func refused() {
        for id in ["", "../victim", "a/b", ".hidden", "..", "a\u{0}b", "tab\t", "line\n", String(repeating: "a", count: 201)] {
            #expect(RunIDRule.problem(with: id) != nil, "\(id.debugDescription)")
        }
    }
}
