import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// The static verification: session release, protocol order, error handling, retry safety and time bounds.
@Suite struct VerificationTests {
    static let shipped = try! FileManager.default.contentsOfDirectory(atPath: Repository.workflowsDirectory)
        .filter { $0.hasSuffix(".json") }.sorted()

    @Test("every shipped workflow passes every check with no finding at all", arguments: shipped)
    func shippedWorkflowsAreClean(_ name: String) {
        let diagnostics = WorkflowEngine().validate(path: Repository.workflow(name))
        #expect(diagnostics.isEmpty, "\(diagnostics.map(\.description).joined(separator: "\n"))")
    }

    /// An inline commissioning flow whose commission failure goes straight to the fail state, past the release.
    static let leakingFlow = #"""
        {"workflow": "t", "version": 1, "start": "prepare", "onCancel": "cancel", "states": {
          "prepare": {"type": "action", "operation": "prepareCommissioning", "result": "session", "next": "request", "onError": [{"errors": ["*"], "next": "failed"}]},
          "request": {"type": "action", "operation": "createAddDeviceRequest", "arguments": {"ecosystemName": "Google Home"}, "next": "commission", "onError": [{"errors": ["*"], "next": "release"}]},
          "commission": {"type": "action", "operation": "commissionDevice", "arguments": {"onboardingPayload": "MT:Y.K9042C00KA0648G00"}, "next": "complete", "onError": [{"errors": ["*"], "next": "failed"}]},
          "complete": {"type": "action", "operation": "completeCommissioning", "next": "done", "onError": [{"errors": ["*"], "next": "release"}]},
          "release": {"type": "action", "operation": "cancelCommissioning", "next": "failed", "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed"},
          "failed": {"type": "fail", "error": "${error}"},
          "cancel": {"type": "choice", "choices": [{"if": {"exists": "${vars.session}"}, "next": "cancelRelease"}], "default": "stopped"},
          "cancelRelease": {"type": "action", "operation": "cancelCommissioning", "next": "stopped", "onError": [{"errors": ["*"], "next": "stopped"}]},
          "stopped": {"type": "fail", "code": "cancelled", "message": "stopped"}
        }}
        """#

    @Test("a cancel arriving just after the state's call opened the session names that state as where it was opened")
    func aCancelInTheOpeningStateNamesIt() throws {
        let flow = #"""
            {"workflow": "leak", "version": 1, "start": "p",
             "states": {
               "p": {"type": "action", "operation": "prepareCommissioning", "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
               "done": {"type": "succeed"},
               "failed": {"type": "fail", "code": "internal", "message": "x"}
             }}
            """#
        let leak = try #require(diagnose(flow).first { $0.code == "sessionLeak" && $0.message.contains("when cancelled in \"p\"") })
        #expect(leak.message.hasPrefix("the commissioning session opened in \"p\" can still be open"), "\(leak.message)")
    }

    @Test func anErrorRoutePastTheReleaseLeaksTheSessionWithItsPath() throws {
        let diagnostics = diagnose(Self.leakingFlow)
        #expect(diagnostics.map(\.code) == ["sessionLeak"], "\(diagnostics)")
        let leak = try #require(diagnostics.first)
        #expect(leak.severity == .error)
        #expect(leak.pointer == "/states/commission/onError/0/next")
        #expect(leak.message == "the commissioning session opened in \"prepare\" can still be open when the run ends in fail state \"failed\"; release it on this path first (cancelCommissioning, or completeCommissioning after a commission). Path: prepare -[next]-> request -[next]-> commission -[onError[0] *]-> failed")
        let fixed = Self.leakingFlow.replacingOccurrences(
            of: #""next": "complete", "onError": [{"errors": ["*"], "next": "failed"}]"#,
            with: #""next": "complete", "onError": [{"errors": ["*"], "next": "release"}]"#)
        #expect(diagnose(fixed).isEmpty, "\(diagnose(fixed))")
    }

    @Test func commissionDeviceWhoseCancelPathSkipsTheReleaseLeaks() throws {
        let text = try String(contentsOfFile: Repository.workflow("commission-device.json"), encoding: .utf8)
        let old = #"{ "if": { "exists": "${vars.session}" }, "next": "cancel" }"#
        try #require(text.contains(old))
        let swapped = text.replacingOccurrences(of: old, with: #"{ "if": { "exists": "${vars.session}" }, "next": "cancelled" }"#)
            .replacingOccurrences(of: #""default": "cancelled""#, with: #""default": "cancel""#)
        let leak = try #require(diagnose(swapped).first { $0.code == "sessionLeak" })
        #expect(leak.pointer == "/states/cancelIfPrepared/choices/0/next")
        #expect(leak.message.hasSuffix(
            "Path: prepare -[start]-> prepare/prepare -[next]-> prepare/prepared -[next]-> request -[cancel]-> cancelIfPrepared -[choice[0]]-> cancelled"))
    }

    static let prepareThenStop = #"""
        {"workflow": "t", "version": 1, "start": "prepare", "onCancel": "stop", "states": {
          "prepare": {"type": "action", "operation": "prepareCommissioning", "result": "session", "next": "done",
                      "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed"},
          "failed": {"type": "fail", "error": "${error}"},
          "stop": {"type": "fail", "code": "cancelled", "message": "stopped"}
        }}
        """#

    @Test func aCancelPathThatDoesNotReleaseLeaks() throws {
        let leak = try #require(diagnose(Self.prepareThenStop).first { $0.code == "sessionLeak" })
        #expect(leak.pointer == "/onCancel")
        #expect(leak.message.contains("after a cancel, in \"stop\""))
        #expect(leak.message.hasSuffix("Path: prepare -[cancel]-> stop"))
    }

    @Test func aCancelPathThatReleasesOnlyAnOpenedSessionIsProved() {
        let text = Self.prepareThenStop.replacingOccurrences(
            of: #""stop": {"type": "fail", "code": "cancelled", "message": "stopped"}"#,
            with: #"""
                "stop": {"type": "choice", "choices": [{"if": {"exists": "${vars.session}"}, "next": "release"}], "default": "stopped"},
                "release": {"type": "action", "operation": "cancelCommissioning", "next": "stopped", "onError": [{"errors": ["*"], "next": "stopped"}]},
                "stopped": {"type": "fail", "code": "cancelled", "message": "stopped"}
                """#)
        #expect(diagnose(text).isEmpty, "\(diagnose(text))")
    }

    @Test func succeedingWithTheSessionOpenIsALeakOnlyWhenTheWorkflowSaysSo() throws {
        let released = Self.prepareThenStop.replacingOccurrences(of: #""start": "prepare","#, with: #""start": "prepare", "sessionOnSuccess": "released","#)
        let leak = try #require(diagnose(released).first { $0.code == "sessionLeak" && $0.pointer == "/states/prepare/next" })
        #expect(leak.message.contains("in succeed state \"done\""))
        #expect(!diagnose(Self.prepareThenStop).contains { $0.pointer == "/states/prepare/next" })
    }

    @Test func operationsOutOfProtocolOrderAreErrorsWithTheirPath() throws {
        let diagnostics = diagnose(#"""
            {"workflow": "t", "version": 1, "start": "prepare", "onCancel": "release", "states": {
              "prepare": {"type": "action", "operation": "prepareCommissioning", "next": "commission", "onError": [{"errors": ["*"], "next": "failed"}]},
              "commission": {"type": "action", "operation": "commissionDevice", "arguments": {"onboardingPayload": "MT:Y.K9042C00KA0648G00"},
                             "next": "release", "onError": [{"errors": ["*"], "next": "release"}]},
              "release": {"type": "action", "operation": "cancelCommissioning", "next": "configure", "onError": [{"errors": ["*"], "next": "failed"}]},
              "configure": {"type": "action", "operation": "configureDevice", "arguments": {"name": "Lamp"}, "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "code": "unknown", "message": "failed"}
            }}
            """#)
        let order = diagnostics.filter { $0.code == "operationOutOfOrder" }
        #expect(order.map(\.pointer) == ["/states/commission/operation", "/states/configure/operation"], "\(diagnostics)")
        #expect(order.first?.message == "commissionDevice can be called in \"commission\" without createAddDeviceRequest earlier in the same commissioning session (the hub refuses it, or acts on the wrong device or session); path: prepare -[next]-> commission")
        #expect(order.last?.message.contains("configureDevice can be called in \"configure\" without commissionDevice earlier") == true)
        #expect(order.last?.message.hasSuffix("release -[next]-> configure") == true, "\(order.last?.message ?? "")")
    }

    @Test func phaseWorkflowsRunInTheirCallersSession() {
        // configure.json alone calls configureDevice with no commission before it: the caller's session did it.
        #expect(WorkflowEngine().validate(path: Repository.workflow("configure.json")).isEmpty)
    }

    @Test func joiningNeedsASupportCheckFirst() throws {
        let unchecked = #"""
            {"workflow": "t", "version": 1, "start": "list", "states": {
              "list": {"type": "action", "operation": "listBorderRouters", "result": "routers", "next": "join", "onError": [{"errors": ["*"], "next": "failed"}]},
              "join": {"type": "action", "operation": "joinThreadNetwork",
                       "arguments": {"deviceID": "${vars.routers.deviceIDs[0]}", "operationalDataset": "00"}, "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#
        let finding = try #require(diagnose(unchecked).first { $0.code == "operationOutOfOrder" })
        #expect(finding.message.contains("without a choice testing the result of listBorderRouters or readBorderRouter"))
        let checked = unchecked.replacingOccurrences(of: #""next": "join", "onError""#, with: #""next": "check", "onError""#)
            .replacingOccurrences(of: #""done": {"type": "succeed"},"#, with: #"""
                "check": {"type": "choice", "choices": [{"if": {"contains": ["${vars.routers.borderRouters[0].commands}", "ThreadNetworkManagement.joinNetwork"]}, "next": "join"}], "default": "done"},
                "done": {"type": "succeed"},
                """#)
        #expect(diagnose(checked).isEmpty, "\(diagnose(checked))")
    }

    static let routes = #"""
        {"workflow": "t", "version": 1, "start": "fetch", "states": {
          "fetch": {"type": "action", "operation": "fetchRooms",
            "retry": [{"errors": ["roomNotFound"]}, {"errors": ["hubOffline", "hubUnreachable"], "maxRetries": 1}, {"errors": ["unavailable"]}],
            "next": "done",
            "onError": [{"errors": ["sessionBusy"], "next": "done"}, {"errors": ["hubOffline", "deviceNotFound"], "next": "done"},
                        {"errors": ["hubUnreachable"], "next": "done"}, {"errors": ["unavailable"], "next": "done"}]},
          "done": {"type": "succeed"}
        }}
        """#

    @Test func deadShadowedAndEscapingRoutesAgainstWhatTheOperationRaises() {
        let findings = diagnose(Self.routes).map { "\($0.severity.rawValue) \($0.code) \($0.pointer)" }
        #expect(findings == [
            "warning deadRetry /states/fetch/retry/0",
            "warning shadowedRetry /states/fetch/retry/2",
            "warning unhandledError /states/fetch/onError",
            "warning deadErrorRoute /states/fetch/onError/0",
            "warning deadErrorRoute /states/fetch/onError/1/errors/1",
            "warning shadowedErrorRoute /states/fetch/onError/3",
        ])
        let escaping = diagnose(Self.routes).first { $0.code == "unhandledError" }
        #expect(escaping?.message.hasPrefix("deadlineExceeded/actionTimedOut, internal/hubFailure, notFound/structureNotFound can leave \"fetch\" with no route") == true)
    }

    @Test func handleAllErrorsMakesEscapingErrorsErrors() throws {
        let strict = Self.routes.replacingOccurrences(of: #""start": "fetch","#, with: #""start": "fetch", "handleAllErrors": true,"#)
        let finding = try #require(diagnose(strict).first { $0.code == "unhandledError" })
        #expect(finding.severity == .error)
    }

    @Test func aSubWorkflowsErrorsAreWhatItsFailStatesRaise() {
        // prepare.json can fail with what its prepare step raises (permission, hub, session, timeout, ...), never
        // with invalidPayload: a route for it is dead.
        let diagnostics = diagnose(#"""
            {"workflow": "t", "version": 1, "start": "prepare", "onCancel": "cancel", "states": {
              "prepare": {"type": "workflow", "path": "prepare.json", "next": "done",
                          "onError": [{"errors": ["invalidPayload"], "next": "failed"}, {"errors": ["sessionBusy"], "next": "failed"}, {"errors": ["*"], "next": "failed"}]},
              "done": {"type": "workflow", "path": "cancel.json", "next": "released", "onError": [{"errors": ["*"], "next": "failed"}]},
              "released": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"},
              "cancel": {"type": "workflow", "path": "cancel.json", "next": "cancelled", "onError": [{"errors": ["*"], "next": "cancelled"}]},
              "cancelled": {"type": "fail", "code": "cancelled", "message": "cancelled"}
            }}
            """#)
        #expect(diagnostics.map(\.code) == ["deadErrorRoute"], "\(diagnostics)")
        #expect(diagnostics.first?.pointer == "/states/prepare/onError/0")
    }

    @Test("a route for valueTooLarge is live where the state builds a value (a string from a reference, a map's results) and dead elsewhere; no route for it is asked")
    func valueTooLargeWhereValuesAreBuilt() {
        func workflow(deviceID: String) -> String {
            #"""
            {"workflow": "t", "version": 1, "start": "read", "inputs": {"n": {"type": "string", "required": true}}, "states": {
              "read": {"type": "action", "operation": "readBasicInformation", "arguments": {"deviceID": \#(deviceID)}, "next": "done",
                       "onError": [{"errors": ["valueTooLarge"], "next": "failed"}, {"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#
        }
        let built = diagnose(workflow(deviceID: #""dev-${input.n}""#))
        #expect(built.isEmpty, "\(built)")
        let passed = diagnose(workflow(deviceID: #""${input.n}""#))
        #expect(passed.map(\.code) == ["deadErrorRoute"], "\(passed)")
        // Without routes, the warning for what may leave the state does not name it.
        let unrouted = diagnose(workflow(deviceID: #""dev-${input.n}""#).replacingOccurrences(of: #"{"errors": ["valueTooLarge"], "next": "failed"}, {"errors": ["*"], "next": "failed"}"#, with: #"{"errors": ["hubOffline"], "next": "failed"}"#))
        let escaping = unrouted.first { $0.code == "unhandledError" }
        #expect(escaping != nil && escaping?.message.contains("valueTooLarge") == false, "\(unrouted)")
    }

    @Test func retryingANonIdempotentWriteAfterATimeoutIsUnsafe() throws {
        let text = #"""
            {"workflow": "t", "version": 1, "start": "prepare", "onCancel": "release", "states": {
              "prepare": {"type": "action", "operation": "prepareCommissioning",
                          "retry": [{"errors": ["hubUnreachable"], "maxRetries": 2}, {"errors": ["deadlineExceeded"], "maxRetries": 1}],
                          "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "release": {"type": "action", "operation": "cancelCommissioning", "next": "failed", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "code": "unknown", "message": "failed"}
            }}
            """#
        let diagnostics = diagnose(text)
        #expect(diagnostics.map(\.code) == ["unsafeRetry"], "\(diagnostics)")
        #expect(diagnostics.first?.pointer == "/states/prepare/retry/1")
        #expect(diagnostics.first?.message.contains("prepareCommissioning has no idempotency key") == true)
    }

    static func commission(retry: String, extra: String = "", arguments: String = #""onboardingPayload": "MT:Y.K9042C00KA0648G00""#) -> String {
        """
        {"workflow": "t", "version": 1, "start": "commission", "states": {
          "commission": {"type": "action", "operation": "commissionDevice", "arguments": {\(arguments)}, \(extra)
                         "retry": [\(retry)], "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
          "done": {"type": "succeed"},
          "failed": {"type": "fail", "error": "${error}"}
        }}
        """
    }

    @Test func anIdempotencyKeyMakesTheRepeatSafe() throws {
        let unsafe = diagnose(Self.commission(retry: #"{"errors": ["*"], "maxRetries": 2}"#))
        #expect(unsafe.map(\.code) == ["unsafeRetry"])
        #expect(unsafe.first?.message.contains(#"declare "repeatSafety": {"idempotencyKey": "commissioningID"}"#) == true)
        let keyed = Self.commission(
            retry: #"{"errors": ["*"], "maxRetries": 2}"#, extra: #""repeatSafety": {"idempotencyKey": "commissioningID"},"#,
            arguments: #""onboardingPayload": "MT:Y.K9042C00KA0648G00", "commissioningID": "${run.id}""#)
        #expect(diagnose(keyed).isEmpty, "\(diagnose(keyed))")
        let unpassed = diagnose(Self.commission(
            retry: #"{"errors": ["*"], "maxRetries": 2}"#, extra: #""repeatSafety": {"idempotencyKey": "commissioningID"},"#))
        #expect(unpassed.map(\.code) == ["missingArgument"])
        let wrongKey = diagnose(Self.commission(
            retry: #"{"errors": ["*"], "maxRetries": 2}"#, extra: #""repeatSafety": {"idempotencyKey": "payload"},"#))
        #expect(wrongKey.map(\.code) == ["invalidValue"])
        // Errors that mean the hub did nothing are safe to retry without a key.
        #expect(diagnose(Self.commission(retry: #"{"errors": ["deviceUnreachable"], "maxRetries": 2}"#)).isEmpty)
    }

    @Test func retryingASubWorkflowThatCommissionsIsUnsafe() throws {
        let diagnostics = diagnose(#"""
            {"workflow": "t", "version": 1, "start": "commission", "states": {
              "commission": {"type": "workflow", "path": "commission.json", "inputs": {"onboardingPayload": "MT:Y.K9042C00KA0648G00"},
                             "retry": [{"errors": ["unavailable"], "maxRetries": 1}], "next": "done", "onError": [{"errors": ["*"], "next": "failed"}]},
              "done": {"type": "succeed"},
              "failed": {"type": "fail", "error": "${error}"}
            }}
            """#)
        let unsafe = try #require(diagnostics.first { $0.code == "unsafeRetry" })
        #expect(unsafe.pointer == "/states/commission/retry/0")
        #expect(unsafe.message.contains("calls commissionDevice, a non-idempotent write"))
        // The child released the session when it failed, so running it again also commissions out of order.
        let order = try #require(diagnostics.first { $0.code == "operationOutOfOrder" })
        #expect(order.message.hasSuffix("-[next]-> commission/failed -[retry]-> commission/commission"))
    }
}
