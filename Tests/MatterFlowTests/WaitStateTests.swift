import Foundation
import MatterFlow
import MatterFlowJSON
import Testing

/// Wait states: events that arrive before or during the wait, values, otherwise, timeout and cancel.
@Suite struct WaitStateTests {
    static func workflow(on: String = #"{"keyUsed": "used", "expired": "expired", "cancelled": "stopped"}"#, otherwise: String = "") -> String {
        #"""
        {"workflow": "w", "version": 1, "inputs": {"device": {"type": "string", "default": "br-1"}}, "start": "wait", "states": {
          "wait": {"type": "wait", "event": "epskcModeDeactivated", "match": {"deviceID": "${input.device}"},
                   "timeoutSeconds": 30, "result": "ended", "on": \#(on), \#(otherwise) "onTimeout": "late"},
          "used": {"type": "succeed", "output": {"how": "used", "reason": "${vars.ended.reason}"}},
          "expired": {"type": "succeed", "output": {"how": "expired"}},
          "stopped": {"type": "succeed", "output": {"how": "stopped"}},
          "late": {"type": "succeed", "output": {"how": "late"}}
        }}
        """#
    }

    func start(_ text: String, hub: ScriptedHub, clock: ManualClock) throws -> RunHandle {
        try WorkflowEngine().start(try loadWorkflow(text), on: hub, options: RunOptions(structureID: "s", clock: clock))
    }

    static func event(_ reason: String, device: String = "br-1") -> JSONObject {
        ["deviceID": .string(device), "reason": .string(reason)]
    }

    @Test func anEventBranchesOnItsValueAndBindsThePayload() async throws {
        let hub = ScriptedHub()
        let clock = ManualClock()
        let handle = try start(Self.workflow(), hub: hub, clock: clock)
        for await event in handle.events {
            if case .waitStarted = event.kind {
                hub.emit("epskcModeDeactivated", value: "keyUsed", fields: Self.event("keyUsed"))
            }
        }
        let result = await handle.result
        #expect(result.output == ["how": "used", "reason": "keyUsed"])
    }

    @Test func anEventThatArrivedBeforeTheWaitIsNotLost() async throws {
        let hub = ScriptedHub()
        let clock = ManualClock()
        let text = #"""
            {"workflow": "w", "version": 1, "start": "first", "states": {
              "first": {"type": "action", "operation": "fetchRooms", "next": "wait"},
              "wait": {"type": "wait", "event": "epskcModeDeactivated", "timeoutSeconds": 30,
                       "on": {"expired": "expired"}, "otherwise": "other", "onTimeout": "late"},
              "expired": {"type": "succeed", "output": "expired"},
              "other": {"type": "succeed", "output": "other"},
              "late": {"type": "succeed", "output": "late"}
            }}
            """#
        let handle = try start(text, hub: hub, clock: clock)
        for await event in handle.events {
            if case .hubCallStarted = event.kind { hub.emit("epskcModeDeactivated", value: "expired", fields: Self.event("expired")) }
        }
        #expect(await handle.result.output == "expired")
    }

    @Test func eventsForAnotherDeviceDoNotMatch() async throws {
        let hub = ScriptedHub()
        let clock = ManualClock()
        let handle = try start(Self.workflow(), hub: hub, clock: clock)
        for await event in handle.events {
            if case .waitStarted = event.kind {
                hub.emit("epskcModeDeactivated", value: "keyUsed", fields: Self.event("keyUsed", device: "br-2"))
                hub.emit("epskcModeDeactivated", value: "expired", fields: Self.event("expired"))
            }
        }
        #expect(await handle.result.output?["how"] == "expired")
    }

    @Test func valuesWithoutABranchTakeOtherwise() async throws {
        let hub = ScriptedHub()
        let clock = ManualClock()
        let text = Self.workflow(on: #"{"keyUsed": "used", "expired": "expired"}"#, otherwise: #""otherwise": "stopped","#)
        let handle = try start(text, hub: hub, clock: clock)
        for await event in handle.events {
            if case .waitStarted = event.kind { hub.emit("epskcModeDeactivated", value: "cancelled", fields: Self.event("cancelled")) }
        }
        #expect(await handle.result.output?["how"] == "stopped")
    }

    @Test func noEventInTimeTakesTheTimeoutTransition() async throws {
        let hub = ScriptedHub()
        let clock = ManualClock()
        let handle = try start(Self.workflow(), hub: hub, clock: clock)
        var edges: [String] = []
        for await event in handle.events {
            if case .waitStarted = event.kind {
                await clock.waitForSleepers(1)
                clock.advance(by: .seconds(30))
            }
            if case .transition(_, _, let edge) = event.kind { edges.append(edge.description) }
        }
        #expect(await handle.result.output?["how"] == "late")
        #expect(edges == ["timeout"])
    }

    @Test func cancellingAWaitTakesTheCancelEdge() async throws {
        let hub = ScriptedHub()
        let clock = ManualClock()
        let text = Self.workflow().replacingOccurrences(of: #""start": "wait","#, with: #""start": "wait", "onCancel": "stopped","#)
        let handle = try start(text, hub: hub, clock: clock)
        for await event in handle.events {
            if case .waitStarted = event.kind { handle.cancel() }
        }
        let result = await handle.result
        #expect(result.outcome == .cancelled)
        #expect(result.visitedStates == ["wait", "stopped"])
    }

    @Test func theValidatorKnowsEventsTheirValuesAndFields() {
        let unknownEvent = diagnose(Self.workflow().replacingOccurrences(of: "epskcModeDeactivated", with: "epskcDeactivated"))
        #expect(unknownEvent.contains { $0.code == "unknownEvent" && $0.message.contains("did you mean \"epskcModeDeactivated\"") })
        let badValue = diagnose(Self.workflow(on: #"{"keyUsed": "used", "expired": "expired", "cancelled": "stopped", "stolen": "late"}"#))
        #expect(badValue.map(\.code) == ["unknownEventValue"])
        let uncovered = diagnose(Self.workflow(on: #"{"keyUsed": "used", "expired": "expired", "cancelled": "late"}"#).replacingOccurrences(of: #""stopped": {"type": "succeed", "output": {"how": "stopped"}},"#, with: ""))
        #expect(uncovered.isEmpty, "\(uncovered)")
        let missing = diagnose(Self.workflow(on: #"{"keyUsed": "used", "expired": "expired", "cancelled": "stopped"}"#).replacingOccurrences(of: #""cancelled": "stopped""#, with: #""expired": "stopped""#))
        #expect(missing.contains { $0.code == "duplicateKey" })
        #expect(missing.contains { $0.code == "unhandledEventValue" && $0.message.contains("\"cancelled\"") })
        let field = diagnose(Self.workflow().replacingOccurrences(of: #""match": {"deviceID""#, with: #""match": {"device""#))
        #expect(field.contains { $0.code == "unknownField" })
        // A literal that can never equal the field would only let the wait time out.
        let neverEqual = diagnose(Self.workflow().replacingOccurrences(of: #""match": {"deviceID": "${input.device}"}"#, with: #""match": {"deviceID": 5}"#))
        #expect(neverEqual.map(\.code) == ["invalidValue"], "\(neverEqual)")
        #expect(neverEqual.first?.pointer == "/states/wait/match/deviceID")
        let noTimeout = diagnose(Self.workflow().replacingOccurrences(of: #""timeoutSeconds": 30,"#, with: ""))
        #expect(noTimeout.contains { $0.code == "missingKey" && $0.message.contains("timeoutSeconds") })
        let payloadField = diagnose(Self.workflow().replacingOccurrences(of: "${vars.ended.reason}", with: "${vars.ended.why}"))
        #expect(payloadField.contains { $0.code == "unknownField" })
    }

    @Test func aHubWithoutBorderRouterSupportSaysSo() async throws {
        let text = #"""
            {"workflow": "w", "version": 1, "start": "a", "states": {
              "a": {"type": "action", "operation": "activateEpskc", "arguments": {"deviceID": "br"}, "next": "ok",
                    "onError": [{"errors": ["unimplemented"], "next": "unsupported"}]},
              "ok": {"type": "succeed"},
              "unsupported": {"type": "fail", "error": "${error}"}
            }}
            """#
        let result = try await WorkflowEngine().run(
            try loadWorkflow(text), on: ScriptedHub(), options: RunOptions(structureID: "s", clock: ManualClock()))
        #expect(result.error?.cause == .notSupported)
        #expect(result.error?.code == .unimplemented)
    }

    @Test func aWaitCanWatchForTheSessionLeaseToRunOut() async throws {
        let text = #"""
            {"workflow": "w", "version": 1, "start": "wait", "states": {
              "wait": {"type": "wait", "event": "commissioningSessionExpired", "timeoutSeconds": 600, "result": "expiry",
                       "on": {"leaseExpired": "expired"}, "onTimeout": "stillOpen"},
              "expired": {"type": "succeed", "output": {"session": "${vars.expiry.sessionID}", "devices": "${vars.expiry.releasedDeviceIDs}"}},
              "stillOpen": {"type": "succeed", "output": "open"}
            }}
            """#
        #expect(diagnose(text).isEmpty, "\(diagnose(text))")
        let hub = ScriptedHub()
        let handle = try start(text, hub: hub, clock: ManualClock())
        for await event in handle.events {
            if case .waitStarted = event.kind {
                let expiry = SessionExpiry(sessionID: "session-1", phase: .commissioned, releasedDeviceIDs: ["d-1"])
                let hubEvent = expiry.hubEvent(structureID: "s", time: .zero)
                hub.emit(hubEvent.name, value: hubEvent.value, fields: hubEvent.fields)
            }
        }
        #expect(await handle.result.output == ["session": "session-1", "devices": ["d-1"]])
    }
}
